// Read-side queries over the session database: session summaries (list, latest, id
// prefix), a session's events in order, and full-text search over message text (FTS5,
// or LIKE when the table is missing). Writes live in log_writer.ts and session_store.ts.

import type { DatabaseSync, SQLOutputValue } from "node:sqlite";
import { isSessionEventType, type SessionEvent } from "./session_events.ts";
import { SEARCHED_TYPES, searchedText } from "./schema.ts";

/** One line of `harness sessions list`. */
export interface SessionSummary {
  id: string;
  /** ISO time of session_started. */
  startedAt: string;
  /** ISO time of the last event. */
  lastAt: string;
  cwd: string;
  model: string;
  baseUrl: string;
  provider: string;
  grants: string;
  /** The first user message, or null before the user said anything. */
  firstUserMessage: string | null;
  /** Number of user messages. */
  userTurns: number;
  /**
   * Events whose payload is not valid JSON (a disk fault, an edit by hand): the session is
   * listed, these rows are left out when it is read. Absent when there are none.
   */
  damaged?: number;
}

const SUMMARY_SQL = `
  SELECT s.id, s.started_at, s.cwd, s.model, s.base_url, s.provider, s.grants,
    (SELECT max(e.seq) FROM events e WHERE e.session_id = s.id) AS last_seq,
    (SELECT e.at FROM events e WHERE e.session_id = s.id ORDER BY e.seq DESC LIMIT 1) AS last_at,
    (SELECT CASE WHEN json_valid(e.payload) THEN json_extract(e.payload, '$.content') END
      FROM events e WHERE e.session_id = s.id AND e.type = 'user_message'
      ORDER BY e.seq LIMIT 1) AS first_user,
    (SELECT count(*) FROM events e
      WHERE e.session_id = s.id AND e.type = 'user_message') AS user_turns,
    (SELECT count(*) FROM events e
      WHERE e.session_id = s.id AND NOT json_valid(e.payload)) AS damaged
  FROM sessions s`;
// json_extract raises "malformed JSON" for the whole query on one damaged row: every read of
// a payload here is guarded by json_valid, so one row spoils only its own session.

type Row = Record<string, SQLOutputValue>;

function text(row: Row, key: string): string {
  const value = row[key];
  return value === null || value === undefined ? "" : String(value);
}

function toSummary(row: Row): SessionSummary {
  const first = row.first_user;
  return {
    id: text(row, "id"),
    startedAt: text(row, "started_at"),
    lastAt: text(row, "last_at") || text(row, "started_at"),
    cwd: text(row, "cwd"),
    model: text(row, "model"),
    baseUrl: text(row, "base_url"),
    provider: text(row, "provider"),
    grants: text(row, "grants"),
    firstUserMessage: typeof first === "string" ? first : null,
    userTurns: Number(row.user_turns ?? 0),
    ...(Number(row.damaged ?? 0) > 0 ? { damaged: Number(row.damaged) } : {}),
  };
}

/**
 * Sessions, most recently active first.
 *
 * @param db The open database.
 * @param options Only sessions started in `cwd`, only those with a user message
 *   (`withUserMessage`), at most `limit` (default all).
 * @returns Their summaries.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./schema.ts";
 * import { querySessions } from "./query_sessions.ts";
 * const dir = Deno.makeTempDirSync();
 * const db = openDatabase(`${dir}/h.db`);
 * if (!db.ok || querySessions(db.value, { cwd: "/p" }).length !== 0) throw new Error();
 * db.value.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function querySessions(
  db: DatabaseSync,
  options: { cwd?: string; limit?: number; idPrefix?: string; withUserMessage?: boolean } = {},
): SessionSummary[] {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (options.cwd !== undefined) {
    where.push("s.cwd = ?");
    params.push(options.cwd);
  }
  if (options.withUserMessage) {
    where.push(
      "EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.id AND e.type = 'user_message')",
    );
  }
  if (options.idPrefix !== undefined) {
    // substr instead of LIKE: ids must match literally, "_" and "%" included.
    where.push("substr(s.id, 1, ?) = ?");
    params.push(options.idPrefix.length, options.idPrefix);
  }
  const sql = `${SUMMARY_SQL} ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    ORDER BY last_seq DESC ${options.limit === undefined ? "" : "LIMIT ?"}`;
  if (options.limit !== undefined) params.push(options.limit);
  return db.prepare(sql).all(...params).map(toSummary);
}

/**
 * A session's events in log order, inert records marked. Rows of an unknown type or with broken
 * JSON are skipped (counted in `skipped`) so one bad row never hides a whole session.
 *
 * @param db The open database.
 * @param sessionId The session.
 * @returns Events with their sequence numbers.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./schema.ts";
 * import { queryEvents } from "./query_sessions.ts";
 * const dir = Deno.makeTempDirSync();
 * const db = openDatabase(`${dir}/h.db`);
 * if (!db.ok || queryEvents(db.value, "none").events.length !== 0) throw new Error();
 * db.value.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function queryEvents(
  db: DatabaseSync,
  sessionId: string,
): { events: (SessionEvent & { seq: number })[]; skipped: number } {
  const rows = db.prepare(
    "SELECT seq, type, at, payload, inert FROM events WHERE session_id = ? ORDER BY seq",
  ).all(sessionId);
  const events: (SessionEvent & { seq: number })[] = [];
  let skipped = 0;
  for (const row of rows) {
    const type = text(row, "type");
    let payload: unknown;
    try {
      payload = JSON.parse(text(row, "payload"));
    } catch {
      skipped++;
      continue;
    }
    if (!isSessionEventType(type) || typeof payload !== "object" || payload === null) {
      skipped++;
      continue;
    }
    const inert = Number(row.inert) === 1 ? { inert: true } : {};
    events.push(
      { seq: Number(row.seq), type, at: text(row, "at"), payload, ...inert } as SessionEvent & {
        seq: number;
      },
    );
  }
  return { events, skipped };
}

/** One message that matched a search. */
export interface SearchHit {
  sessionId: string;
  /** The event's sequence number. */
  seq: number;
  at: string;
  type: typeof SEARCHED_TYPES[number];
  /** The message text around the match, matches in [brackets]. */
  snippet: string;
  cwd: string;
}

/**
 * Tells whether the database has the FTS5 message index.
 *
 * @param db The open database.
 * @returns True when search uses FTS5.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./schema.ts";
 * import { hasMessageIndex } from "./query_sessions.ts";
 * const dir = Deno.makeTempDirSync();
 * const db = openDatabase(`${dir}/h.db`);
 * if (!db.ok || !hasMessageIndex(db.value)) throw new Error("no FTS5");
 * db.value.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function hasMessageIndex(db: DatabaseSync): boolean {
  const row = db.prepare("SELECT 1 AS x FROM sqlite_master WHERE name = 'message_text'").get();
  return row !== undefined;
}

/**
 * Finds messages containing every word of `query` (FTS5; LIKE on the whole phrase when the
 * index is missing). Words are matched as quoted tokens, so FTS syntax in the query is
 * taken literally.
 *
 * @param db The open database.
 * @param query Words to find.
 * @param limit At most this many hits, newest first.
 * @returns The hits.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./schema.ts";
 * import { querySearch } from "./query_sessions.ts";
 * const dir = Deno.makeTempDirSync();
 * const db = openDatabase(`${dir}/h.db`);
 * if (!db.ok || querySearch(db.value, "refactor", 10).length !== 0) throw new Error();
 * db.value.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function querySearch(db: DatabaseSync, query: string, limit: number): SearchHit[] {
  const words = query.split(/\s+/).filter((word) => word !== "");
  if (words.length === 0) return [];
  const rows = hasMessageIndex(db)
    ? db.prepare(`
        SELECT e.session_id, e.seq, e.at, e.type, s.cwd,
          snippet(message_text, 0, '[', ']', '...', 16) AS snippet
        FROM message_text JOIN events e ON e.seq = message_text.rowid
        JOIN sessions s ON s.id = e.session_id
        WHERE message_text MATCH ? ORDER BY e.seq DESC LIMIT ?`)
      .all(words.map((word) => `"${word.replaceAll('"', '""')}"`).join(" "), limit)
    : db.prepare(`
        SELECT e.session_id, e.seq, e.at, e.type, s.cwd,
          substr(${validText("e")}, 1, 200) AS snippet
        FROM events e JOIN sessions s ON s.id = e.session_id
        WHERE e.type IN (${SEARCHED_TYPES.map((type) => `'${type}'`).join(", ")})
          AND instr(lower(${validText("e")}), lower(?)) > 0
        ORDER BY e.seq DESC LIMIT ?`)
      .all(words.join(" "), limit);
  return rows.map((row) => ({
    sessionId: text(row, "session_id"),
    seq: Number(row.seq),
    at: text(row, "at"),
    type: text(row, "type") as SearchHit["type"],
    snippet: text(row, "snippet"),
    cwd: text(row, "cwd"),
  }));
}

/** The searched text of a row, NULL for a damaged payload (json_extract would fail the query). */
function validText(row: string): string {
  return `CASE WHEN json_valid(${row}.payload) THEN ${searchedText(row)} END`;
}
