// One conversation: the canonical message list, the tool state (tasks) and the parts a
// turn needs. The REPL and the -p runner call `send`; every loop event goes to the session
// recorder first (so it is on disk before the next step) and then to the display.

import { type LoopLimits, runAgentLoop, type TurnOutcome } from "./agent_loop.ts";
import type { ArgumentParser } from "./call_driver.ts";
import type { LoopEventSink } from "./loop_events.ts";
import type { Message, ToolCall, ToolResult } from "../messages.ts";
import { formatAgentError } from "../errors.ts";
import type { Approver } from "../permissions/approver.ts";
import type { Provider } from "../providers/provider.ts";
import type { SessionRecorder } from "./session_recorder.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import { ContextBudget, estimateTokens, fit } from "./context_budget.ts";
import { RepeatedFailureTracker } from "./repair_arguments.ts";
import { type ContextReport, measureContext, schemaTokens } from "./context_report.ts";
import { COMPACT_INSTRUCTION, compactedMessages } from "./compaction.ts";
import { toToolSchema } from "../tools/tool_runner.ts";

export interface ConversationParts {
  provider: Provider;
  tools: ToolRunner;
  approver: Approver;
  recorder: SessionRecorder;
  limits: LoopLimits;
  parseArguments?: ArgumentParser;
  /** The model's context length when known: enables warnings and shortening old results. */
  contextLength?: number;
  /** Where the context length came from, for /context. */
  contextSource?: string;
  /** How the user raises the window, for advice (default "the server's context size"). */
  contextRaise?: string;
  /** Compact automatically when a request would fill this percentage of the window (85). */
  compactAt?: number;
  /** Identical failing calls allowed before the turn stops (default 3). */
  repeatedFailureLimit?: number;
  /** The identical call with the same result answered without running (default 3; 0: off). */
  loopGuard?: number;
}

export class Conversation {
  messages: Message[];
  state: Record<string, unknown>;
  #running = false;
  #lastStop: TurnOutcome["stopReason"] | undefined;
  #budget: ContextBudget | undefined;
  #window: number | undefined;

  constructor(
    readonly parts: ConversationParts,
    init: { messages: Message[]; state?: Record<string, unknown> },
  ) {
    this.messages = init.messages;
    this.state = init.state ?? {};
    this.#useWindow();
  }

  #useWindow(): void {
    const { contextLength, contextRaise } = this.parts;
    this.#window = contextLength;
    this.#budget = contextLength
      ? new ContextBudget(contextLength, { ...(contextRaise ? { raise: contextRaise } : {}) })
      : undefined;
  }

  /**
   * Goes on with another model (/model): the same messages and state, its provider and the
   * window it states.
   *
   * @param provider The new model's provider.
   * @param window Its window and where the number came from, when known.
   */
  useModel(provider: Provider, window: { contextLength?: number; contextSource?: string }): void {
    this.parts.provider = provider;
    delete this.parts.contextLength;
    delete this.parts.contextSource;
    if (window.contextLength !== undefined) this.parts.contextLength = window.contextLength;
    if (window.contextSource !== undefined) this.parts.contextSource = window.contextSource;
    this.#useWindow();
  }

  /** The context window in use; a server's context error may lower it. */
  get contextLength(): number | undefined {
    return this.#window;
  }

  /**
   * What the next request would hold, part by part, against the window (/context).
   *
   * @returns The report, or undefined when the window is unknown.
   */
  contextReport(): ContextReport | undefined {
    if (this.#window === undefined) return undefined;
    const tools = this.parts.tools.list().map(toToolSchema);
    const report = measureContext(this.messages, tools, {
      tokens: this.#window,
      source: this.parts.contextSource ?? "stated by the server",
    });
    const last = this.#budget?.promptTokens;
    return last ? { ...report, lastPromptTokens: last } : report;
  }

  /**
   * Replaces the conversation by the model's summary of it (/compact). The session log keeps
   * the full history and records the summary, so a resumed session continues from it.
   *
   * @param display Receives the `compacted` event (and the summary's text as it streams).
   * @param signal Aborts the summary request.
   * @returns Nothing, or an error line for the user; the conversation is unchanged then.
   */
  async compact(display: LoopEventSink, signal: AbortSignal): Promise<{ error?: string }> {
    const said = this.messages.filter((m) => m.kind !== "system");
    if (said.length < 2) return { error: "Nothing to compact yet" };
    const before = estimateTokens(this.messages);
    const request: Message[] = [...this.#fitted(this.messages).messages, {
      kind: "user",
      content: COMPACT_INSTRUCTION,
    }];
    const turn = await this.parts.provider.complete({
      messages: request,
      tools: this.parts.tools.list().map(toToolSchema),
      signal,
    });
    if (turn.stopReason === "aborted" || signal.aborted) {
      return { error: "Compaction interrupted: the conversation is unchanged" };
    }
    if (turn.stopReason === "error" || turn.text.trim() === "") {
      const why = turn.error
        ? formatAgentError(turn.error)
        : "the model answered without a summary";
      return { error: `Could not compact the conversation: ${why}` };
    }
    this.messages = compactedMessages(this.messages, turn.text.trim());
    const event = {
      type: "compacted" as const,
      summary: turn.text.trim(),
      tokensBefore: before,
      tokensAfter: estimateTokens(this.messages),
    };
    this.parts.recorder.record(event);
    display(event);
    return {};
  }

  /** The messages shortened to fit the window (tool schemas included). */
  #fitted(messages: readonly Message[], window = this.#window) {
    if (!window) return { messages: [...messages], overflow: false };
    const fixedTokens = schemaTokens(this.parts.tools.list().map(toToolSchema));
    return fit(messages, window, { fixedTokens });
  }

  /** Starts a conversation with a system prompt (recorded as the first message). */
  static start(parts: ConversationParts, systemPrompt: string): Conversation {
    const conversation = new Conversation(parts, { messages: [] });
    const system: Message = { kind: "system", content: systemPrompt };
    conversation.messages.push(system);
    parts.recorder.record({ type: "message", message: system });
    return conversation;
  }

  get running(): boolean {
    return this.#running;
  }

  /**
   * Whether there is work to continue (/continue): the last turn stopped at a limit, an
   * error or an interrupt. Before any turn in this process (a resumed session), whether the
   * log ends anywhere but on an answer.
   */
  canContinue(): boolean {
    if (this.#lastStop !== undefined) {
      return this.#lastStop !== "answered" && this.#lastStop !== "task_complete";
    }
    const last = this.messages.at(-1);
    return last !== undefined && last.kind !== "system" && last.kind !== "assistant";
  }

  /** Sends a user message (or continues with null) and runs the loop to its end. */
  async send(
    userText: string | null,
    display: LoopEventSink,
    signal: AbortSignal,
  ): Promise<TurnOutcome> {
    this.#running = true;
    let sentEstimate = 0;
    const sink: LoopEventSink = (event) => {
      this.parts.recorder.record(event);
      if (event.type === "state_changed") this.state = event.state;
      display(event);
      if (event.type === "usage" && this.#budget) {
        for (const warning of this.#budget.observe(event.usage, sentEstimate)) {
          sink({ type: "warning", message: warning.message });
        }
      }
    };
    const fitMessages = (messages: readonly Message[]): readonly Message[] => {
      if (!this.#window) return messages;
      const fitted = this.#fitted(messages);
      if (fitted.note) sink({ type: "warning", message: fitted.note });
      sentEstimate = estimateTokens(fitted.messages) +
        schemaTokens(this.parts.tools.list().map(toToolSchema));
      return fitted.messages;
    };
    const refitMessages = (messages: readonly Message[], limit: number | undefined) => {
      const window = this.#window;
      if (!window) return undefined;
      // Trust the window the server named; without one, aim a quarter lower.
      const target = limit !== undefined && limit < window ? limit : Math.floor(window * 0.75);
      if (limit !== undefined && limit < window) this.#window = limit;
      const fitted = this.#fitted(messages, target);
      if (fitted.overflow && fitted.note === undefined) return undefined;
      const named = limit !== undefined ? ` (its window is ${limit} tokens)` : "";
      return {
        messages: fitted.messages,
        note: `The server refused the request as too long${named}: asking again with old ` +
          `tool output shortened${fitted.note ? `. ${fitted.note}` : ""}`,
      };
    };
    // Near the window, the conversation is compacted before the next message is sent.
    // Shortening old tool output comes first (the model can read it again); a summary only
    // when the request is still over the threshold after it.
    const window = this.#window;
    const threshold = (this.parts.compactAt ?? 85) / 100;
    const next = window && userText !== null
      ? estimateTokens(this.#fitted(this.messages).messages) + estimateTokens(userText) +
        schemaTokens(this.parts.tools.list().map(toToolSchema))
      : 0;
    if (
      window && next > window * threshold &&
      this.messages.filter((m) => m.kind !== "system").length >= 2
    ) {
      sink({
        type: "warning",
        message: `The conversation fills over ${Math.round(threshold * 100)}% of the ` +
          `${window}-token window: compacting it first (config "compact_at")`,
      });
      // compact() records its own event: the display alone is told.
      const compacted = await this.compact(display, signal);
      if (compacted.error) sink({ type: "warning", message: compacted.error });
    }
    const limit = this.parts.repeatedFailureLimit ?? 3;
    const failures = new RepeatedFailureTracker(limit);
    const onCallFailed = (call: ToolCall, result: ToolResult) =>
      failures.record(call.name, call.arguments, `${result.error_type}: ${result.error_message}`)
        ? {
          user: `Stopped: the model called "${call.name}" ${limit} times with the same ` +
            `failing arguments (${result.error_type}); rephrase your request or type /continue`,
          model: failures.stopMessage(call.name),
        }
        : undefined;
    try {
      const outcome = await runAgentLoop(this.messages, userText, {
        provider: this.parts.provider,
        tools: this.parts.tools,
        approver: this.parts.approver,
        sink,
        limits: this.parts.limits,
        state: this.state,
        fitMessages,
        refitMessages,
        onCallFailed,
        ...(this.parts.loopGuard === undefined ? {} : { loopGuard: this.parts.loopGuard }),
        ...(this.parts.parseArguments ? { parseArguments: this.parts.parseArguments } : {}),
      }, signal);
      this.#lastStop = outcome.stopReason;
      return outcome;
    } finally {
      this.#running = false;
    }
  }

  /**
   * Adds a message without a model turn (the output of a `!command` the user ran), recorded
   * in the session log first; the next request carries it.
   */
  addMessage(message: Message): void {
    this.parts.recorder.record({ type: "message", message });
    this.messages.push(message);
  }

  /** Drops everything but the system prompt (and the tasks). */
  clear(): void {
    this.messages = this.messages.filter((message) => message.kind === "system");
    this.state = {};
  }
}
