// The SQL of the usage statistics (usage_stats.ts), in two readings of the payload fields:
// indexed (the expressions of schema migration 4's partial indexes, so SQLite reads the small
// indexes and parses no tool result) and guarded (NULL for a payload that is not JSON, and
// such rows left out), which the statistics fall back to when a damaged row made a query fail:
// json_extract fails the whole query on one, and so would spoil every session's numbers.

import type { SQLInputValue } from "node:sqlite";
import { payloadField } from "./schema.ts";

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

/** How a query reads payload fields. */
export interface FieldReading {
  /** A payload field as SQL, e.g. `json_extract(payload, '$.name')`. */
  field(path: string): string;
  /** Added to every WHERE clause (the guarded reading leaves damaged rows out). */
  rows?: string;
}

/** The indexes' own expressions: what SQLite finds the stats indexes by. */
export const INDEXED: FieldReading = { field: payloadField };

/** Only valid JSON is read: a damaged payload is NULL, and its row is left out. */
export const GUARDED: FieldReading = {
  field: (path) => `CASE WHEN json_valid(payload) THEN ${payloadField(path)} END`,
  rows: "json_valid(payload)",
};

/** The event types the statistics read. */
export const RESULTS = "type = 'tool_call_finished'";
export const DECISIONS = "type = 'permission_decided'";
export const TURNS = "type = 'assistant_message'";
export const STOPS = "type IN ('turn_ended', 'limit_reached')";
export const SIDE_REQUESTS = "type = 'side_request'";
/** Every type above, for finding the damaged rows among them. */
export const COUNTED =
  "type IN ('tool_call_finished', 'permission_decided', 'assistant_message', 'turn_ended', " +
  "'limit_reached', 'side_request')";

/**
 * The WHERE clause of events of `types` in the options' scope, and its parameters.
 *
 * @example
 * ```ts
 * import { GUARDED, scope } from "./usage_stats_sql.ts";
 * const s = scope({ sessionId: "a" }, "type = 'x'", GUARDED);
 * if (s.where !== "type = 'x' AND session_id = ? AND json_valid(payload)") throw new Error(s.where);
 * ```
 */
export function scope(
  options: UsageStatsOptions,
  types: string,
  reading: FieldReading,
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
  if (reading.rows) where.push(reading.rows);
  return { where: where.join(" AND "), params };
}

/** How long the turn waited for the user: from the event just before the decision. */
const WAIT_MS = `round((unixepoch(at, 'subsec') - unixepoch((SELECT p.at FROM events p
  WHERE p.session_id = events.session_id AND p.seq < events.seq ORDER BY p.seq DESC LIMIT 1),
  'subsec')) * 1000)`;

/** The query builders of one statistics run. */
export type UsageStatsSql = ReturnType<typeof usageStatsSql>;

/**
 * The SQL of each part of the statistics, given the scope's WHERE clause, reading payload
 * fields as `reading` says.
 *
 * @param reading {@linkcode INDEXED} or {@linkcode GUARDED}.
 * @returns One builder per query.
 */
export function usageStatsSql(reading: FieldReading) {
  const f = reading.field;
  return {
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
        ${tokenSums(f)}
      FROM events JOIN sessions s ON s.id = events.session_id WHERE ${where} GROUP BY 1`,
    tokensPerSession: (where: string) =>
      `SELECT events.session_id AS id, s.started_at, s.model,
        sum(${f("$.usage.promptTokens")}) AS prompt,
        sum(${f("$.usage.completionTokens")}) AS generated
      FROM events JOIN sessions s ON s.id = events.session_id WHERE ${where}
      GROUP BY 1 ORDER BY s.started_at DESC, 1 DESC LIMIT ?`,
    sideRequests: (where: string) =>
      `SELECT ${f("$.side")} AS side, count(*) AS n,
        coalesce(sum(${f("$.usage.promptTokens")}), 0) AS prompt,
        coalesce(sum(${f("$.usage.completionTokens")}), 0) AS generated
      FROM events WHERE ${where} GROUP BY 1`,
    stops: (where: string, prefixLength: number) =>
      `SELECT type, ${f("$.stopReason")} AS reason, ${f("$.limit")} AS kind,
        coalesce(substr(${f("$.errorMessage")}, 1, ${prefixLength}) = ?, 0) AS guard,
        count(*) AS n
      FROM events WHERE ${where} GROUP BY 1, 2, 3, 4`,
    sessions: (where: string) =>
      `SELECT count(DISTINCT session_id) AS n FROM events WHERE ${where}`,
    /** Sessions with rows the statistics read whose payload is not JSON, by id. */
    damaged: (where: string) =>
      `SELECT session_id AS id, count(*) AS n FROM events
      WHERE ${where} AND NOT json_valid(payload) GROUP BY 1 ORDER BY 1`,
  };
}

/** Token sums of model turns; reuse counts only where the server said, the rest is unknown. */
function tokenSums(f: (path: string) => string): string {
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
