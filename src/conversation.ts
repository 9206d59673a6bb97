// One conversation: the canonical message list, the tool state (tasks) and the parts a
// turn needs. The REPL and the -p runner call `send`; every loop event goes to the session
// recorder first (so it is on disk before the next step) and then to the display.

import { type LoopLimits, runAgentLoop, type TurnOutcome } from "./agent_loop.ts";
import type { ArgumentParser } from "./call_driver.ts";
import type { LoopEventSink } from "./loop_events.ts";
import type { Message, ToolCall, ToolResult } from "./messages.ts";
import type { Approver } from "./permissions/approver.ts";
import type { Provider } from "./providers/provider.ts";
import type { SessionRecorder } from "./session_types.ts";
import type { ToolRunner } from "./tools/tool_runner.ts";
import { ContextBudget, estimateTokens, fit } from "./context_budget.ts";
import { RepeatedFailureTracker } from "./tools/repair_arguments.ts";

export interface ConversationParts {
  provider: Provider;
  tools: ToolRunner;
  approver: Approver;
  recorder: SessionRecorder;
  limits: LoopLimits;
  parseArguments?: ArgumentParser;
  /** The model's context length when known: enables warnings and shortening old results. */
  contextLength?: number;
  /** Identical failing calls allowed before the turn stops (default 3). */
  repeatedFailureLimit?: number;
}

export class Conversation {
  messages: Message[];
  state: Record<string, unknown>;
  #running = false;
  #lastStop: TurnOutcome["stopReason"] | undefined;
  #budget: ContextBudget | undefined;

  constructor(
    readonly parts: ConversationParts,
    init: { messages: Message[]; state?: Record<string, unknown> },
  ) {
    this.messages = init.messages;
    this.state = init.state ?? {};
    if (parts.contextLength) this.#budget = new ContextBudget(parts.contextLength);
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
    const contextLength = this.parts.contextLength;
    const fitMessages = (messages: readonly Message[]): readonly Message[] => {
      if (!contextLength) return messages;
      // The tool schemas travel with every request and take context too.
      const schemaTokens = estimateTokens(JSON.stringify(
        this.parts.tools.list().map(({ name, description, parameters }) => ({
          name,
          description,
          parameters,
        })),
      ));
      const fitted = fit(messages, contextLength, { fixedTokens: schemaTokens });
      if (fitted.note) sink({ type: "warning", message: fitted.note });
      sentEstimate = estimateTokens(fitted.messages) + schemaTokens;
      return fitted.messages;
    };
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
        onCallFailed,
        ...(this.parts.parseArguments ? { parseArguments: this.parts.parseArguments } : {}),
      }, signal);
      this.#lastStop = outcome.stopReason;
      return outcome;
    } finally {
      this.#running = false;
    }
  }

  /** Drops everything but the system prompt (and the tasks). */
  clear(): void {
    this.messages = this.messages.filter((message) => message.kind === "system");
    this.state = {};
  }
}
