// Usage analytics over the session log (`harness stats`, `/stats`): per tool and per model,
// success by error type, run time, approvals and how long they took, loop-guard and limit
// stops, prompt tokens processed and reused, and the trends behind the terminal charts. Each
// number is an SQL aggregate over the partial indexes of schema migration 4, so no tool
// result is parsed, in SQL or in JavaScript. When a damaged row (a payload that is not JSON)
// makes a query fail, the numbers are taken again without the damaged rows, which the result
// names by session: one damaged row spoils only its own session (usage_stats_sql.ts).

import type { DatabaseSync, SQLInputValue, SQLOutputValue } from "node:sqlite";
import {
  COUNTED,
  DECISIONS,
  type FieldReading,
  GUARDED,
  INDEXED,
  RESULTS,
  scope,
  SIDE_REQUESTS,
  STOPS,
  TURNS,
  type UsageStatsOptions,
  usageStatsSql,
} from "./usage_stats_sql.ts";
import {
  type ApprovalStats,
  type ModelStats,
  REPEATED_FAILURE_PREFIX,
  type ToolStats,
  type UsageStats,
} from "./usage_stats_types.ts";

export type { UsageStatsOptions } from "./usage_stats_sql.ts";

type Row = Record<string, SQLOutputValue>;

/** The percentile rows by key: `{ p50, p95 }` in milliseconds. */
function percentiles(rows: Row[]): Map<string, { p50: number; p95: number }> {
  const out = new Map<string, { p50: number; p95: number }>();
  for (const row of rows) {
    const key = str(row.k);
    const entry = out.get(key) ?? { p50: 0, p95: 0 };
    const v = Math.round(Number(row.v) * 1000) / 1000;
    if (Number(row.p50) === 1) entry.p50 = v;
    if (Number(row.p95) === 1) entry.p95 = v;
    out.set(key, entry);
  }
  return out;
}

/**
 * The nearest-rank percentile: the smallest value with at least p% of the values at or below
 * it (null for none), as percentileSql takes it in SQL.
 */
function nearestRank(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p * sorted.length) / 100)) - 1]!;
}

function str(value: SQLOutputValue | undefined): string {
  return value === null || value === undefined ? "" : String(value);
}

function count(value: SQLOutputValue | undefined): number {
  return Number(value ?? 0);
}

function emptyApprovals(): ApprovalStats {
  return {
    approved: 0,
    denied: 0,
    changed: 0,
    medianWaitMs: null,
    p95WaitMs: null,
    ruleAllowed: 0,
    ruleDenied: 0,
  };
}

/**
 * Computes usage statistics from the session database.
 *
 * @param db The open session database (schema 4 or later).
 * @param options The time window or session, the trend's length and the calendar.
 * @returns Tools, models, approvals, stops and trends (see {@linkcode UsageStats}).
 *
 * @example
 * ```ts
 * import { openDatabase } from "./schema.ts";
 * import { queryUsageStats } from "./usage_stats.ts";
 * const dir = Deno.makeTempDirSync();
 * const db = openDatabase(`${dir}/h.db`);
 * if (!db.ok) throw new Error();
 * const stats = queryUsageStats(db.value);
 * if (stats.sessions !== 0 || stats.tools.length !== 0) throw new Error();
 * db.value.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function queryUsageStats(db: DatabaseSync, options: UsageStatsOptions = {}): UsageStats {
  try {
    return statsWith(db, options, INDEXED);
  } catch (error) {
    // json_extract fails a whole query on one payload that is not JSON: take the numbers
    // again without such rows, and name the sessions they belong to.
    if (!(error instanceof Error) || !/\bJSON\b/.test(error.message)) throw error;
    const { where, params } = scope(options, COUNTED, INDEXED);
    const damaged = db.prepare(usageStatsSql(INDEXED).damaged(where)).all(...params)
      .map((row) => ({ sessionId: str(row.id), events: count(row.n) }));
    return { ...statsWith(db, options, GUARDED), damaged };
  }
}

/** The statistics with payload fields read as `reading` says. */
function statsWith(
  db: DatabaseSync,
  options: UsageStatsOptions,
  reading: FieldReading,
): UsageStats {
  const all = (sql: string, ...params: SQLInputValue[]) => db.prepare(sql).all(...params);
  const Q = usageStatsSql(reading);
  const results = scope(options, RESULTS, reading);
  const turns = scope(options, TURNS, reading);
  const stopScope = scope(options, STOPS, reading);
  const sides = scope(options, SIDE_REQUESTS, reading);
  const { tools, approvals } = toolStats(db, options, reading);
  const sessions = Number(db.prepare(Q.sessions(turns.where)).get(...turns.params)?.n ?? 0);
  return {
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    sessions,
    tools,
    models: modelStats(
      all(Q.tokens(turns.where), ...turns.params),
      all(Q.callsPerModel(results.where), ...results.params),
    ),
    sideRequests: all(Q.sideRequests(sides.where), ...sides.params).map((row) => ({
      side: str(row.side),
      requests: count(row.n),
      promptTokens: count(row.prompt),
      generatedTokens: count(row.generated),
    })).sort((a, b) => b.requests - a.requests || a.side.localeCompare(b.side)),
    approvals,
    stops: {
      ...stopStats(
        all(
          Q.stops(stopScope.where, REPEATED_FAILURE_PREFIX.length),
          REPEATED_FAILURE_PREFIX,
          ...stopScope.params,
        ),
      ),
      loopGuard: tools.reduce((n, t) => n + (t.errors.repeated_call ?? 0), 0),
    },
    trends: {
      callsPerDay: all(Q.callsPerDay(results.where, options.days ?? "local"), ...results.params)
        .map((row) => ({ day: str(row.day), calls: count(row.n) })),
      tokensPerSession: all(
        Q.tokensPerSession(turns.where),
        ...turns.params,
        options.trendSessions ?? 40,
      ).reverse().map((row) => ({
        sessionId: str(row.id),
        startedAt: str(row.started_at),
        model: str(row.model),
        promptTokens: count(row.prompt),
        generatedTokens: count(row.generated),
      })),
    },
  };
}

/** Each tool's calls, results, run times and approvals, and the approvals of all tools. */
function toolStats(
  db: DatabaseSync,
  options: UsageStatsOptions,
  reading: FieldReading,
): { tools: ToolStats[]; approvals: ApprovalStats } {
  const all = (sql: string, ...params: SQLInputValue[]) => db.prepare(sql).all(...params);
  const Q = usageStatsSql(reading);
  const results = scope(options, RESULTS, reading);
  const decisions = scope(options, DECISIONS, reading);
  const tools = new Map<string, ToolStats>();
  const tool = (name: string): ToolStats => {
    let entry = tools.get(name);
    if (!entry) {
      entry = {
        tool: name,
        calls: 0,
        successes: 0,
        errors: {},
        successRate: null,
        medianMs: null,
        p95Ms: null,
        approvals: emptyApprovals(),
      };
      tools.set(name, entry);
    }
    return entry;
  };
  for (const row of all(Q.results(results.where), ...results.params)) {
    const entry = tool(str(row.tool));
    const n = count(row.n);
    entry.calls += n;
    const status = str(row.status) || "unknown";
    if (status === "succeeded") entry.successes += n;
    else entry.errors[status] = (entry.errors[status] ?? 0) + n;
  }
  for (const [name, p] of percentiles(all(Q.runTimes(results.where), ...results.params))) {
    Object.assign(tool(name), { medianMs: p.p50, p95Ms: p.p95 });
  }
  const approvals = emptyApprovals();
  for (const row of all(Q.decisions(decisions.where), ...decisions.params)) {
    const n = count(row.n);
    const key = decisionKey(str(row.decided_by), str(row.decision), count(row.changed) === 1);
    tool(str(row.tool)).approvals[key] += n;
    approvals[key] += n;
  }
  const waits = new Map<string, number[]>();
  for (const row of all(Q.waits(decisions.where), ...decisions.params)) {
    if (row.v === null) continue;
    const list = waits.get(str(row.k)) ?? [];
    list.push(Number(row.v));
    waits.set(str(row.k), list);
  }
  for (const [name, list] of waits) {
    Object.assign(tool(name).approvals, {
      medianWaitMs: nearestRank(list, 50),
      p95WaitMs: nearestRank(list, 95),
    });
  }
  const everyWait = [...waits.values()].flat();
  approvals.medianWaitMs = nearestRank(everyWait, 50);
  approvals.p95WaitMs = nearestRank(everyWait, 95);
  const list = [...tools.values()].map((t) => ({
    ...t,
    successRate: t.calls === 0 ? null : t.successes / t.calls,
  })).sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
  return { tools: list, approvals };
}

/** Which count a decision adds to: the user's answer, or a rule's (or the mode's). */
function decisionKey(
  by: string,
  decision: string,
  changed: boolean,
): "approved" | "denied" | "changed" | "ruleAllowed" | "ruleDenied" {
  const allowed = decision === "allow";
  if (by !== "user") return allowed ? "ruleAllowed" : "ruleDenied";
  if (!allowed) return "denied";
  return changed ? "changed" : "approved";
}

function modelStats(tokenRows: Row[], callRows: Row[]): ModelStats[] {
  const calls = new Map(callRows.map((row) => [str(row.model), count(row.n)]));
  const models = tokenRows.map((row) => ({
    model: str(row.model),
    sessions: count(row.sessions),
    toolCalls: calls.get(str(row.model)) ?? 0,
    turns: count(row.turns),
    turnsWithoutUsage: count(row.silent),
    promptTokens: count(row.prompt),
    reusedTokens: count(row.reused),
    processedTokens: count(row.processed),
    unknownReuseTokens: count(row.unknown),
    generatedTokens: count(row.generated),
  }));
  return models.sort((a, b) => b.turns - a.turns || a.model.localeCompare(b.model));
}

function stopStats(rows: Row[]): UsageStats["stops"] {
  const stops: UsageStats["stops"] = {
    loopGuard: 0,
    repeatedFailures: 0,
    iterationLimit: 0,
    toolCallLimit: 0,
    byReason: {},
  };
  for (const row of rows) {
    const n = count(row.n);
    if (row.type === "limit_reached") {
      if (str(row.kind) === "iterations") stops.iterationLimit += n;
      else if (str(row.kind) === "tool_calls") stops.toolCallLimit += n;
      continue;
    }
    const reason = str(row.reason) || "unknown";
    stops.byReason[reason] = (stops.byReason[reason] ?? 0) + n;
    if (reason === "error" && count(row.guard) === 1) stops.repeatedFailures += n;
  }
  return stops;
}

/** Every query of {@linkcode queryUsageStats} for a scope, with its parameters (for the plan test). */
export function usageStatsQueries(options: UsageStatsOptions = {}): [string, SQLInputValue[]][] {
  const results = scope(options, RESULTS, INDEXED);
  const decisions = scope(options, DECISIONS, INDEXED);
  const turns = scope(options, TURNS, INDEXED);
  const stops = scope(options, STOPS, INDEXED);
  const sides = scope(options, SIDE_REQUESTS, INDEXED);
  const Q = usageStatsSql(INDEXED);
  return [
    [Q.sideRequests(sides.where), sides.params],
    [Q.results(results.where), results.params],
    [Q.runTimes(results.where), results.params],
    [Q.callsPerDay(results.where, "local"), results.params],
    [Q.callsPerModel(results.where), results.params],
    [Q.decisions(decisions.where), decisions.params],
    [Q.waits(decisions.where), decisions.params],
    [Q.tokens(turns.where), turns.params],
    [Q.tokensPerSession(turns.where), [...turns.params, 40]],
    [Q.stops(stops.where, REPEATED_FAILURE_PREFIX.length), [
      REPEATED_FAILURE_PREFIX,
      ...stops.params,
    ]],
    [Q.sessions(turns.where), turns.params],
  ];
}
