// The conversation's own turn stages (turn_stage.ts): making room before a message
// (shortening old tool output, else compacting), fitting each request to the window and
// again after the server refused one, the loop guard that answers a repeated call without
// running it, and the stop after the same call failed the same way too often; and compacting
// itself (for the room stage and /compact).

import { type Message, sumUsage, type ToolSchema, type Usage } from "../messages.ts";
import type { Provider } from "../providers/provider.ts";
import { MESSAGE_OVERHEAD } from "../providers/token_counter.ts";
import type { LoopEvent, LoopEventSink } from "./loop_events.ts";
import { ContextBudget } from "./context_budget.ts";
import type { FitResult } from "./fit_request.ts";
import { PromptWindow } from "./prompt_window.ts";
import type { SessionRecorder } from "./session_recorder.ts";
import type { ConversationPrefix, ConversationWindow } from "./conversation_parts.ts";
import { DEFAULT_LOOP_GUARD, LoopGuard } from "./loop_guard.ts";
import { compactedMessages, compactForTurn, requestSummary } from "./compaction.ts";
import { formatAgentError } from "../errors.ts";
import { RepeatedFailureTracker } from "./repair_arguments.ts";
import type { OutgoingMessage, TurnContext, TurnStage } from "./turn_stage.ts";

/** The conversation as its own stages see it. */
export interface KernelHost {
  messages(): Message[];
  window(): PromptWindow;
  budget(): ContextBudget | undefined;
  /** The tools' schemas as the next request sends them. */
  schemas(): readonly ToolSchema[];
  provider(): Provider;
  /** `compact_at`, for the message that says why the conversation is compacted. */
  compactAt?: number;
  /** Compacts the conversation; records its own event and tells `display` only. */
  compact(display: LoopEventSink, signal: AbortSignal): Promise<{ error?: string; usage?: Usage }>;
  /** The request's size when the last user message was sent, to see how much a turn adds. */
  turnStart?: number | undefined;
}

/**
 * Making room before a user message: when shortening old tool output (which the next request
 * does on its own) would not bring the conversation under the threshold, it is compacted
 * first, since a summary loses more than output the model can read again. When this turn will
 * likely cross the threshold (the last one grew as much), the step is taken now, so what it
 * makes the server process again does not include this turn's results.
 *
 * @param host The conversation.
 * @param display Where the compaction is shown (it records its own event).
 */
export function roomStage(host: KernelHost, display: LoopEventSink): TurnStage {
  return {
    name: "room",
    async prepare(message, turn) {
      const window = host.window();
      const threshold = window.threshold();
      if (threshold === undefined || message.text === null) return undefined;
      if (host.messages().filter((m) => m.kind !== "system").length < 2) return undefined;
      const extra = window.counter.text(message.text) + MESSAGE_OVERHEAD;
      const tools = host.schemas();
      const now = window.counter.request(window.view(host.messages()), tools) + extra;
      const planned = window.plan(host.messages(), tools, threshold - extra);
      // The turn's newest results are never shortened: room for them is made here, or never.
      const turnFits = !compactForTurn(window, { messages: host.messages(), tools, extra });
      if (planned.tokens + extra <= threshold && turnFits) {
        host.turnStart = shortenEarly(host, { now, extra, threshold }, turn.sink);
        return undefined;
      }
      turn.sink({ type: "warning", message: compactingNote(host, planned.tokens + extra) });
      const compacted = await host.compact(display, turn.signal);
      if (compacted.error) turn.sink({ type: "warning", message: compacted.error });
      host.turnStart = undefined;
      if (compacted.usage) addUsage(message, compacted.usage);
      return undefined;
    },
  };
}

/** Why the conversation is compacted before the message. */
function compactingNote(host: KernelHost, tokens: number): string {
  const window = host.window();
  return tokens > (window.threshold() ?? 0)
    ? `The conversation fills over ${host.compactAt ?? 85}% of the ` +
      `${window.tokens}-token window even with old tool output shortened: compacting ` +
      `it first (config "compact_at")`
    : `The conversation leaves too little of the ${window.tokens}-token window for ` +
      `this turn's tool results even with old tool output shortened: compacting it first`;
}

/** Shortens old output now when this turn will likely cross the threshold; the turn's start. */
function shortenEarly(
  host: KernelHost,
  size: { now: number; extra: number; threshold: number },
  sink: LoopEventSink,
): number {
  const { now, extra, threshold } = size;
  const growth = host.turnStart === undefined ? 0 : Math.max(0, now - host.turnStart);
  if (now > threshold || now + growth <= threshold) return now;
  const step = host.window().plan(host.messages(), host.schemas(), 0);
  host.window().commit(host.messages(), step);
  if (step.note) sink({ type: "warning", message: step.note });
  return step.tokens + extra;
}

function addUsage(message: OutgoingMessage, usage: Usage): void {
  if (message.usage) sumUsage(message.usage, usage);
  else message.usage = usage;
}

/** The window's stage of one turn, and what it tells the turn's usage events. */
export interface WindowStage extends TurnStage {
  /** Warnings for a usage event (the budget's), and the window learns from it. */
  observe(event: Extract<LoopEvent, { type: "usage" }>): string[];
}

/**
 * Fitting each request to the window (shortening old output, checking the count with the
 * server near the limit), and again harder after the server refused one as too long.
 *
 * @param host The conversation.
 */
export function windowStage(host: KernelHost): WindowStage {
  const window = host.window();
  let sentEstimate = 0;
  const sending = (fitted: FitResult) => {
    window.sending(fitted.messages, host.schemas());
    sentEstimate = fitted.tokens;
    return fitted.messages;
  };
  return {
    name: "window",
    async fit(messages, turn: TurnContext) {
      if (!window.tokens) return messages;
      const tools = host.schemas();
      const fitted = window.fitted(messages, tools);
      if (fitted.note) turn.sink({ type: "warning", message: fitted.note });
      const checked = await window.checkCount(messages, fitted, {
        provider: host.provider(),
        tools,
        signal: turn.signal,
      });
      if (checked !== fitted && checked.note) turn.sink({ type: "warning", message: checked.note });
      return sending(checked);
    },
    refit(messages, numbers) {
      const refit = window.refused(messages, host.schemas(), numbers);
      return refit ? { messages: sending(refit.fitted), note: refit.note } : undefined;
    },
    observe(event) {
      window.observe(event.usage, event.side ? { side: true } : {});
      const budget = host.budget();
      if (event.side || !budget) return [];
      return budget.observe(event.usage, sentEstimate).map((warning) => warning.message);
    },
  };
}

/**
 * The loop guard of one user message: the identical call with the same result is answered
 * without running from the `limit`th time on (loop_guard.ts).
 *
 * @param limit The call answered (default 3; 0 or 1: off).
 */
export function guardStage(limit = DEFAULT_LOOP_GUARD): TurnStage {
  const guard = new LoopGuard(limit);
  return {
    name: "loop_guard",
    repeat: (call) => guard.check(call),
    ran: (call, result, mayChange) => guard.record(call, result, { mayChange }),
  };
}

/**
 * Stops the turn when the model called a tool with the same failing arguments `limit` times.
 *
 * @param limit Identical failures allowed (default 3).
 */
export function failureStage(limit = 3): TurnStage {
  const failures = new RepeatedFailureTracker(limit);
  return {
    name: "repeated_failures",
    failed(call, result) {
      const key = `${result.error_type}: ${result.error_message}`;
      if (!failures.record(call.name, call.arguments, key)) return undefined;
      return {
        user: `Stopped: the model called "${call.name}" ${limit} times with the same ` +
          `failing arguments (${result.error_type}); rephrase your request or type /continue`,
        model: failures.stopMessage(call.name),
      };
    },
  };
}

/** How compacting reaches the conversation: its events, and its messages replaced. */
export interface Compaction {
  signal: AbortSignal;
  /** What the user asked the summary to keep in full (`/compact FOCUS`). */
  focus?: string;
  /** Records an event and shows it. */
  record(event: LoopEvent): void;
  /** Puts the summary's messages in place of the conversation's. */
  replace(messages: Message[]): void;
}

/**
 * Replaces the conversation by the model's summary of it (compaction.ts asks for it, repeating
 * the conversation as last sent so the server reuses its cache).
 *
 * @param host The conversation.
 * @param compaction The signal, the focus, and how events and the new messages reach it.
 * @returns The summary request's usage, and an error line when the conversation is unchanged.
 */
export async function compactConversation(
  host: KernelHost,
  compaction: Compaction,
): Promise<{ error?: string; usage?: Usage }> {
  const { signal, focus } = compaction;
  if (host.messages().filter((m) => m.kind !== "system").length < 2) {
    return { error: "Nothing to compact yet" };
  }
  const tools = host.schemas();
  const window = host.window();
  const before = window.counter.request(window.view(host.messages()), tools);
  const turn = await requestSummary(host.messages(), {
    provider: host.provider(),
    tools,
    window,
    signal,
    ...(focus ? { focus } : {}),
  });
  if (turn.usage) compaction.record({ type: "usage", usage: turn.usage, side: "summary" });
  const usage = turn.usage ? { usage: turn.usage } : {};
  if (turn.stopReason === "aborted" || signal.aborted) {
    return { error: "Compaction interrupted: the conversation is unchanged", ...usage };
  }
  if (turn.stopReason === "error" || turn.text.trim() === "") {
    const why = turn.error ? formatAgentError(turn.error) : "the model answered without a summary";
    return { error: `Could not compact the conversation: ${why}`, ...usage };
  }
  const summary = turn.text.trim();
  compaction.replace(compactedMessages(host.messages(), summary));
  const tokensAfter = window.counter.request(host.messages(), tools);
  compaction.record({ type: "compacted", summary, tokensBefore: before, tokensAfter });
  return usage;
}

/**
 * The user's message as the turn's stages get it, placed in the conversation as it is then.
 *
 * @param messages The conversation's messages (read when a stage asks where the message goes).
 * @param message Its text (null to continue), images, the notes for the model (this array is
 *   emptied once they are sent) and why the conversation starts, if its hooks have not run.
 */
export function outgoingMessage(
  messages: () => readonly Message[],
  message: Omit<OutgoingMessage, "position" | "usage">,
): OutgoingMessage {
  const { text } = message;
  return {
    ...message,
    position() {
      // A continued turn belongs to the last user message.
      const at = text !== null
        ? messages().length
        : messages().findLastIndex((m) => m.kind === "user");
      return { at, said: text ?? (at >= 0 ? messages()[at]!.content : "") };
    },
  };
}

/**
 * Runs the stages before a message is sent (prepare, the conversation's start, send), then adds
 * the notes to its text.
 *
 * @param message The message; its text, images and notes change as the stages say.
 * @param stages The turn's stages, in order.
 * @param turn The turn's events and signal, and the conversation's start, if it is pending.
 * @returns Why the message is not sent, if a stage refused it.
 */
export async function readyMessage(
  message: OutgoingMessage,
  stages: readonly TurnStage[],
  turn: TurnContext & { start(): Promise<void> },
): Promise<string | undefined> {
  for (const stage of stages) {
    const verdict = await stage.prepare?.(message, turn);
    if (verdict) return verdict.refused;
  }
  await turn.start();
  for (const stage of stages) {
    const verdict = await stage.send?.(message, turn);
    if (verdict) return verdict.refused;
  }
  if (message.text !== null && message.notes.length > 0) {
    message.text = `${message.text}\n\n${message.notes.join("\n\n")}`;
    message.notes.length = 0;
  }
  return undefined;
}

/**
 * The prompt window and budget of a model's window (its count, its size, where to compact).
 *
 * @param window The window as the conversation knows it.
 */
export function openWindow(
  window: ConversationWindow,
): { window: PromptWindow; budget: ContextBudget | undefined } {
  const { contextLength, contextRaise, compactAt, tokenCounter } = window;
  return {
    budget: contextLength
      ? new ContextBudget(contextLength, { ...(contextRaise ? { raise: contextRaise } : {}) })
      : undefined,
    window: new PromptWindow(contextLength, {
      ...(compactAt !== undefined ? { compactAt } : {}),
      ...(tokenCounter ? { counter: tokenCounter } : {}),
    }),
  };
}

/**
 * A turn's event sink: each event is recorded first (on disk before the next step), then
 * shown; a state change is kept, and usage teaches the window and the budget (whose warnings
 * go the same way).
 *
 * @param recorder The session log.
 * @param display What the front end shows.
 * @param turn The turn's window stage and where the new state goes.
 */
export function turnSink(
  recorder: SessionRecorder,
  display: LoopEventSink,
  turn: { window: WindowStage; state(state: Record<string, unknown>): void },
): LoopEventSink {
  const sink: LoopEventSink = (event) => {
    recorder.record(event);
    if (event.type === "state_changed") turn.state(event.state);
    display(event);
    if (event.type !== "usage") return;
    for (const message of turn.window.observe(event)) sink({ type: "warning", message });
  };
  return sink;
}

/**
 * What the next request would send and how much room is left, or undefined when the window
 * is unknown.
 *
 * @param host The conversation.
 */
export function nextRequest(host: KernelHost): ConversationPrefix | undefined {
  const window = host.window();
  const limit = window.limit();
  if (limit === undefined) return undefined;
  const tools = host.schemas();
  const messages = window.view(host.messages());
  const counter = window.counter;
  return {
    messages,
    tools,
    room: limit - counter.request(messages, tools),
    tokens: (text) => counter.text(text),
  };
}
