// One conversation: the canonical message list, the tool state (tasks) and the parts a
// turn needs. The REPL and the -p runner call `send`; every loop event goes to the session
// recorder first (so it is on disk before the next step) and then to the display. A turn
// runs the conversation's own stages (turn_kernel.ts: room, window, loop guard, repeated
// failures) and the features' (turn_stage.ts), and each call the path of call_driver.ts.
// What each request sends comes from the prompt window (prompt_window.ts): append-only
// between steps.

import { runAgentLoop } from "./agent_loop.ts";
import { type TurnOutcome, unsentTurn } from "./loop_turn.ts";
import { type CallPath, callPath } from "./call_driver.ts";
import type { LoopEventSink } from "./loop_events.ts";
import type { ImagePart, Message, ToolSchema, Usage } from "../messages.ts";
import { sumUsage } from "../messages.ts";
import type { Provider } from "../providers/provider.ts";
import type { ContextBudget } from "./context_budget.ts";
import type { ContextReport } from "./context_report.ts";
import type { PromptWindow } from "./prompt_window.ts";
import type { RestorePlan } from "../checkpoints/turn_checkpoints.ts";
import { offerTools } from "../sandbox/grants/tool_offer.ts";
import { type StartSource, type TurnContext, type TurnStage } from "./turn_stage.ts";
import type {
  ConversationParts,
  ConversationPrefix,
  ConversationTurn,
  ConversationWindow,
} from "./conversation_parts.ts";
import {
  conversationTurns,
  restoreConversation,
  type RestoredFiles,
} from "./conversation_restore.ts";
import {
  compactConversation,
  failureStage,
  guardStage,
  type KernelHost,
  nextRequest,
  openWindow,
  outgoingMessage,
  readyMessage,
  roomStage,
  turnSink,
  windowStage,
} from "./turn_kernel.ts";

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
    const opened = openWindow(this.parts.window);
    this.#budget = opened.budget;
    return opened.window;
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
    return nextRequest(this.#host);
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
    const done = await compactConversation(this.#host, {
      signal,
      ...(focus ? { focus } : {}),
      record: (event) => {
        this.parts.recorder.record(event);
        display(event);
      },
      replace: (messages) => {
        this.messages = messages;
        this.#window.forget();
      },
    });
    if (done.error !== undefined) return done;
    this.parts.stages.checkpoints?.detachMessages();
    await this.#started("compact", { sink: display, signal });
    return done;
  }

  /** Runs the SessionStart steps: their context goes with the next user message. */
  async #started(source: StartSource, turn: TurnContext): Promise<void> {
    for (const stage of this.parts.stages.turn) {
      const context = await stage.started?.(source, turn);
      if (context !== undefined) this.#notes.push(context);
    }
  }

  /** The SessionStart steps still to run, before the conversation's next message. */
  async #start(turn: TurnContext): Promise<void> {
    const source = this.#pendingStart;
    if (source === undefined) return;
    this.#pendingStart = undefined;
    await this.#started(source, turn);
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
    return conversationTurns(this.messages, this.parts.stages.checkpoints);
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
   * @returns The paths restored, removed, kept and left, or why nothing changed.
   */
  restore(
    plan: RestorePlan | undefined,
    options: { overwrite: boolean; rewindTo?: number },
    display: LoopEventSink,
  ): Promise<RestoredFiles | { error: string }> {
    const checkpoints = this.parts.stages.checkpoints;
    const host = {
      messages: this.messages,
      checkpoints,
      recorder: this.parts.recorder,
      running: this.#running,
      rewind: (keep: number) => {
        this.messages = this.messages.slice(0, keep);
        this.#window.forget();
        checkpoints?.forget(keep);
        this.#lastStop = undefined;
      },
      addNote: (text: string) => this.#notes.push(text),
    };
    return restoreConversation(host, plan, { ...options, display });
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
    const sink = turnSink(this.parts.recorder, display, {
      window,
      state: (state) => this.state = state,
    });
    const turn: TurnContext = { sink, signal };
    const stages = this.#turnStages(display, window);
    const message = outgoingMessage(() => this.messages, {
      text: userText,
      images: [...images],
      notes: this.#notes,
    });
    const refused = await readyMessage(message, stages, {
      ...turn,
      start: () => this.#start(turn),
    });
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

  /** A turn's stages: its own (room, window, loop guard, failures), then the features'. */
  #turnStages(display: LoopEventSink, window: TurnStage): TurnStage[] {
    const { limits } = this.parts;
    const own = [guardStage(limits.loopGuard), failureStage(limits.repeatedFailures)];
    return [roomStage(this.#host, display), window, ...own, ...this.parts.stages.turn];
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
