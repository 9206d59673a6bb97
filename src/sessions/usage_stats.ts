// Usage analytics over the session log (`harness stats`, `/stats`): per tool and per model,
// success by error type, run time, approvals and how long they took, loop-guard and limit
// stops, prompt tokens processed and reused, and the trends behind the terminal charts. Each
// number is an SQL aggregate over the partial indexes of schema migration 4, so no tool
// result is parsed, in SQL or in JavaScript.

import type { DatabaseSync, SQLInputValue, SQLOutputValue } from "node:sqlite";
import { payloadField as f } from "./schema.ts";
import {
  type ApprovalStats,
  type ModelStats,
  REPEATED_FAILURE_PREFIX,
  type ToolStats,
  type UsageStats,
} from "./usage_stats_types.ts";

/** Which events count: those at or after `since`, of one session, or all. */
export interface UsageStatsOptions {
  /** ISO time; events before it are left out. */
  since?: string;
  /** Only this session (the REPL's /stats). */
  sessionId?: string;
  /** Sessions listed in the tokens-per-session trend (default 40, the most recent). */
  trendSessions?: number;
  /** Calls per day by the machine's calendar days (default) or UTC days. */
  days?: "local" | "utc";
}

type Row = Record<string, SQLOutputValue>;

/** The WHERE clause of events of `types` in the options' scope, and its parameters. */
function scope(
  options: UsageStatsOptions,
  types: string,
): { where: string; params: SQLInputValue[] } {
  const where = [types];
  const params: SQLInputValue[] = [];
  if (options.since !== undefined) {
    where.push("at >= ?");
    params.push(options.since);
  }
  if (options.sessionId !== undefined) {
    where.push("session_id = ?");
    params.push(options.sessionId);
  }
  return { where: where.join(" AND "), params };
}

const RESULTS = "type = 'tool_call_finished'";
const DECISIONS = "type = 'permission_decided'";
const TURNS = "type = 'assistant_message'";
const STOPS = "type IN ('turn_ended', 'limit_reached')";
const SIDE_REQUESTS = "type = 'side_request'";

/** How long the turn waited for the user: from the event just before the decision. */
const WAIT_MS = `round((unixepoch(at, 'subsec') - unixepoch((SELECT p.at FROM events p
  WHERE p.session_id = events.session_id AND p.seq < events.seq ORDER BY p.seq DESC LIMIT 1),
  'subsec')) * 1000)`;

/** The SQL of each part of the statistics, given the scope's WHERE clause. */
const USAGE_STATS_SQL = {
  results: (where: string) =>
    `SELECT ${f("$.name")} AS tool, ${f("$.status")} AS status, count(*) AS n
    FROM events WHERE ${where} GROUP BY 1, 2`,
  /** Run times of the calls that ran: a call the loop never ran reports 0 ms. */
  runTimes: (where: string) =>
    percentileSql(
      `SELECT ${f("$.name")} AS k, ${f("$.result.metadata.execution_time_ms")} AS v
      FROM events WHERE ${where} AND ${f("$.result.metadata.execution_time_ms")} > 0`,
    ),
  callsPerDay: (where: string, days: "local" | "utc") =>
    `SELECT date(at${days === "local" ? ", 'localtime'" : ""}) AS day, count(*) AS n
    FROM events WHERE ${where} GROUP BY 1 ORDER BY 1`,
  callsPerModel: (where: string) =>
    `SELECT s.model, count(*) AS n FROM events JOIN sessions s ON s.id = events.session_id
    WHERE ${where} GROUP BY 1`,
  decisions: (where: string) =>
    `SELECT ${f("$.name")} AS tool, ${f("$.by")} AS decided_by, ${f("$.decision")} AS decision,
      ${f("$.changedArguments")} IS NOT NULL AS changed, count(*) AS n
    FROM events WHERE ${where} GROUP BY 1, 2, 3, 4`,
  /** One row per decision the user made (a few per session): percentiles are taken here. */
  waits: (where: string) =>
    `SELECT ${f("$.name")} AS k, ${WAIT_MS} AS v
    FROM events WHERE ${where} AND ${f("$.by")} = 'user'`,
  tokens: (where: string) =>
    `SELECT s.model, count(*) AS turns, count(DISTINCT events.session_id) AS sessions,
      ${tokenSums()}
    FROM events JOIN sessions s ON s.id = events.session_id WHERE ${where} GROUP BY 1`,
  tokensPerSession: (where: string) =>
    `SELECT events.session_id AS id, s.started_at, s.model,
      sum(${f("$.usage.promptTokens")}) AS prompt, sum(${
      f("$.usage.completionTokens")
    }) AS generated
    FROM events JOIN sessions s ON s.id = events.session_id WHERE ${where}
    GROUP BY 1 ORDER BY s.started_at DESC, 1 DESC LIMIT ?`,
  sideRequests: (where: string) =>
    `SELECT ${f("$.side")} AS side, count(*) AS n,
      coalesce(sum(${f("$.usage.promptTokens")}), 0) AS prompt,
      coalesce(sum(${f("$.usage.completionTokens")}), 0) AS generated
    FROM events WHERE ${where} GROUP BY 1`,
  stops: (where: string) =>
    `SELECT type, ${f("$.stopReason")} AS reason, ${f("$.limit")} AS kind,
      coalesce(substr(${
      f("$.errorMessage")
    }, 1, ${REPEATED_FAILURE_PREFIX.length}) = ?, 0) AS guard,
      count(*) AS n
    FROM events WHERE ${where} GROUP BY 1, 2, 3, 4`,
};

/** Token sums of model turns; reuse counts only where the server said, the rest is unknown. */
function tokenSums(): string {
  const prompt = f("$.usage.promptTokens");
  const reused = `min(${f("$.usage.reusedTokens")}, ${prompt})`;
  const known = `${f("$.usage.reusedTokens")} IS NOT NULL`;
  return `
    sum(${prompt} IS NULL AND ${f("$.usage.completionTokens")} IS NULL) AS silent,
    coalesce(sum(${prompt}), 0) AS prompt,
    coalesce(sum(${f("$.usage.completionTokens")}), 0) AS generated,
    coalesce(sum(CASE WHEN ${known} THEN ${reused} END), 0) AS reused,
    coalesce(sum(CASE WHEN ${known} THEN ${prompt} - ${reused} END), 0) AS processed,
    coalesce(sum(CASE WHEN NOT ${known} THEN ${prompt} END), 0) AS unknown`;
}

/**
 * Nearest-rank median and 95th percentile of `v` per `k`, of a query selecting k and v: the
 * rows at rank ceil(n * p / 100).
 */
function percentileSql(values: string): string {
  return `WITH v AS (${values}),
    r AS (SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY v) AS rn,
      count(*) OVER (PARTITION BY k) AS n FROM v)
    SELECT k, v, rn = max(1, (n * 50 + 99) / 100) AS p50, rn = max(1, (n * 95 + 99) / 100) AS p95
    FROM r WHERE rn = max(1, (n * 50 + 99) / 100) OR rn = max(1, (n * 95 + 99) / 100)`;
}

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
  const all = (sql: string, ...params: SQLInputValue[]) => db.prepare(sql).all(...params);
  const results = scope(options, RESULTS);
  const decisions = scope(options, DECISIONS);
  const turns = scope(options, TURNS);
  const stopScope = scope(options, STOPS);
  const sides = scope(options, SIDE_REQUESTS);
  const Q = USAGE_STATS_SQL;

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
    const a = tool(str(row.tool)).approvals;
    const n = count(row.n);
    const allowed = str(row.decision) === "allow";
    const key = str(row.decided_by) !== "user"
      ? allowed ? "ruleAllowed" : "ruleDenied"
      : !allowed
      ? "denied"
      : count(row.changed) === 1
      ? "changed"
      : "approved";
    a[key] += n;
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

  return {
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    sessions: countSessions(db, options),
    tools: [...tools.values()].map((t) => ({
      ...t,
      successRate: t.calls === 0 ? null : t.successes / t.calls,
    })).sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool)),
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
      ...stopStats(all(Q.stops(stopScope.where), REPEATED_FAILURE_PREFIX, ...stopScope.params)),
      loopGuard: [...tools.values()].reduce((n, t) => n + (t.errors.repeated_call ?? 0), 0),
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

/** Sessions with a model turn in scope. */
function countSessions(db: DatabaseSync, options: UsageStatsOptions): number {
  const { where, params } = scope(options, TURNS);
  const sql = `SELECT count(DISTINCT session_id) AS n FROM events WHERE ${where}`;
  return Number(db.prepare(sql).get(...params)?.n ?? 0);
}

/** Every query of {@linkcode queryUsageStats} for a scope, with its parameters (for the plan test). */
export function usageStatsQueries(options: UsageStatsOptions = {}): [string, SQLInputValue[]][] {
  const results = scope(options, RESULTS);
  const decisions = scope(options, DECISIONS);
  const turns = scope(options, TURNS);
  const stops = scope(options, STOPS);
  const sides = scope(options, SIDE_REQUESTS);
  const Q = USAGE_STATS_SQL;
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
    [Q.stops(stops.where), [REPEATED_FAILURE_PREFIX, ...stops.params]],
    [`SELECT count(DISTINCT session_id) AS n FROM events WHERE ${turns.where}`, turns.params],
  ];
}
