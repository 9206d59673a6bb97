// Opening the session database: file checks, pragmas (WAL, synchronous=FULL) and numbered
// schema migrations tracked in SQLite's user_version. Migrations only add; a row written
// by an older version stays readable. Every failure becomes an AgentError naming the file.

import { DatabaseSync } from "node:sqlite";
import { dirname } from "../platform/paths.ts";
import { type AgentError, err, ok, type Result } from "../errors.ts";
import { ensurePrivateDir, makeOwnerOnly } from "../config/folders.ts";

/** One schema step; `sql` runs inside the migration's transaction. */
interface Migration {
  version: number;
  apply(db: DatabaseSync): void;
}

/**
 * The migrations, in order. Never edit a released one: add a new one.
 * 1: sessions and the append-only events table.
 * 2: sessions.provider, and FTS5 over message text, kept by triggers and backfilled.
 * 3: the index holds what the user can have meant to find (user and assistant messages, tool
 *    calls with their arguments, tool results) and no longer the system prompt, which every
 *    session repeats.
 * 4: partial indexes on the payload fields `harness stats` counts (usage_stats.ts), so it reads
 *    a few small indexes instead of parsing every tool result in the log.
 * 5: images, each stored once by its SHA-256; messages name them (session_events.ts), so a
 *    resumed session sends them again and an image sent twice takes its room once.
 * 6: an index on side requests' tokens.
 * 7: events.inert: a row kept only as a record (an imported export's system prompt and
 *    checkpoints, the recording run's own): exported as it came, never replayed.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    apply(db) {
      db.exec(`
        CREATE TABLE sessions (
          id TEXT PRIMARY KEY,
          started_at TEXT NOT NULL,
          cwd TEXT NOT NULL,
          model TEXT NOT NULL,
          base_url TEXT NOT NULL,
          grants TEXT NOT NULL
        );
        CREATE TABLE events (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL REFERENCES sessions(id),
          type TEXT NOT NULL,
          at TEXT NOT NULL,
          payload TEXT NOT NULL
        );
        CREATE INDEX events_by_session ON events(session_id, seq);
        CREATE INDEX sessions_by_cwd ON sessions(cwd);
      `);
    },
  },
  {
    version: 2,
    apply(db) {
      db.exec(`ALTER TABLE sessions ADD COLUMN provider TEXT NOT NULL DEFAULT ''`);
      if (!hasFts5(db)) return; // search falls back to LIKE (see searchSessions)
      db.exec(`
        CREATE VIRTUAL TABLE message_text USING fts5(text);
        CREATE TRIGGER message_text_insert AFTER INSERT ON events
          WHEN new.type IN ('system_message', 'user_message', 'assistant_message')
          BEGIN
            INSERT INTO message_text(rowid, text)
              VALUES (new.seq, json_extract(new.payload, '$.content'));
          END;
        CREATE TRIGGER message_text_delete AFTER DELETE ON events
          WHEN old.type IN ('system_message', 'user_message', 'assistant_message')
          BEGIN
            DELETE FROM message_text WHERE rowid = old.seq;
          END;
        INSERT INTO message_text(rowid, text)
          SELECT seq, json_extract(payload, '$.content') FROM events
          WHERE type IN ('system_message', 'user_message', 'assistant_message');
      `);
    },
  },
  {
    version: 3,
    apply(db) {
      if (!hasFts5(db) || !tableExists(db, "message_text")) return;
      const types = SEARCHED_TYPES.map((type) => `'${type}'`).join(", ");
      db.exec(`
        DROP TRIGGER message_text_insert;
        DROP TRIGGER message_text_delete;
        DELETE FROM message_text;
        CREATE TRIGGER message_text_insert AFTER INSERT ON events
          WHEN new.type IN (${types})
          BEGIN
            INSERT INTO message_text(rowid, text) VALUES (new.seq, ${searchedText("new")});
          END;
        CREATE TRIGGER message_text_delete AFTER DELETE ON events
          WHEN old.type IN (${types})
          BEGIN
            DELETE FROM message_text WHERE rowid = old.seq;
          END;
        INSERT INTO message_text(rowid, text)
          SELECT seq, ${searchedText("events")} FROM events WHERE type IN (${types});
      `);
    },
  },
  {
    version: 4,
    apply(db) {
      db.exec(STATS_INDEXES);
    },
  },
  {
    version: 5,
    apply(db) {
      db.exec(`
        CREATE TABLE images (
          sha256 TEXT PRIMARY KEY,
          media_type TEXT NOT NULL,
          bytes INTEGER NOT NULL,
          data BLOB NOT NULL
        );
      `);
    },
  },
  {
    version: 6,
    apply(db) {
      db.exec(SIDE_REQUEST_INDEX);
    },
  },
  {
    version: 7,
    apply(db) {
      db.exec("ALTER TABLE events ADD COLUMN inert INTEGER NOT NULL DEFAULT 0");
    },
  },
];

/**
 * A payload field as SQL. usage_stats.ts writes its queries with the same text, which is how
 * SQLite finds the indexes on these expressions (tests/sessions/usage_stats_test.ts checks
 * that every query uses one).
 *
 * @param path A JSON path such as `$.name`.
 * @returns `json_extract(payload, '<path>')`.
 *
 * @example
 * ```ts
 * import { payloadField } from "./schema.ts";
 * if (payloadField("$.name") !== "json_extract(payload, '$.name')") throw new Error();
 * ```
 */
export function payloadField(path: string): string {
  return `json_extract(payload, '${path}')`;
}

const STATS_INDEXES = `
  CREATE INDEX events_tool_results ON events(
    ${payloadField("$.name")}, ${payloadField("$.status")},
    ${payloadField("$.result.metadata.execution_time_ms")}, at, session_id
  ) WHERE type = 'tool_call_finished';
  CREATE INDEX events_decisions ON events(
    ${payloadField("$.name")}, ${payloadField("$.by")}, ${payloadField("$.decision")},
    ${payloadField("$.changedArguments")} IS NOT NULL, at, session_id
  ) WHERE type = 'permission_decided';
  CREATE INDEX events_turns ON events(
    session_id, ${payloadField("$.usage.promptTokens")}, ${
  payloadField("$.usage.completionTokens")
},
    ${payloadField("$.usage.reusedTokens")}, at
  ) WHERE type = 'assistant_message';
  CREATE INDEX events_stops ON events(
    type, ${payloadField("$.stopReason")}, ${payloadField("$.limit")},
    ${payloadField("$.errorMessage")}, at, session_id
  ) WHERE type IN ('turn_ended', 'limit_reached');
`;

/** Side requests' tokens by what sent them (side_request events, schema 6). */
const SIDE_REQUEST_INDEX = `
  CREATE INDEX events_side_requests ON events(
    ${payloadField("$.side")}, ${payloadField("$.usage.promptTokens")},
    ${payloadField("$.usage.completionTokens")}, at, session_id
  ) WHERE type = 'side_request';
`;

/** The event types `harness sessions search` looks in. */
export const SEARCHED_TYPES = [
  "user_message",
  "assistant_message",
  "tool_call_requested",
  "tool_call_finished",
] as const;

/**
 * The SQL expression for the searched text of an events row named `row`: a message's
 * content, a call's tool name and arguments, a result's content (or its JSON).
 */
export function searchedText(row: string): string {
  const field = (path: string) => `json_extract(${row}.payload, '${path}')`;
  return `CASE ${row}.type
    WHEN 'tool_call_requested' THEN ${field("$.name")} || ' ' || ${field("$.arguments")}
    WHEN 'tool_call_finished' THEN coalesce(${field("$.content")}, ${field("$.result")})
    ELSE ${field("$.content")} END`;
}

function tableExists(db: DatabaseSync, name: string): boolean {
  return db.prepare("SELECT 1 AS x FROM sqlite_master WHERE name = ?").get(name) !== undefined;
}

/** The schema version this build writes. */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** Tells whether this SQLite build has FTS5. */
function hasFts5(db: DatabaseSync): boolean {
  try {
    db.exec("CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(x); DROP TABLE temp.fts5_probe");
    return true;
  } catch {
    return false;
  }
}

/** Options for {@linkcode openDatabase}. */
export interface OpenDatabaseOptions {
  /** "FULL" (default) survives power loss; "NORMAL" is for the benchmark's reference run. */
  synchronous?: "FULL" | "NORMAL";
}

/**
 * Opens (creating if needed) the session database and brings its schema up to date.
 *
 * @param path The database file.
 * @param options Synchronous mode.
 * @returns The open database, or a `session_store` error that names the file and the fix.
 *
 * @example
 * ```ts
 * import { openDatabase, SCHEMA_VERSION } from "./schema.ts";
 * const dir = Deno.makeTempDirSync();
 * const db = openDatabase(`${dir}/harness.db`);
 * if (!db.ok) throw new Error();
 * const row = db.value.prepare("PRAGMA user_version").get();
 * if (row?.user_version !== SCHEMA_VERSION) throw new Error();
 * db.value.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function openDatabase(
  path: string,
  options: OpenDatabaseOptions = {},
): Result<DatabaseSync, AgentError> {
  const fail = (reason: string) =>
    err<AgentError>({ kind: "session_store", file: path, action: "open", reason });
  const aside = "move it aside or run with --no-session";
  try {
    ensurePrivateDir(dirname(path));
  } catch (error) {
    return fail(
      `cannot create folder "${dirname(path)}" (${describe(error)}): ` +
        `fix its permissions, set XDG_DATA_HOME, or run with --no-session`,
    );
  }
  const permissions = "make the file and its folder writable, or run with --no-session";
  // SQLite opens a read-only file without complaint and fails at the first write.
  try {
    Deno.openSync(path, { read: true, write: true }).close();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      return fail(`the file is not writable: ${permissions}`);
    }
  }
  // Owner-only before SQLite opens it: its -wal and -shm files take the database's mode.
  try {
    Deno.openSync(path, { write: true, create: true, mode: 0o600 }).close();
    makeOwnerOnly(path, 0o600);
  } catch { /* the open below reports what is wrong */ }
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { timeout: 5000 });
  } catch (error) {
    // node:sqlite appends the path to the message; the error already names it.
    return fail(`${describe(error).replace(`: ${path}`, "")}: ${permissions}`);
  }
  try {
    // Reading the schema is the first thing that fails on a file that is not a database.
    const version = Number(db.prepare("PRAGMA user_version").get()?.user_version ?? 0);
    if (version > SCHEMA_VERSION) {
      db.close();
      return fail(
        `it has schema version ${version}, newer than this harness knows ` +
          `(${SCHEMA_VERSION}): upgrade harness, or run with --no-session`,
      );
    }
    const mode = db.prepare("PRAGMA journal_mode = WAL").get()?.journal_mode;
    if (mode !== "wal") throw new Error(`cannot switch to WAL journal mode (got "${mode}")`);
    db.exec(`PRAGMA synchronous = ${options.synchronous ?? "FULL"}`);
    db.exec("PRAGMA foreign_keys = ON");
    migrate(db, version);
    return ok(db);
  } catch (error) {
    try {
      db.close();
    } catch {
      // already failing; the first error is the one to report
    }
    const message = describe(error);
    if (/readonly|read-only|permission|access/i.test(message)) {
      return fail(`${message}: ${permissions}`);
    }
    return fail(`${message}: ${aside}`);
  }
}

/** Applies the migrations past `from`, each in its own transaction with its version bump. */
function migrate(db: DatabaseSync, from: number): void {
  for (const migration of MIGRATIONS) {
    if (migration.version <= from) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have migrated while we waited for the write lock.
      const now = Number(db.prepare("PRAGMA user_version").get()?.user_version ?? 0);
      if (now < migration.version) {
        migration.apply(db);
        db.exec(`PRAGMA user_version = ${migration.version}`);
      }
      db.exec("COMMIT");
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      throw error;
    }
  }
}

/**
 * The message of an error, without a trailing period (Deno style).
 *
 * @param error Anything thrown.
 * @returns Its message.
 *
 * @example
 * ```ts
 * import { describe } from "./schema.ts";
 * if (describe(new Error("disk full.")) !== "disk full") throw new Error();
 * ```
 */
export function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\.$/, "");
}
