// One conversation: the canonical message list, the tool state (tasks) and the parts a
// turn needs. The REPL and the -p runner call `send`; every loop event goes to the session
// recorder first (so it is on disk before the next step) and then to the display. What each
// request sends comes from the prompt window (prompt_window.ts): append-only between steps.

import { type LoopLimits, runAgentLoop, type TurnOutcome } from "./agent_loop.ts";
import type { ArgumentParser } from "./call_driver.ts";
import type { LoopEventSink } from "./loop_events.ts";
import {
  type Message,
  sumUsage,
  type ToolCall,
  type ToolResult,
  type ToolSchema,
  type Usage,
} from "../messages.ts";
import { formatAgentError } from "../errors.ts";
import type { Approver } from "../permissions/approver.ts";
import type { Provider } from "../providers/provider.ts";
import type { RefusalNumbers } from "../providers/context_refusal.ts";
import { MESSAGE_OVERHEAD, type TokenCounter } from "../providers/token_counter.ts";
import type { SessionRecorder } from "./session_recorder.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import { ContextBudget } from "./context_budget.ts";
import { RepeatedFailureTracker } from "./repair_arguments.ts";
import type { ContextReport } from "./context_report.ts";
import { compactedMessages, requestSummary } from "./compaction.ts";
import { PromptWindow } from "./prompt_window.ts";
import type { FitResult } from "./fit_request.ts";
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
  /** The model's token count, shared by a run's conversations (learned from its usage). */
  tokenCounter?: TokenCounter;
  /** The identical call with the same result answered without running (default 3; 0: off). */
  loopGuard?: number;
}

/** The live conversation's next request and the room it leaves ({@linkcode Conversation.requestView}). */
export interface ConversationPrefix {
  /** The messages as the next request sends them. */
  messages: readonly Message[];
  tools: readonly ToolSchema[];
  /** Tokens the prompt may still grow by before the window's limit. */
  room: number;
  /** The model's calibrated count of a text. */
  tokens(text: string): number;
}

export class Conversation {
  messages: Message[];
  state: Record<string, unknown>;
  #running = false;
  #lastStop: TurnOutcome["stopReason"] | undefined;
  #budget: ContextBudget | undefined;
  #window: PromptWindow;
  /** The request's size when the last user message was sent, to see how much a turn adds. */
  #turnStart: number | undefined;

  constructor(
    readonly parts: ConversationParts,
    init: { messages: Message[]; state?: Record<string, unknown> },
  ) {
    this.messages = init.messages;
    this.state = init.state ?? {};
    this.#window = this.#useWindow();
  }

  /** The window and budget of the model in `parts` (its counter, its window). */
  #useWindow(): PromptWindow {
    const { contextLength, contextRaise, compactAt, tokenCounter } = this.parts;
    this.#budget = contextLength
      ? new ContextBudget(contextLength, { ...(contextRaise ? { raise: contextRaise } : {}) })
      : undefined;
    return new PromptWindow(contextLength, {
      ...(compactAt !== undefined ? { compactAt } : {}),
      ...(tokenCounter ? { counter: tokenCounter } : {}),
    });
  }

  /**
   * Goes on with another model (/model): the same messages and state, its provider, the window
   * it states and a token count of its own (another model's tokenizer counts otherwise).
   *
   * @param provider The new model's provider.
   * @param window Its window and where the number came from, when known.
   */
  useModel(
    provider: Provider,
    window: { contextLength?: number; contextSource?: string; tokenCounter?: TokenCounter },
  ): void {
    this.parts.provider = provider;
    delete this.parts.contextLength;
    delete this.parts.contextSource;
    delete this.parts.tokenCounter;
    if (window.contextLength !== undefined) this.parts.contextLength = window.contextLength;
    if (window.contextSource !== undefined) this.parts.contextSource = window.contextSource;
    if (window.tokenCounter !== undefined) this.parts.tokenCounter = window.tokenCounter;
    this.#window = this.#useWindow();
  }

  /** The context window in use; a server's refusal lowers it for the rest of the session. */
  get contextLength(): number | undefined {
    return this.#window.tokens;
  }

  #tools(): ToolSchema[] {
    return this.parts.tools.list().map(toToolSchema);
  }

  /**
   * What the next request would send and how much room is left: a side request (the read_file
   * curator) builds on it to share the conversation's prefix with the server's cache.
   *
   * @returns The prefix, or undefined when the window is unknown.
   */
  requestView(): ConversationPrefix | undefined {
    const limit = this.#window.limit();
    if (limit === undefined) return undefined;
    const tools = this.#tools();
    const messages = this.#window.view(this.messages);
    const counter = this.#window.counter;
    return {
      messages,
      tools,
      room: limit - counter.request(messages, tools),
      tokens: (text) => counter.text(text),
    };
  }

  /**
   * What the next request would hold, part by part, against the window, and what the server
   * processed or reused (/context).
   *
   * @returns The report, or undefined when the window is unknown.
   */
  contextReport(): ContextReport | undefined {
    const report = this.#window.report(this.messages, this.#tools(), {
      source: this.parts.contextSource ?? "stated by the server",
      ...(this.parts.contextLength ? { stated: this.parts.contextLength } : {}),
    });
    const last = this.#budget?.promptTokens;
    return report && last ? { ...report, lastPromptTokens: last } : report;
  }

  /**
   * Replaces the conversation by the model's summary of it (/compact). The summary request
   * repeats the conversation as last sent and adds the instruction, so the server reuses its
   * cache; it is fitted to the window first when the whole would not fit. The session log keeps
   * the full history and records the summary, so a resumed session continues from it.
   *
   * @param display Receives the `compacted` event (and the summary request's usage).
   * @param signal Aborts the summary request.
   * @returns Nothing, or an error line for the user; the conversation is unchanged then.
   */
  async compact(
    display: LoopEventSink,
    signal: AbortSignal,
  ): Promise<{ error?: string; usage?: Usage }> {
    const said = this.messages.filter((m) => m.kind !== "system");
    if (said.length < 2) return { error: "Nothing to compact yet" };
    const tools = this.#tools();
    const counter = this.#window.counter;
    const before = counter.request(this.#window.view(this.messages), tools);
    const turn = await requestSummary(this.messages, {
      provider: this.parts.provider,
      tools,
      window: this.#window,
      signal,
    });
    if (turn.usage) display({ type: "usage", usage: turn.usage, side: "summary" });
    const usage = turn.usage ? { usage: turn.usage } : {};
    if (turn.stopReason === "aborted" || signal.aborted) {
      return { error: "Compaction interrupted: the conversation is unchanged", ...usage };
    }
    if (turn.stopReason === "error" || turn.text.trim() === "") {
      const why = turn.error
        ? formatAgentError(turn.error)
        : "the model answered without a summary";
      return { error: `Could not compact the conversation: ${why}`, ...usage };
    }
    this.messages = compactedMessages(this.messages, turn.text.trim());
    this.#window.forget();
    const event = {
      type: "compacted" as const,
      summary: turn.text.trim(),
      tokensBefore: before,
      tokensAfter: counter.request(this.messages, tools),
    };
    this.parts.recorder.record(event);
    display(event);
    return usage;
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
    this.#window.startTurn();
    let sentEstimate = 0;
    const sink: LoopEventSink = (event) => {
      this.parts.recorder.record(event);
      if (event.type === "state_changed") this.state = event.state;
      display(event);
      if (event.type !== "usage") return;
      this.#window.observe(event.usage, event.side ? { side: true } : {});
      if (event.side || !this.#budget) return;
      for (const warning of this.#budget.observe(event.usage, sentEstimate)) {
        sink({ type: "warning", message: warning.message });
      }
    };
    const sending = (fitted: FitResult) => {
      this.#window.sending(fitted.messages, this.#tools());
      sentEstimate = fitted.tokens;
      return fitted.messages;
    };
    const fitMessages = async (messages: readonly Message[]) => {
      if (!this.#window.tokens) return messages;
      const fitted = this.#window.fitted(messages, this.#tools());
      if (fitted.note) sink({ type: "warning", message: fitted.note });
      const checked = await this.#window.checkCount(messages, fitted, {
        provider: this.parts.provider,
        tools: this.#tools(),
        signal,
      });
      if (checked !== fitted && checked.note) sink({ type: "warning", message: checked.note });
      return sending(checked);
    };
    const refitMessages = (messages: readonly Message[], numbers: RefusalNumbers) => {
      const refit = this.#window.refused(messages, this.#tools(), numbers);
      return refit ? { messages: sending(refit.fitted), note: refit.note } : undefined;
    };
    const summary = await this.#makeRoom(userText, sink, display, signal);
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
      if (summary) sumUsage(outcome.usage, summary);
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

  /**
   * Before a user message is sent: when shortening old tool output (which the next request does
   * on its own) would not bring the conversation under the threshold, it is compacted first,
   * since a summary loses more than output the model can read again. When this turn will
   * likely cross the threshold (the last one grew as much), the step is taken now, so what it
   * makes the server process again does not include this turn's results.
   *
   * @returns The summary request's usage, when one was sent.
   */
  async #makeRoom(
    userText: string | null,
    sink: LoopEventSink,
    display: LoopEventSink,
    signal: AbortSignal,
  ): Promise<Usage | undefined> {
    const threshold = this.#window.threshold();
    if (threshold === undefined || userText === null) return undefined;
    if (this.messages.filter((m) => m.kind !== "system").length < 2) return undefined;
    const tools = this.#tools();
    const counter = this.#window.counter;
    const extra = counter.text(userText) + MESSAGE_OVERHEAD;
    const now = counter.request(this.#window.view(this.messages), tools) + extra;
    const growth = this.#turnStart === undefined ? 0 : Math.max(0, now - this.#turnStart);
    const planned = this.#window.plan(this.messages, tools, threshold - extra);
    if (planned.tokens + extra <= threshold) {
      if (now <= threshold && now + growth > threshold) {
        const step = this.#window.plan(this.messages, tools, 0);
        this.#window.commit(this.messages, step);
        if (step.note) sink({ type: "warning", message: step.note });
        this.#turnStart = step.tokens + extra;
      } else {
        this.#turnStart = now;
      }
      return undefined;
    }
    sink({
      type: "warning",
      message: `The conversation fills over ${this.parts.compactAt ?? 85}% of the ` +
        `${this.#window.tokens}-token window even with old tool output shortened: compacting ` +
        `it first (config "compact_at")`,
    });
    // compact() records its own event: the display alone is told.
    const compacted = await this.compact(display, signal);
    if (compacted.error) sink({ type: "warning", message: compacted.error });
    this.#turnStart = undefined;
    return compacted.usage;
  }

  /** Drops everything but the system prompt (and the tasks). */
  clear(): void {
    this.messages = this.messages.filter((message) => message.kind === "system");
    this.#window.forget();
    this.state = {};
  }
}
