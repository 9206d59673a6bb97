// Making room in the window, rarely and in one large step. While a request stays under the
// compaction threshold nothing changes, so every request repeats the previous one byte for
// byte and the server reuses its cache. Past the threshold, every tool result of earlier user
// turns becomes a one-line stand-in at once (then, if needed, this turn's older ones down to
// half the threshold); a newest result that alone overflows keeps its head and tail. Pure.

import {
  type Message,
  type ToolResult,
  type ToolResultMessage,
  toolResultMessage,
} from "../messages.ts";
import { TokenCounter } from "../providers/token_counter.ts";
import { answerRoom } from "./context_report.ts";

/** Options of {@linkcode fit}. */
export interface FitOptions {
  /** Shortening starts when the request passes this many tokens (default: the limit). */
  threshold?: number;
  /** Room kept for the answer (default min(4096, a quarter of the window)). */
  reserveTokens?: number;
  /** Tokens sent besides the messages (tool schemas). */
  fixedTokens?: number;
  /** The model's calibrated count (default: four characters per token). */
  counter?: TokenCounter;
}

/** The result of {@linkcode fit}. */
export interface FitResult {
  messages: Message[];
  /** What was shortened, for the terminal; absent when nothing changed. */
  note?: string;
  /** True when the messages still do not fit after shortening every tool result. */
  overflow: boolean;
  /** The estimated tokens of the request (messages and fixed tokens). */
  tokens: number;
}

/** How the stand-in of a shortened result starts. */
export const SHORTENED_MARK = "[Shortened to save context:";
/** Characters each newest result keeps at least when cut to fit (head and tail). */
const MIN_CUT_CHARS = 2000;
/** A step inside the current user turn shortens down to this share of the threshold. */
const LOW_SHARE = 0.5;

function describeCall(messages: readonly Message[], callId: string): string | undefined {
  for (const m of messages) {
    if (m.kind === "tool_call" && m.data.id === callId) return m.content;
  }
  return undefined;
}

/** The one-line stand-in for a shortened result, saying where the full output is. */
function standIn(message: ToolResultMessage, messages: readonly Message[]): ToolResult {
  const result = message.data.result;
  const data = result.data ?? "";
  const firstLine = data.split("\n", 1)[0]!.slice(0, 80);
  const lines = data.split("\n").length;
  const path = result.metadata.truncated?.full_output_path;
  const call = describeCall(messages, message.data.callId);
  const where = path !== undefined
    ? `The full output is in "${path}"`
    : call !== undefined
    ? `Call ${call} again to see it`
    : `Call "${message.data.name}" again to see it`;
  return {
    ...result,
    data: `${SHORTENED_MARK} ${lines} lines, ${data.length} chars, starting "${firstLine}"]. ` +
      where,
  };
}

/** Where the rest of a cut result can be read, for the model. */
function restHint(message: ToolResultMessage, messages: readonly Message[]): string {
  const path = message.data.result.metadata.truncated?.full_output_path;
  if (path !== undefined) {
    return `the full output is in "${path}": read_file it with offset and limit for the rest`;
  }
  const call = describeCall(messages, message.data.callId);
  return `call ${call ?? `"${message.data.name}"`} again with narrower arguments for the rest`;
}

/** Keeps the head and tail of a result's data within `room` characters, with a marker. */
function cutToFit(
  message: ToolResultMessage,
  messages: readonly Message[],
  room: number,
  window: number,
): ToolResultMessage {
  const result = message.data.result;
  const data = result.data ?? "";
  const marker = (cut: number) =>
    `\n\n[... ${cut} characters cut to fit the ${window}-token context; ` +
    `${restHint(message, messages)} ...]\n\n`;
  const keep = Math.max(0, room - marker(data.length).length);
  if (keep >= data.length) return message;
  const head = Math.ceil(keep * 0.6);
  const tailStart = data.length - (keep - head);
  const cut = tailStart - head;
  return toolResultMessage(message.data.callId, message.data.name, {
    ...result,
    data: `${data.slice(0, head)}${marker(cut)}${data.slice(tailStart)}`,
  });
}

/** Where the latest model turn's tool calls and results begin (the end when there are none). */
function latestTurnStart(messages: readonly Message[]): number {
  let latest = messages.length;
  while (
    latest > 0 &&
    (messages[latest - 1]!.kind === "tool_result" || messages[latest - 1]!.kind === "tool_call")
  ) {
    latest--;
  }
  return latest;
}

interface Work {
  out: Message[];
  total: number;
  saved: number;
  shortened: number;
  counter: TokenCounter;
}

/** Replaces the result at `i` by its stand-in; false when that would not save anything. */
function shorten(work: Work, i: number, original: readonly Message[]): boolean {
  const message = work.out[i]!;
  if (message.kind !== "tool_result") return false;
  if ((message.data.result.data ?? "").startsWith(SHORTENED_MARK)) return false;
  const replacement = toolResultMessage(
    message.data.callId,
    message.data.name,
    standIn(message, original),
  );
  const gain = work.counter.text(message.content) - work.counter.text(replacement.content);
  if (gain <= 0) return false;
  work.out[i] = replacement;
  work.total -= gain;
  work.saved += gain;
  work.shortened++;
  return true;
}

/**
 * Cuts the newest results (the latest model turn's) to head and tail, sharing the room left
 * by their sizes; estimates are rough (JSON escaping, markers), so it tightens and retries.
 */
function cutNewest(
  work: Work,
  from: number,
  limit: number,
  context: { original: readonly Message[]; window: number },
): number {
  const { counter } = work;
  const newest = work.out.flatMap((m, i) =>
    i >= from && m.kind === "tool_result" ? [{ m, i }] : []
  );
  const dataChars = newest.reduce((sum, { m }) => sum + (m.data.result.data ?? "").length, 0);
  let room = dataChars - (work.total - limit) * counter.charsPerToken;
  for (let attempt = 0; attempt < 4 && work.total > limit && dataChars > 0; attempt++) {
    const trial = [...work.out];
    let trialTotal = work.total;
    let trialSaved = 0;
    let trialCuts = 0;
    for (const { m, i } of newest) {
      const length = (m.data.result.data ?? "").length;
      const share = Math.max(MIN_CUT_CHARS, Math.floor((Math.max(0, room) * length) / dataChars));
      const cut = cutToFit(m, context.original, share, context.window);
      const gain = counter.text(m.content) - counter.text(cut.content);
      if (cut === m || gain <= 0) continue;
      trial[i] = cut;
      trialTotal -= gain;
      trialSaved += gain;
      trialCuts++;
    }
    if (trialCuts === 0) break;
    const stillOver = trialTotal - limit;
    if (stillOver <= 0 || attempt === 3) {
      work.out.splice(0, work.out.length, ...trial);
      work.total = trialTotal;
      work.saved += trialSaved;
      return trialCuts;
    }
    room -= stillOver * counter.charsPerToken + 200;
  }
  return 0;
}

/**
 * Makes a request fit the window. Under the threshold the messages are returned as they are.
 * Over it, in one step: every tool result before the last user message becomes a one-line
 * stand-in saying how to see it again, then this user turn's results older than the latest
 * model turn, oldest first, until the request is at half the threshold. The latest model
 * turn's results are never replaced (the model has not read them); when they alone overflow
 * the limit (window minus the answer room), each keeps its head and tail (at least 2,000
 * characters) with a marker saying how to read the rest. Messages are never removed, so every
 * tool call keeps its result.
 *
 * @param messages The conversation as it would be sent.
 * @param window The context window in tokens.
 * @param options Threshold, answer room, tokens besides the messages and the token counter.
 * @returns The messages to send, a note for the terminal, whether they still overflow, and
 *   their estimated size.
 *
 * @example
 * ```ts
 * import { fit } from "./fit_request.ts";
 * import { makeToolResult, toolResultMessage } from "../messages.ts";
 * const old = toolResultMessage("c1", "read_file", makeToolResult({ data: "x".repeat(40000) }));
 * const result = fit([old, { kind: "user", content: "hi" }], 4096);
 * if (result.overflow || result.note === undefined) throw new Error();
 * ```
 */
export function fit(
  messages: readonly Message[],
  window: number,
  options: FitOptions = {},
): FitResult {
  const counter = options.counter ?? new TokenCounter();
  const reserve = options.reserveTokens ?? answerRoom(window);
  const fixed = options.fixedTokens ?? 0;
  const limit = window - reserve - fixed;
  const threshold = Math.min(limit, (options.threshold ?? Infinity) - fixed);
  const work: Work = {
    out: [...messages],
    total: counter.messages(messages),
    saved: 0,
    shortened: 0,
    counter,
  };
  if (work.total <= threshold) {
    return { messages: work.out, overflow: false, tokens: work.total + fixed };
  }
  const latest = latestTurnStart(messages);
  const lastUser = messages.findLastIndex((m) => m.kind === "user");
  // Earlier user turns: all at once, so the next steps are far apart.
  for (let i = 0; i < Math.min(lastUser, latest); i++) shorten(work, i, messages);
  // This user turn: oldest first, down to well below the threshold.
  const low = threshold * LOW_SHARE;
  for (let i = Math.max(0, lastUser + 1); i < latest && work.total > low; i++) {
    shorten(work, i, messages);
  }
  const cutCount = work.total > limit
    ? cutNewest(work, latest, limit, { original: messages, window })
    : 0;
  const overflow = work.total > limit;
  const parts: string[] = [];
  if (work.shortened > 0 || cutCount > 0) {
    const { shortened } = work;
    const what = [
      shortened > 0 ? `shortened ${shortened} old tool result${shortened === 1 ? "" : "s"}` : "",
      cutCount > 0 ? `cut ${cutCount} new one${cutCount === 1 ? "" : "s"} to head and tail` : "",
    ].filter(Boolean).join(" and ");
    parts.push(
      `${what[0]!.toUpperCase()}${what.slice(1)} (about ${work.saved} tokens) to fit the ` +
        `${window}-token context`,
    );
  }
  if (overflow) {
    parts.push(
      `The request (about ${work.total + fixed} tokens, plus ${reserve} kept for the answer) ` +
        `still does not fit the ${window}-token context: type /compact, start a new session, ` +
        `or raise the server's context size`,
    );
  }
  return {
    messages: work.out,
    overflow,
    tokens: work.total + fixed,
    ...(parts.length ? { note: parts.join(". ") } : {}),
  };
}
