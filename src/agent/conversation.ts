// One conversation: the canonical message list, the tool state (tasks) and the parts a
// turn needs. The REPL and the -p runner call `send`; every loop event goes to the session
// recorder first (so it is on disk before the next step) and then to the display. What each
// request sends comes from the prompt window (prompt_window.ts): append-only between steps.

import { type LoopLimits, runAgentLoop, type TurnOutcome, unsentTurn } from "./agent_loop.ts";
import type { ArgumentParser } from "./call_driver.ts";
import type { LoopEventSink } from "./loop_events.ts";
import {
  type ImagePart,
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
import { compactedMessages, compactForTurn, requestSummary } from "./compaction.ts";
import { PromptWindow } from "./prompt_window.ts";
import type { FitResult } from "./fit_request.ts";
import { toToolSchema } from "../tools/tool_runner.ts";
import type { RestorePlan, TurnCheckpoints } from "../checkpoints/turn_checkpoints.ts";
import { type CallHooks, mayChangeFiles, STOP_HOOK_PREFIX, type TurnHooks } from "./turn_hooks.ts";

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
  /** Snapshots before turns that change files, for /undo and /rewind (src/checkpoints/). */
  checkpoints?: TurnCheckpoints;
  /** PreToolUse and PostToolUse hooks (src/hooks/, through app/). */
  callHooks?: CallHooks;
  /** UserPromptSubmit, Stop and SessionStart hooks. */
  turnHooks?: TurnHooks;
  /** Notes for the model at the start of a turn, with the user's message (jobs that ended). */
  turnNotes?(): string[];
  /** Why the conversation starts: its SessionStart hooks run before its first message. */
  sessionStart?: "startup" | "resume";
  /**
   * Finds the images a user's message names (`@pic.png`, a pasted path) and checks them with
   * the ones given (an editor's): the images to send, or why the message is not sent.
   */
  prepareMessage?(
    text: string,
    images: readonly ImagePart[],
    signal: AbortSignal,
  ): Promise<{ images: ImagePart[] } | { refused: string }>;
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
  /** The request's size when the last user message was sent, to see how much a turn adds. */
  #turnStart: number | undefined;
  /** Said to the model with the next user message: hook context, what /undo did. */
  #notes: string[] = [];
  /** SessionStart hooks still to run, before the next message. */
  #pendingStart: "startup" | "resume" | "clear" | undefined;

  constructor(
    readonly parts: ConversationParts,
    init: { messages: Message[]; state?: Record<string, unknown> },
  ) {
    this.messages = init.messages;
    this.state = init.state ?? {};
    this.#pendingStart = parts.sessionStart;
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
    const tools = this.#tools();
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
    this.parts.checkpoints?.detachMessages();
    await this.sessionStarted("compact", display, signal);
    return usage;
  }

  /**
   * Runs the SessionStart hooks: their context goes with the next user message.
   *
   * @param source Why: a new conversation, a resumed one, /clear, or a compaction.
   * @param display Receives the hooks' notices as warnings.
   * @param signal Stops the hooks.
   */
  async sessionStarted(
    source: "startup" | "resume" | "clear" | "compact",
    display: LoopEventSink,
    signal: AbortSignal,
  ): Promise<void> {
    const hooks = this.parts.turnHooks;
    if (!hooks) return;
    const verdict = await hooks.sessionStarted(source, signal);
    for (const message of verdict.notices) display({ type: "warning", message });
    if (verdict.context !== undefined) this.#notes.push(verdict.context);
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
    const records = this.parts.checkpoints?.records().filter((record) => !record.undone) ?? [];
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
    const checkpoints = this.parts.checkpoints;
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
    if (plan && this.parts.checkpoints) {
      const outcome = await this.parts.checkpoints.apply(plan, options.overwrite);
      if ("error" in outcome) return outcome;
      this.parts.recorder.record(outcome.event);
      display(outcome.event);
      ({ restored, kept } = outcome.event);
    }
    if (options.rewindTo !== undefined) {
      const keep = Math.max(1, Math.min(options.rewindTo, this.messages.length));
      this.messages = this.messages.slice(0, keep);
      this.#window.forget();
      this.parts.checkpoints?.forget(keep);
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
    let sentEstimate = 0;
    const sink: LoopEventSink = (event) => {
      this.parts.recorder.record(event);
      if (event.type === "state_changed") this.state = event.state;
      // The model is asked again: the files its calls changed are snapshotted meanwhile.
      if (event.type === "turn_started") this.parts.checkpoints?.settle();
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
    // The images the message names, checked before anything is sent.
    let sentImages = [...images];
    if (userText !== null && this.parts.prepareMessage) {
      const prepared = await this.parts.prepareMessage(userText, images, signal);
      if ("refused" in prepared) return this.#refused(prepared.refused, sink);
      sentImages = prepared.images;
    }
    if (this.#pendingStart !== undefined) {
      const source = this.#pendingStart;
      this.#pendingStart = undefined;
      await this.sessionStarted(source, sink, signal);
    }
    // UserPromptSubmit hooks may stop the message (nothing is sent) or add context.
    let sentText = userText;
    if (userText !== null && this.parts.turnHooks) {
      const verdict = await this.parts.turnHooks.promptSubmitted(userText, signal);
      for (const message of verdict.notices) sink({ type: "warning", message });
      const blocked = verdict.block ?? verdict.stop;
      if (blocked !== undefined) {
        return this.#refused(`Blocked by a UserPromptSubmit hook: ${blocked}`, sink);
      }
      if (verdict.context !== undefined) this.#notes.push(verdict.context);
    }
    if (sentText !== null) this.#notes.push(...this.parts.turnNotes?.() ?? []);
    if (sentText !== null && this.#notes.length > 0) {
      sentText = `${sentText}\n\n${this.#notes.join("\n\n")}`;
      this.#notes = [];
    }
    const checkpoints = this.parts.checkpoints;
    if (checkpoints) {
      // A continued turn belongs to the last user message.
      const at = userText !== null
        ? this.messages.length
        : this.messages.findLastIndex((message) => message.kind === "user");
      const said = userText ?? (at >= 0 ? this.messages[at]!.content : "");
      checkpoints.begin(at, said);
    }
    const hooks = this.#callHooks(sink);
    const turnHooks = this.parts.turnHooks;
    const stopping = turnHooks ? turnHooks.stopping.bind(turnHooks) : undefined;
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
      const outcome = await runAgentLoop(this.messages, sentText, {
        provider: this.parts.provider,
        tools: this.parts.tools,
        approver: this.parts.approver,
        sink,
        limits: this.parts.limits,
        state: this.state,
        fitMessages,
        refitMessages,
        onCallFailed,
        ...(sentImages.length > 0 ? { userImages: sentImages } : {}),
        ...(hooks ? { hooks } : {}),
        ...(stopping ? { stopping } : {}),
        ...(this.parts.loopGuard === undefined ? {} : { loopGuard: this.parts.loopGuard }),
        ...(this.parts.parseArguments ? { parseArguments: this.parts.parseArguments } : {}),
      }, signal);
      if (summary) sumUsage(outcome.usage, summary);
      this.#lastStop = outcome.stopReason;
      return outcome;
    } finally {
      // The turn's file changes are recorded even when it was interrupted.
      const checkpoint = await checkpoints?.end();
      for (const message of checkpoints?.takeWarnings() ?? []) sink({ type: "warning", message });
      if (checkpoint) sink({ type: "checkpoint", checkpoint });
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
    // The turn's newest results are never shortened: room for them is made here, or never.
    const turnFits = !compactForTurn(this.#window, { messages: this.messages, tools, extra });
    if (planned.tokens + extra <= threshold && turnFits) {
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
      message: planned.tokens + extra > threshold
        ? `The conversation fills over ${this.parts.compactAt ?? 85}% of the ` +
          `${this.#window.tokens}-token window even with old tool output shortened: compacting ` +
          `it first (config "compact_at")`
        : `The conversation leaves too little of the ${this.#window.tokens}-token window for ` +
          `this turn's tool results even with old tool output shortened: compacting it first`,
    });
    // compact() records its own event: the display alone is told.
    const compacted = await this.compact(display, signal);
    if (compacted.error) sink({ type: "warning", message: compacted.error });
    this.#turnStart = undefined;
    return compacted.usage;
  }

  /** The call hooks with the checkpoint first: a call that may change files waits for it. */
  #callHooks(sink: LoopEventSink): CallHooks | undefined {
    const { callHooks, checkpoints } = this.parts;
    if (!callHooks && !checkpoints) return undefined;
    return {
      screens: (tool) => callHooks?.screens(tool) ?? false,
      beforeCall: (call, signal) =>
        callHooks ? callHooks.beforeCall(call, signal) : Promise.resolve({ notices: [] }),
      async beforeRun(call) {
        if (checkpoints && mayChangeFiles(call.info)) {
          await checkpoints.beforeChange();
          checkpoints.changed();
          for (const message of checkpoints.takeWarnings()) sink({ type: "warning", message });
        }
        await callHooks?.beforeRun(call);
      },
      afterCall: (call, result, signal) =>
        callHooks ? callHooks.afterCall(call, result, signal) : Promise.resolve({ notices: [] }),
    };
  }

  /** A message the hooks stopped: nothing is sent, and the turn ends with the reason. */
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
    this.parts.checkpoints?.detachMessages();
  }
}
