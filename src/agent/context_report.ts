// What the context window holds: the window and where it came from, and the tokens the system
// prompt, the tool schemas, the history and the last tool results take in the next request.
// The REPL's /context prints it; the conversation uses the same numbers to decide when to
// compact. Estimates use context_budget.ts's rule (about four characters per token).

import { estimateTokens } from "./context_budget.ts";
import type { Message, ToolSchema } from "../messages.ts";

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
  /** The prompt tokens the server counted for the last request, when it said. */
  lastPromptTokens?: number;
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
export function schemaTokens(tools: readonly ToolSchema[]): number {
  return estimateTokens(JSON.stringify(
    tools.map(({ name, description, parameters }) => ({
      type: "function",
      function: { name, description, parameters },
    })),
  ));
}

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
 * @param messages The conversation.
 * @param tools The tools offered with each request.
 * @param window The window and its source.
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
    system: estimateTokens(system),
    tools: tools.length === 0 ? 0 : schemaTokens(tools),
    toolCount: tools.length,
    history: estimateTokens(history),
    lastResults: estimateTokens(lastResults),
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
 * });
 * if (!text.includes("4,200 of 8,192")) throw new Error(text);
 * ```
 */
export function formatContextReport(report: ContextReport): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const used = requestTokens(report);
  const limit = report.window.tokens - report.answerRoom;
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
  if (report.lastPromptTokens !== undefined) {
    lines.push(`The server counted ${n(report.lastPromptTokens)} prompt tokens last time`);
  }
  return lines.join("\n");
}
