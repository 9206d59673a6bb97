// What the context window holds: the window and where it came from, the tokens the system
// prompt, the tool schemas, the history and the last tool results take in the next request,
// and what the server processed or reused from its cache (last turn and session). The REPL's
// /context prints it. Counts use the model's calibrated TokenCounter (four characters per
// token until the server has said otherwise).

import type { Message, ToolSchema, Usage } from "../messages.ts";
import { type CalibrationSource, TokenCounter } from "../providers/token_counter.ts";

/** The context window in use. */
export interface ContextWindowInfo {
  tokens: number;
  /** Where the number came from ("llama-server /props n_ctx", "--context-length", ...). */
  source: string;
}

/** Estimated tokens of each part of the next request. */
export interface ContextReport {
  window: ContextWindowInfo;
  system: number;
  tools: number;
  toolCount: number;
  /** Everything after the system prompt but the last tool results. */
  history: number;
  /** Tool results since the last user message. */
  lastResults: number;
  /** Room kept for the answer. */
  answerRoom: number;
  /** Shortening starts when a request passes this many tokens (config "compact_at"). */
  threshold?: number;
  /** The prompt tokens the server counted for the last request, when it said. */
  lastPromptTokens?: number;
  /** The characters per token in use and where the ratio came from. */
  calibration?: { charsPerToken: number; source: CalibrationSource };
  /** What the server processed and reused over the last user turn (side requests included). */
  lastTurn?: UsageTotals;
  /** The same over the whole conversation in this process. */
  session?: UsageTotals;
}

/** Prompt tokens over several requests: the whole prompts, and the part taken from the cache. */
export interface UsageTotals {
  requests: number;
  prompt: number;
  reused: number;
  completion: number;
  /** Whether the server said how much it reused (else `reused` is 0 for want of data). */
  reuseReported: boolean;
}

/**
 * No requests yet.
 *
 * @example
 * ```ts
 * import { addUsage, emptyTotals } from "./context_report.ts";
 * const totals = addUsage(emptyTotals(), { promptTokens: 100, completionTokens: 5, reusedTokens: 90 });
 * if (totals.prompt !== 100 || totals.reused !== 90 || !totals.reuseReported) throw new Error();
 * ```
 */
export function emptyTotals(): UsageTotals {
  return { requests: 0, prompt: 0, reused: 0, completion: 0, reuseReported: false };
}

/** Adds one request's usage to totals (returns the same object). */
export function addUsage(totals: UsageTotals, usage: Usage): UsageTotals {
  totals.requests++;
  totals.prompt += usage.promptTokens;
  totals.completion += usage.completionTokens;
  if (usage.reusedTokens !== undefined) {
    totals.reused += usage.reusedTokens;
    totals.reuseReported = true;
  }
  return totals;
}

/**
 * The tokens the tool schemas take on the wire (name, description and JSON Schema each).
 *
 * @example
 * ```ts
 * import { schemaTokens } from "./context_report.ts";
 * if (schemaTokens([]) !== 1) throw new Error(String(schemaTokens([])));
 * ```
 */
export function schemaTokens(
  tools: readonly ToolSchema[],
  counter: TokenCounter = DEFAULT_COUNTER,
): number {
  return counter.schemas(tools);
}

const DEFAULT_COUNTER = new TokenCounter();

/**
 * The room kept for the answer: a quarter of the window, at most 4,096 tokens.
 *
 * @example
 * ```ts
 * import { answerRoom } from "./context_report.ts";
 * if (answerRoom(8192) !== 2048 || answerRoom(65536) !== 4096) throw new Error();
 * ```
 */
export function answerRoom(window: number): number {
  return Math.min(4096, Math.floor(window / 4));
}

/**
 * Measures the next request against the window.
 *
 * @param messages The conversation as the next request sends it.
 * @param tools The tools offered with each request.
 * @param window The window and its source.
 * @param counter The model's token count (default four characters per token).
 * @returns The estimate of each part.
 *
 * @example
 * ```ts
 * import { measureContext } from "./context_report.ts";
 * const report = measureContext(
 *   [{ kind: "system", content: "x".repeat(400) }, { kind: "user", content: "hi" }],
 *   [],
 *   { tokens: 8192, source: "--context-length" },
 * );
 * if (report.system !== 104 || report.history !== 5) throw new Error(JSON.stringify(report));
 * ```
 */
export function measureContext(
  messages: readonly Message[],
  tools: readonly ToolSchema[],
  window: ContextWindowInfo,
  counter: TokenCounter = DEFAULT_COUNTER,
): ContextReport {
  let lastUser = -1;
  messages.forEach((message, index) => {
    if (message.kind === "user") lastUser = index;
  });
  const system = messages.filter((m) => m.kind === "system");
  const lastResults = messages.filter((m, i) => i > lastUser && m.kind === "tool_result");
  const history = messages.filter((m) => m.kind !== "system" && !lastResults.includes(m));
  return {
    window,
    system: counter.messages(system),
    tools: tools.length === 0 ? 0 : counter.schemas(tools),
    toolCount: tools.length,
    history: counter.messages(history),
    lastResults: counter.messages(lastResults),
    answerRoom: answerRoom(window.tokens),
  };
}

/** The estimated tokens of the next request (everything but the answer room). */
export function requestTokens(report: ContextReport): number {
  return report.system + report.tools + report.history + report.lastResults;
}

/**
 * Formats the report for /context.
 *
 * @example
 * ```ts
 * import { formatContextReport } from "./context_report.ts";
 * const text = formatContextReport({
 *   window: { tokens: 8192, source: "--context-length" },
 *   system: 500, tools: 2500, toolCount: 17, history: 1000, lastResults: 200, answerRoom: 2048,
 *   lastTurn: { requests: 2, prompt: 8000, reused: 6000, completion: 90, reuseReported: true },
 * });
 * if (!text.includes("4,200 of 8,192") || !text.includes("2,000 processed, 6,000 reused")) {
 *   throw new Error(text);
 * }
 * ```
 */
export function formatContextReport(report: ContextReport): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const used = requestTokens(report);
  const limit = Math.min(report.window.tokens - report.answerRoom, report.threshold ?? Infinity);
  const percent = Math.round((used / report.window.tokens) * 100);
  const row = (label: string, tokens: number, extra = "") =>
    `  ${label.padEnd(18)} ${n(tokens).padStart(8)} tokens${extra}`;
  const lines = [
    `Context window: ${n(report.window.tokens)} tokens (${report.window.source})`,
    row("system prompt", report.system),
    row("tool schemas", report.tools, ` (${report.toolCount} tools)`),
    row("history", report.history),
    row("last tool results", report.lastResults),
    row("answer room", report.answerRoom),
    `Next request: about ${n(used)} of ${n(report.window.tokens)} tokens (${percent}%); ` +
    (used <= limit
      ? `${n(limit - used)} left before old tool results are shortened`
      : `over by ${n(used - limit)}: old tool results will be shortened, or type /compact`),
  ];
  const calibration = report.calibration;
  if (calibration) {
    const from = calibration.source === "default"
      ? "the default until the server reports usage"
      : calibration.source === "usage"
      ? "learned from the server's prompt token counts"
      : calibration.source === "refusal"
      ? "learned from the server's count in a refusal"
      : "learned from the server's /tokenize";
    lines.push(`Counting ${calibration.charsPerToken} characters per token (${from})`);
  }
  const totals = (label: string, t: UsageTotals | undefined) => {
    if (!t || t.requests === 0) return;
    const requests = `${t.requests} request${t.requests === 1 ? "" : "s"}`;
    if (!t.reuseReported) {
      lines.push(
        `${label}: ${n(t.prompt)} prompt tokens (${requests}; the server did not ` +
          "say how many it reused from its cache)",
      );
      return;
    }
    const share = t.prompt > 0 ? Math.round((t.reused / t.prompt) * 100) : 0;
    lines.push(
      `${label}: ${n(t.prompt - t.reused)} processed, ${n(t.reused)} reused from the ` +
        `server's cache (${share}%, ${requests})`,
    );
  };
  totals("Last turn", report.lastTurn);
  totals("Session", report.session);
  if (report.lastPromptTokens !== undefined) {
    lines.push(`The server counted ${n(report.lastPromptTokens)} prompt tokens last time`);
  }
  return lines.join("\n");
}
