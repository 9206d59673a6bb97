// Context awareness: compares what the model server reports (prompt and completion tokens)
// with what was sent and with the context length, warns once when the server silently cut
// the prompt or the conversation nears the limit, and shortens the oldest tool results when
// the next request would not fit. Pure; the loop or REPL calls it around each model turn.

import {
  type Message,
  type ToolResult,
  type ToolResultMessage,
  toolResultMessage,
  type Usage,
} from "../messages.ts";

/** Rough tokens per character for estimates (about four characters per token). */
const CHARS_PER_TOKEN = 4;
/** Per-message overhead of chat templates, in tokens. */
const MESSAGE_OVERHEAD = 4;

/**
 * Estimates the tokens of a text or a message list (characters / 4, plus a little per
 * message for the chat template).
 *
 * @example
 * ```ts
 * import { estimateTokens } from "./context_budget.ts";
 * if (estimateTokens("abcdefgh") !== 2) throw new Error();
 * ```
 */
export function estimateTokens(input: string | readonly Message[]): number {
  if (typeof input === "string") return Math.ceil(input.length / CHARS_PER_TOKEN);
  return input.reduce((sum, m) => sum + estimateTokens(m.content) + MESSAGE_OVERHEAD, 0);
}

/** A warning for the terminal; each kind is given at most once per budget. */
export interface BudgetWarning {
  kind: "prompt_truncated" | "near_limit";
  message: string;
}

/**
 * Tracks token use against a context length and warns once about silent truncation and
 * about nearing the limit.
 *
 * @example
 * ```ts
 * import { ContextBudget } from "./context_budget.ts";
 * const budget = new ContextBudget(8192);
 * const warnings = budget.observe({ promptTokens: 900, completionTokens: 10 }, 4000);
 * if (warnings[0]?.kind !== "prompt_truncated") throw new Error();
 * ```
 */
export class ContextBudget {
  /** Prompt tokens of the last turn, as the server reported them. */
  promptTokens = 0;
  /** Completion tokens of the last turn. */
  completionTokens = 0;
  #given = new Set<BudgetWarning["kind"]>();

  /**
   * @param contextLength The context length in use (e.g. the num_ctx sent to Ollama).
   * @param options nearFraction: share of the context that counts as near (default 0.8);
   * raise: how the user raises the window, e.g. "--num-ctx" (default: the server's setting).
   */
  constructor(
    readonly contextLength: number,
    readonly options: { nearFraction?: number; raise?: string } = {},
  ) {}

  /** Tokens the conversation holds after the last turn. */
  get usedTokens(): number {
    return this.promptTokens + this.completionTokens;
  }

  /**
   * Records one turn's usage.
   *
   * @param usage What the server reported (nothing to do when undefined).
   * @param sentEstimateTokens The estimated tokens of the request that was sent.
   * @returns New warnings, each kind at most once per budget.
   */
  observe(usage: Usage | undefined, sentEstimateTokens: number): BudgetWarning[] {
    if (!usage) return [];
    this.promptTokens = usage.promptTokens;
    this.completionTokens = usage.completionTokens;
    const warnings: BudgetWarning[] = [];
    const give = (kind: BudgetWarning["kind"], message: string) => {
      if (this.#given.has(kind)) return;
      this.#given.add(kind);
      warnings.push({ kind, message });
    };
    // Only when clearly lower: estimates are rough, and servers cache prompt prefixes.
    if (
      sentEstimateTokens > 1000 && usage.promptTokens > 0 &&
      usage.promptTokens < sentEstimateTokens * 0.5
    ) {
      give(
        "prompt_truncated",
        `The model server read ${usage.promptTokens} prompt tokens but about ` +
          `${sentEstimateTokens} were sent: it probably cut the conversation to fit its ` +
          `context. Raise ${
            this.options.raise ?? "the server's context size"
          } or start a new session`,
      );
    }
    const near = this.options.nearFraction ?? 0.8;
    if (this.usedTokens > this.contextLength * near) {
      const percent = Math.round((this.usedTokens / this.contextLength) * 100);
      give(
        "near_limit",
        `The conversation uses ${this.usedTokens} of ${this.contextLength} context tokens ` +
          `(${percent}%): old tool output will be shortened to make room. Type /compact to ` +
          `continue from a summary, or start a new session`,
      );
    }
    return warnings;
  }
}

/** The result of {@linkcode fit}. */
export interface FitResult {
  messages: Message[];
  /** What was shortened, for the terminal; absent when nothing changed. */
  note?: string;
  /** True when the messages still do not fit after shortening every tool result. */
  overflow: boolean;
}

const SHORTENED_MARK = "[Shortened to save context:";

function describeCall(messages: readonly Message[], callId: string): string | undefined {
  for (const m of messages) {
    if (m.kind === "tool_call" && m.data.id === callId) return m.content;
  }
  return undefined;
}

/** The one-line stand-in for a shortened result, saying where the full output is. */
function summary(message: ToolResultMessage, messages: readonly Message[]): ToolResult {
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

/** Characters each newest result keeps at least when cut to fit (head and tail). */
const MIN_CUT_CHARS = 2000;

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
  contextLength: number,
): ToolResultMessage {
  const result = message.data.result;
  const data = result.data ?? "";
  const marker = (cut: number) =>
    `\n\n[... ${cut} characters cut to fit the ${contextLength}-token context; ` +
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

/**
 * Makes a conversation fit the context. When the next request would overflow, the OLDEST
 * tool results are replaced by a one-line summary saying where the full output is, until it
 * fits. The results of the latest model turn are never replaced, since the model has not
 * read them yet: when they alone do not fit, each keeps its head and tail (at least
 * 2,000 characters) with a marker saying how to read the rest. Messages are never removed,
 * so every tool call keeps its result.
 *
 * @param messages The conversation to send.
 * @param contextLength The context length in tokens.
 * @param options reserveTokens: room kept for the answer (default min(4096, a quarter of the
 *   context)); fixedTokens: tokens sent besides the messages (tool schemas).
 * @returns The messages to send, a note for the terminal, and whether they still overflow.
 *
 * @example
 * ```ts
 * import { fit } from "./context_budget.ts";
 * import { makeToolResult, toolResultMessage } from "../messages.ts";
 * const old = toolResultMessage("c1", "read_file", makeToolResult({ data: "x".repeat(40000) }));
 * const result = fit([{ kind: "user", content: "hi" }, old], 4096);
 * if (result.overflow || result.note === undefined) throw new Error();
 * ```
 */
export function fit(
  messages: readonly Message[],
  contextLength: number,
  options: { reserveTokens?: number; fixedTokens?: number } = {},
): FitResult {
  const reserve = options.reserveTokens ?? Math.min(4096, Math.floor(contextLength / 4));
  const fixed = options.fixedTokens ?? 0;
  const limit = contextLength - reserve - fixed;
  const out = [...messages];
  let total = estimateTokens(out);
  if (total <= limit) return { messages: out, overflow: false };
  // The latest turn's results: the tool calls and results that end the conversation.
  let latest = out.length;
  while (
    latest > 0 && (out[latest - 1]!.kind === "tool_result" || out[latest - 1]!.kind === "tool_call")
  ) {
    latest--;
  }
  let shortened = 0;
  let saved = 0;
  for (let i = 0; i < latest && total > limit; i++) {
    const message = out[i]!;
    if (message.kind !== "tool_result") continue;
    if ((message.data.result.data ?? "").startsWith(SHORTENED_MARK)) continue;
    const replacement = toolResultMessage(
      message.data.callId,
      message.data.name,
      summary(message, messages),
    );
    const gain = estimateTokens(message.content) - estimateTokens(replacement.content);
    if (gain <= 0) continue;
    out[i] = replacement;
    total -= gain;
    saved += gain;
    shortened++;
  }
  let cutCount = 0;
  const newest = out.flatMap((m, i) => i >= latest && m.kind === "tool_result" ? [{ m, i }] : []);
  const dataChars = newest.reduce((sum, { m }) => sum + (m.data.result.data ?? "").length, 0);
  // Share the room left among the newest results by their size; estimates are rough (JSON
  // escaping, markers), so tighten and retry a few times.
  let room = dataChars - (total - limit) * CHARS_PER_TOKEN;
  for (let attempt = 0; attempt < 4 && total > limit && dataChars > 0; attempt++) {
    const trial = [...out];
    let trialTotal = total;
    let trialSaved = 0;
    let trialCuts = 0;
    for (const { m, i } of newest) {
      const length = (m.data.result.data ?? "").length;
      const share = Math.max(MIN_CUT_CHARS, Math.floor((Math.max(0, room) * length) / dataChars));
      const cut = cutToFit(m, messages, share, contextLength);
      const gain = estimateTokens(m.content) - estimateTokens(cut.content);
      if (cut === m || gain <= 0) continue;
      trial[i] = cut;
      trialTotal -= gain;
      trialSaved += gain;
      trialCuts++;
    }
    if (trialCuts === 0) break;
    const stillOver = trialTotal - limit;
    if (stillOver <= 0 || attempt === 3) {
      out.splice(0, out.length, ...trial);
      total = trialTotal;
      saved += trialSaved;
      cutCount = trialCuts;
      break;
    }
    room -= stillOver * CHARS_PER_TOKEN + 200;
  }
  const overflow = total > limit;
  const parts: string[] = [];
  if (shortened > 0 || cutCount > 0) {
    const what = [
      shortened > 0 ? `shortened ${shortened} old tool result${shortened === 1 ? "" : "s"}` : "",
      cutCount > 0 ? `cut ${cutCount} new one${cutCount === 1 ? "" : "s"} to head and tail` : "",
    ].filter(Boolean).join(" and ");
    parts.push(
      `${what[0]!.toUpperCase()}${what.slice(1)} (about ${saved} tokens) to fit the ` +
        `${contextLength}-token context`,
    );
  }
  if (overflow) {
    parts.push(
      `The request (about ${total + fixed} tokens, plus ${reserve} kept for the answer) still ` +
        `does not fit the ${contextLength}-token context: type /compact, start a new session, ` +
        `or raise the server's context size`,
    );
  }
  return { messages: out, overflow, ...(parts.length ? { note: parts.join(". ") } : {}) };
}
