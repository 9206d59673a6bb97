// The terminal report of usage statistics (`harness stats`, `/stats`): tools, approvals and
// models as aligned tables, stops on one line, then the trends as charts (tool calls per day as
// bars, tokens per session as a sparkline). The numbers come from sessions/usage_stats.ts.

import type { ToolStats, UsageStats } from "../sessions/usage_stats_types.ts";
import type { Style } from "./style.ts";
import { barChart, sparkline } from "./text_chart.ts";
import { terminalLine } from "../platform/terminal_text.ts";

/** Days shown in the calls-per-day chart (the most recent with calls). */
const CHART_DAYS = 14;

/**
 * A count as people read it: 950, 12,400, 1.2M.
 *
 * @example
 * ```ts
 * import { compactCount } from "./stats_report.ts";
 * if (compactCount(12400) !== "12,400" || compactCount(1_234_567) !== "1.2M") throw new Error();
 * ```
 */
export function compactCount(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  return Math.round(n).toLocaleString("en-US");
}

/**
 * A duration in milliseconds: "3 ms", "1.5 s", "2.0 min"; "-" when unknown.
 *
 * @example
 * ```ts
 * import { duration } from "./stats_report.ts";
 * if (duration(1500) !== "1.5 s" || duration(null) !== "-" || duration(0.4) !== "0 ms") {
 *   throw new Error();
 * }
 * ```
 */
export function duration(ms: number | null): string {
  if (ms === null) return "-";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/**
 * Columns padded to their widest cell: the first (a name) left-aligned, the numbers between
 * right-aligned, the last left ragged.
 */
function table(header: string[], rawRows: string[][], style: Style): string[] {
  // Cells are recorded data: a tool name a model made up, a model name a server gave.
  const rows = rawRows.map((row) => row.map(terminalLine));
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((row) => row[c]!.length)));
  const line = (row: string[]) =>
    row.map((cell, c) =>
      c === row.length - 1 ? cell : c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)
    ).join("  ").trimEnd();
  return [style.bold(`  ${line(header)}`), ...rows.map((row) => `  ${line(row)}`)];
}

function errorsCell(tool: ToolStats): string {
  const parts = Object.entries(tool.errors).sort(([, a], [, b]) => b - a)
    .map(([type, n]) => `${type} ${n}`);
  return parts.length === 0 ? "-" : parts.join(", ");
}

function percent(rate: number | null): string {
  return rate === null ? "-" : `${Math.round(rate * 100)}%`;
}

/**
 * The usage report as terminal text.
 *
 * @param stats What usage_stats.ts computed.
 * @param style Colours (or none).
 * @returns The report's lines joined, without a trailing newline.
 *
 * @example
 * ```ts
 * import { formatUsageStats } from "./stats_report.ts";
 * import { createStyle } from "./style.ts";
 * const text = formatUsageStats({
 *   sessions: 0, tools: [], models: [], sideRequests: [],
 *   approvals: { approved: 0, denied: 0, changed: 0, medianWaitMs: null, p95WaitMs: null,
 *     ruleAllowed: 0, ruleDenied: 0 },
 *   stops: { loopGuard: 0, repeatedFailures: 0, iterationLimit: 0, toolCallLimit: 0, byReason: {} },
 *   trends: { callsPerDay: [], tokensPerSession: [] },
 * }, createStyle(false));
 * if (!text.includes("No sessions")) throw new Error(text);
 * ```
 */
export function formatUsageStats(stats: UsageStats, style: Style): string {
  const scope = stats.sessionId !== undefined
    ? `Usage of session ${terminalLine(stats.sessionId)}`
    : `Usage ${stats.since === undefined ? "of all sessions" : `since ${stats.since}`} ` +
      `(${stats.sessions} session${stats.sessions === 1 ? "" : "s"})`;
  if (stats.sessions === 0) {
    const none = stats.since === undefined
      ? "No sessions recorded yet"
      : `No sessions since ${stats.since}`;
    return [none, ...damagedLines(stats, style)].join("\n");
  }
  const out = [style.bold(scope), ""];
  out.push(...toolLines(stats, style), "");
  out.push(...approvalLines(stats, style), "");
  out.push(...modelLines(stats, style), "");
  if (stats.sideRequests.length > 0) out.push(sideRequestLine(stats), "");
  out.push(stopLine(stats));
  out.push(...trendLines(stats, style));
  out.push(...damagedLines(stats, style));
  return out.join("\n");
}

/** The sessions whose damaged rows were left out, by name. */
function damagedLines(stats: UsageStats, style: Style): string[] {
  return (stats.damaged ?? []).map(({ sessionId, events }) =>
    style.yellow(
      `Left out ${events} unreadable event${events === 1 ? "" : "s"} of session ` +
        `${terminalLine(sessionId)}: its log is damaged (harness sessions names it too)`,
    )
  );
}

function toolLines(stats: UsageStats, style: Style): string[] {
  if (stats.tools.length === 0) return [style.bold("Tools"), "  No tool calls"];
  const rows = stats.tools.map((t) => [
    t.tool,
    String(t.calls),
    percent(t.successRate),
    duration(t.medianMs),
    duration(t.p95Ms),
    errorsCell(t),
  ]);
  return [
    style.bold("Tools"),
    ...table(["TOOL", "CALLS", "OK", "MEDIAN", "P95", "ERRORS"], rows, style),
  ];
}

function approvalLines(stats: UsageStats, style: Style): string[] {
  const a = stats.approvals;
  const asked = a.approved + a.denied + a.changed;
  const head = `Approvals: asked ${asked} (approved ${a.approved}, denied ${a.denied}, ` +
    `changed ${a.changed}); waited median ${duration(a.medianWaitMs)}, p95 ${
      duration(a.p95WaitMs)
    }; decided by rules or mode: ${a.ruleAllowed} allowed, ${a.ruleDenied} denied`;
  const askedTools = stats.tools.filter((t) =>
    t.approvals.approved + t.approvals.denied + t.approvals.changed > 0
  );
  if (askedTools.length === 0) return [style.bold(head)];
  const rows = askedTools.map((t) => [
    t.tool,
    String(t.approvals.approved),
    String(t.approvals.denied),
    String(t.approvals.changed),
    duration(t.approvals.medianWaitMs),
    duration(t.approvals.p95WaitMs),
  ]);
  return [
    style.bold(head),
    ...table(["TOOL", "APPROVED", "DENIED", "CHANGED", "WAIT", "WAIT P95"], rows, style),
  ];
}

function modelLines(stats: UsageStats, style: Style): string[] {
  if (stats.models.length === 0) return [style.bold("Models"), "  No model turns"];
  const rows = stats.models.map((m) => [
    m.model || "(unknown)",
    String(m.sessions),
    String(m.turns),
    String(m.toolCalls),
    compactCount(m.promptTokens),
    compactCount(m.reusedTokens),
    compactCount(m.processedTokens),
    compactCount(m.unknownReuseTokens),
    compactCount(m.generatedTokens),
  ]);
  const lines = [
    style.bold(
      "Models (prompt tokens: reused from the server's cache, processed, or not reported)",
    ),
    ...table(
      [
        "MODEL",
        "SESSIONS",
        "TURNS",
        "CALLS",
        "PROMPT",
        "REUSED",
        "PROCESSED",
        "UNKNOWN",
        "GENERATED",
      ],
      rows,
      style,
    ),
  ];
  const silent = stats.models.reduce((n, m) => n + m.turnsWithoutUsage, 0);
  if (silent > 0) {
    lines.push(
      style.dim(`  ${silent} turn${silent === 1 ? "" : "s"} had no usage from the server`),
    );
  }
  return lines;
}

/** The model's requests besides the turns: tools' own (read_file's curator), summaries. */
function sideRequestLine(stats: UsageStats): string {
  const each = stats.sideRequests.map((s) =>
    `${terminalLine(s.side)} ${s.requests} (${compactCount(s.promptTokens)} prompt, ` +
    `${compactCount(s.generatedTokens)} generated tokens)`
  );
  return `Side requests, besides the turns above: ${each.join(", ")}`;
}

function stopLine(stats: UsageStats): string {
  const s = stats.stops;
  const reasons = Object.entries(s.byReason).sort(([, a], [, b]) => b - a)
    .map(([reason, n]) => `${reason} ${n}`).join(", ");
  return `Stops: loop guard ${s.loopGuard} calls, repeated failures ${s.repeatedFailures}, ` +
    `iteration limit ${s.iterationLimit}, tool-call limit ${s.toolCallLimit}` +
    `${reasons ? `; turns ended: ${reasons}` : ""}`;
}

function trendLines(stats: UsageStats, style: Style): string[] {
  const out: string[] = [];
  const days = stats.trends.callsPerDay.slice(-CHART_DAYS);
  if (days.length > 1) {
    out.push("", style.bold(`Tool calls per day (last ${days.length} days with calls)`));
    out.push(
      ...barChart(days.map((d) => ({ label: d.day, value: d.calls })), { width: 40 })
        .map((line) => `  ${line}`),
    );
  }
  const sessions = stats.trends.tokensPerSession;
  if (sessions.length > 1) {
    const totals = sessions.map((s) => s.promptTokens + s.generatedTokens);
    out.push(
      "",
      style.bold(`Tokens per session (last ${sessions.length}, oldest first; prompt + generated)`),
      `  ${sparkline(totals)}  min ${compactCount(Math.min(...totals))}, max ${
        compactCount(Math.max(...totals))
      }`,
    );
  }
  return out;
}
