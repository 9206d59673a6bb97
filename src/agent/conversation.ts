// One conversation: the canonical message list, the tool state (tasks) and the parts a
// turn needs. The REPL and the -p runner call `send`; every loop event goes to the session
// recorder first (so it is on disk before the next step) and then to the display. A turn
// runs the conversation's own stages (turn_kernel.ts: room, window, loop guard, repeated
// failures) and the features' (turn_stage.ts), and each call the path of call_driver.ts.
// What each request sends comes from the prompt window (prompt_window.ts): append-only
// between steps.

import { type LoopLimits, runAgentLoop, type TurnOutcome, unsentTurn } from "./agent_loop.ts";
import type { ArgumentParser, PlacedStage } from "./call_flight.ts";
import { type CallPath, callPath } from "./call_driver.ts";
import type { LoopEventSink } from "./loop_events.ts";
import {
  type ImagePart,
  type Message,
  sumUsage,
  type ToolSchema,
  type Usage,
} from "../messages.ts";
import { formatAgentError } from "../errors.ts";
import type { Approver } from "../permissions/approver.ts";
import type { Provider } from "../providers/provider.ts";
import type { TokenCounter } from "../providers/token_counter.ts";
import type { SessionRecorder } from "./session_recorder.ts";
import { ContextBudget } from "./context_budget.ts";
import type { ContextReport } from "./context_report.ts";
import { compactedMessages, requestSummary } from "./compaction.ts";
import { PromptWindow } from "./prompt_window.ts";
import type { RestorePlan, TurnCheckpoints } from "../checkpoints/turn_checkpoints.ts";
import { offerTools, type ToolScope } from "./tool_offer.ts";
import {
  type OutgoingMessage,
  type StartSource,
  STOP_HOOK_PREFIX,
  type TurnContext,
  type TurnStage,
} from "./turn_stage.ts";
import {
  failureStage,
  guardStage,
  type KernelHost,
  roomStage,
  type WindowStage,
  windowStage,
} from "./turn_kernel.ts";

/** The model's window as the conversation knows it. */
export interface ConversationWindow {
  /** The model's context length when known: enables warnings and shortening old results. */
  contextLength?: number;
  /** Where the context length came from, for /context. */
  contextSource?: string;
  /** How the user raises the window, for advice (default "the server's context size"). */
  contextRaise?: string;
  /** Compact automatically when a request would fill this percentage of the window (85). */
  compactAt?: number;
  /** The model's token count, shared by a run's conversations (learned from its usage). */
  tokenCounter?: TokenCounter;
}

/** The limits of each turn. */
export interface ConversationLimits extends LoopLimits {
  /** Identical failing calls allowed before the turn stops (default 3). */
  repeatedFailures?: number;
  /** The identical call with the same result answered without running (default 3; 0: off). */
  loopGuard?: number;
}

/** What features add to a conversation (app/ assembles them). */
export interface ConversationStages {
  /** Stages placed on each call's path (hooks, checkpoint gate, edit note, image gate ...). */
  call: readonly PlacedStage[];
  /** Steps in each turn (images of a message, hooks, checkpoints). */
  turn: readonly TurnStage[];
  /** Turns the model's argument text into a value (argument repair); default: plain JSON. */
  parse?: ArgumentParser;
  /** The snapshots behind /undo and /rewind (their stages are among the above). */
  checkpoints?: TurnCheckpoints;
}

export interface ConversationParts {
  provider: Provider;
  tools: ToolScope;
  approver: Approver;
  recorder: SessionRecorder;
  limits: ConversationLimits;
  window: ConversationWindow;
  stages: ConversationStages;
}

/** A user message of the conversation, for /rewind's list. */
export interface ConversationTurn {
  /** Messages before it (the conversation a rewind keeps). */
  messageCount: number;
  prompt: string;
  /** Files changed from this turn on and not undone yet. */
  files: string[];
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
  /** The path each call of the conversation takes (the kernel's stages and the features'). */
  readonly #path: CallPath;
  /** The conversation as its own turn stages see it. */
  readonly #host: KernelHost;
  /** Said to the model with the next user message: hook context, what /undo did. */
  #notes: string[] = [];
  /** SessionStart hooks still to run, before the next message. */
  #pendingStart: StartSource | undefined;

  constructor(
    readonly parts: ConversationParts,
    init: { messages: Message[]; state?: Record<string, unknown>; starting?: StartSource },
  ) {
    this.messages = init.messages;
    this.state = init.state ?? {};
    this.#pendingStart = init.starting;
    this.#window = this.#useWindow();
    this.#path = callPath(parts.stages.call);
    this.#host = {
      messages: () => this.messages,
      window: () => this.#window,
      budget: () => this.#budget,
      schemas: () => this.#schemas(),
      provider: () => this.parts.provider,
      ...(parts.window.compactAt === undefined ? {} : { compactAt: parts.window.compactAt }),
      compact: (display, signal) => this.compact(display, signal),
    };
  }

  /** The window and budget of the model in `parts` (its counter, its window). */
  #useWindow(): PromptWindow {
    const { contextLength, contextRaise, compactAt, tokenCounter } = this.parts.window;
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
    window: Pick<ConversationWindow, "contextLength" | "contextSource" | "tokenCounter">,
  ): void {
    this.parts.provider = provider;
    const { contextRaise, compactAt } = this.parts.window;
    this.parts.window = {
      ...(contextRaise === undefined ? {} : { contextRaise }),
      ...(compactAt === undefined ? {} : { compactAt }),
      ...window,
    };
    this.#window = this.#useWindow();
  }

  /** The context window in use; a server's refusal lowers it for the rest of the session. */
  get contextLength(): number | undefined {
    return this.#window.tokens;
  }

  /** The tools' schemas as the next request offers them. */
  #schemas(): readonly ToolSchema[] {
    return offerTools(this.parts.tools, this.contextLength).schemas;
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
    const tools = this.#schemas();
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
    const report = this.#window.report(this.messages, this.#schemas(), {
      source: this.parts.window.contextSource ?? "stated by the server",
      ...(this.parts.window.contextLength ? { stated: this.parts.window.contextLength } : {}),
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
   * @param focus What the user asked the summary to keep in full (`/compact FOCUS`).
   * @returns Nothing, or an error line for the user; the conversation is unchanged then.
   */
  async compact(
    display: LoopEventSink,
    signal: AbortSignal,
    focus?: string,
  ): Promise<{ error?: string; usage?: Usage }> {
    const said = this.messages.filter((m) => m.kind !== "system");
    if (said.length < 2) return { error: "Nothing to compact yet" };
    const tools = this.#schemas();
    const counter = this.#window.counter;
    const before = counter.request(this.#window.view(this.messages), tools);
    const turn = await requestSummary(this.messages, {
      provider: this.parts.provider,
      tools,
      window: this.#window,
      signal,
      ...(focus ? { focus } : {}),
    });
    if (turn.usage) {
      const used = { type: "usage" as const, usage: turn.usage, side: "summary" };
      this.parts.recorder.record(used);
      display(used);
    }
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
    this.parts.stages.checkpoints?.detachMessages();
    await this.#started("compact", { sink: display, signal });
    return usage;
  }

  /** Runs the SessionStart steps: their context goes with the next user message. */
  async #started(source: StartSource, turn: TurnContext): Promise<void> {
    for (const stage of this.parts.stages.turn) {
      const context = await stage.started?.(source, turn);
      if (context !== undefined) this.#notes.push(context);
    }
  }

  /** Says why the conversation starts (/clear): its SessionStart hooks run with that source. */
  sessionStartsBy(source: "startup" | "resume" | "clear"): void {
    this.#pendingStart = source;
  }

  /** Adds a note for the model, sent with the next user message. */
  addNote(text: string): void {
    this.#notes.push(text);
  }

  /**
   * The user messages since the conversation started (or was last compacted or cleared), with
   * the files changed from each on and not undone, for /rewind.
   */
  turns(): ConversationTurn[] {
    const records = this.parts.stages.checkpoints?.records().filter((record) => !record.undone) ??
      [];
    const turns: ConversationTurn[] = [];
    this.messages.forEach((message, index) => {
      if (message.kind !== "user" || message.content.startsWith(STOP_HOOK_PREFIX)) return;
      const files = new Set(
        records.filter((record) => record.messageCount >= index).flatMap((record) => record.files),
      );
      turns.push({
        messageCount: index,
        prompt: message.content.trim().split("\n")[0] ?? "",
        files: [...files].sort(),
      });
    });
    return turns;
  }

  /**
   * Plans putting files back: the last turn's changes (/undo), or everything changed from a
   * user message on (/rewind).
   *
   * @param target "last", or where the user message sits (ConversationTurn.messageCount).
   * @returns The plan (its conflicts: files the user changed meanwhile), or why there is none.
   */
  planRestore(target: "last" | number): Promise<RestorePlan | { error: string }> {
    const checkpoints = this.parts.stages.checkpoints;
    if (!checkpoints) {
      return Promise.resolve({
        error: 'Checkpoints are off for this run (config "checkpoints", or no write grant)',
      });
    }
    return checkpoints.plan(target);
  }

  /**
   * Puts files back as planned and, for /rewind, takes the conversation back to before the
   * chosen user message. Both are logged; after /undo the model is told with the next message.
   *
   * @param plan The plan, or undefined when no file needs restoring (a rewind only).
   * @param options `overwrite`: the user's own changes too; `rewindTo`: the messages to keep.
   * @param display Receives the logged events.
   * @returns The paths restored and kept, or why nothing changed.
   */
  async restore(
    plan: RestorePlan | undefined,
    options: { overwrite: boolean; rewindTo?: number },
    display: LoopEventSink,
  ): Promise<{ restored: string[]; kept: string[] } | { error: string }> {
    if (this.#running) return { error: "Wait for the turn to end (or press Ctrl-C), then retry" };
    let restored: string[] = [];
    let kept: string[] = [];
    if (plan && this.parts.stages.checkpoints) {
      const outcome = await this.parts.stages.checkpoints.apply(plan, options.overwrite);
      if ("error" in outcome) return outcome;
      this.parts.recorder.record(outcome.event);
      display(outcome.event);
      ({ restored, kept } = outcome.event);
    }
    if (options.rewindTo !== undefined) {
      const keep = Math.max(1, Math.min(options.rewindTo, this.messages.length));
      this.messages = this.messages.slice(0, keep);
      this.#window.forget();
      this.parts.stages.checkpoints?.forget(keep);
      this.#lastStop = undefined;
      const event = { type: "rewound" as const, messageCount: keep };
      this.parts.recorder.record(event);
      display(event);
    } else if (plan && restored.length > 0) {
      const prompts = plan.turns.map((turn) => JSON.stringify(turn.prompt)).join(", ");
      const yours = kept.length > 0 ? `; ${kept.join(", ")} keep the user's own later edits` : "";
      this.#notes.push(
        `[The user undid the file changes of the turn ${prompts}: ${restored.join(", ")} are ` +
          `back as they were before it${yours}. Read files again before editing them.]`,
      );
    }
    return { restored, kept };
  }

  /** Starts a conversation with a system prompt (recorded as the first message). */
  static start(parts: ConversationParts, systemPrompt: string): Conversation {
    const conversation = new Conversation(parts, { messages: [], starting: "startup" });
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

  /**
   * Sends a user message (or continues with null) and runs the loop to its end.
   *
   * @param userText The message; null continues after a limit.
   * @param display Receives every loop event (after the session log).
   * @param signal Interrupts the turn.
   * @param images Images sent with the message (the caller checked the model can see).
   * @returns How the turn ended.
   */
  async send(
    userText: string | null,
    display: LoopEventSink,
    signal: AbortSignal,
    images: readonly ImagePart[] = [],
  ): Promise<TurnOutcome> {
    this.#running = true;
    this.#window.startTurn();
    try {
      return await this.#send(userText, display, signal, images);
    } finally {
      this.#running = false;
    }
  }

  async #send(
    userText: string | null,
    display: LoopEventSink,
    signal: AbortSignal,
    images: readonly ImagePart[],
  ): Promise<TurnOutcome> {
    const window = windowStage(this.#host);
    const sink = this.#sink(display, window);
    const turn: TurnContext = { sink, signal };
    const { limits } = this.parts;
    const stages: TurnStage[] = [
      roomStage(this.#host, display),
      window,
      guardStage(limits.loopGuard),
      failureStage(limits.repeatedFailures),
      ...this.parts.stages.turn,
    ];
    const message = this.#outgoing(userText, images);
    const refused = await this.#prepare(message, stages, turn);
    if (refused !== undefined) return this.#refused(refused, sink);
    try {
      const outcome = await runAgentLoop(this.messages, message.text, {
        ...this.#loopParts(stages, sink),
        ...(message.images.length > 0 ? { userImages: message.images } : {}),
      }, signal);
      if (message.usage) sumUsage(outcome.usage, message.usage);
      this.#lastStop = outcome.stopReason;
      return outcome;
    } finally {
      // The turn's file changes are recorded even when it was interrupted.
      for (const stage of stages) await stage.end?.(turn);
    }
  }

  /** Every loop event: recorded, then shown; usage teaches the window and the budget. */
  #sink(display: LoopEventSink, window: WindowStage): LoopEventSink {
    const sink: LoopEventSink = (event) => {
      this.parts.recorder.record(event);
      if (event.type === "state_changed") this.state = event.state;
      display(event);
      if (event.type !== "usage") return;
      for (const message of window.observe(event)) sink({ type: "warning", message });
    };
    return sink;
  }

  /** The user's message as the turn's stages get it. */
  #outgoing(text: string | null, images: readonly ImagePart[]): OutgoingMessage {
    const messages = () => this.messages;
    return {
      text,
      images: [...images],
      notes: this.#notes,
      ...(this.#pendingStart === undefined ? {} : { starting: this.#pendingStart }),
      position() {
        // A continued turn belongs to the last user message.
        const at = text !== null
          ? messages().length
          : messages().findLastIndex((message) => message.kind === "user");
        return { at, said: text ?? (at >= 0 ? messages()[at]!.content : "") };
      },
    };
  }

  /** Runs the stages before the message is sent; why it is not sent, if a stage refused it. */
  async #prepare(
    message: OutgoingMessage,
    stages: readonly TurnStage[],
    turn: TurnContext,
  ): Promise<string | undefined> {
    for (const stage of stages) {
      const verdict = await stage.send?.(message, turn);
      this.#pendingStart = message.starting;
      if (verdict) return verdict.refused;
    }
    if (message.text !== null && this.#notes.length > 0) {
      message.text = `${message.text}\n\n${this.#notes.join("\n\n")}`;
      this.#notes = [];
    }
    return undefined;
  }

  #loopParts(stages: readonly TurnStage[], sink: LoopEventSink) {
    const { provider, tools, approver, limits } = this.parts;
    const parse = this.parts.stages.parse;
    return {
      provider,
      tools,
      approver,
      sink,
      limits,
      state: this.state,
      path: this.#path,
      stages,
      window: () => this.contextLength,
      ...(parse ? { parseArguments: parse } : {}),
      ...(tools.files ? { files: tools.files } : {}),
    };
  }

  /**
   * Adds a message without a model turn (the output of a `!command` the user ran), recorded
   * in the session log first; the next request carries it.
   */
  addMessage(message: Message): void {
    this.parts.recorder.record({ type: "message", message });
    this.messages.push(message);
  }

  /** A message a stage refused: nothing is sent, and the turn ends with the reason. */
  #refused(message: string, sink: LoopEventSink): TurnOutcome {
    this.#lastStop = "error";
    sink({ type: "done", stopReason: "error", text: "", errorMessage: message });
    return unsentTurn(message);
  }

  /** Drops everything but the system prompt (and the tasks). */
  clear(): void {
    this.messages = this.messages.filter((message) => message.kind === "system");
    this.#window.forget();
    this.state = {};
    this.#notes = [];
    this.#pendingStart = "clear";
    // The files the turns changed can still be put back.
    this.parts.stages.checkpoints?.detachMessages();
  }
}
