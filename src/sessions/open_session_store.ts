// The session store: every session is an append-only sequence of events in one SQLite
// database (node:sqlite, WAL, synchronous=FULL) under $XDG_DATA_HOME/harness/. The CLI
// opens it once, hands a SessionLogWriter to the conversation as its recorder, and uses the
// rest for --continue, --resume, `harness sessions list|export|search|delete`.

import { join } from "node:path";
import { type AgentError, formatAgentError, ok, type Result } from "../errors.ts";
import { dataDir } from "../config/folders.ts";
import type { EventLog } from "./log_writer.ts";
import { openDatabase } from "./schema.ts";
import type { SessionStore } from "./session_store_types.ts";
import { SqliteSessionStore } from "./sqlite_session_store.ts";

/** Options for {@linkcode openSessionStore}. */
export interface SessionStoreOptions {
  /** The database file (default `$XDG_DATA_HOME/harness/harness.db`). */
  path?: string;
  /** Environment for the default path (default: the process environment). */
  env?: Record<string, string>;
  /** "FULL" (default) survives power loss; "NORMAL" only survives a process crash. */
  synchronous?: "FULL" | "NORMAL";
  /** Told once per writer when a write fails (default: printed to stderr). */
  onWriteError?: (error: AgentError) => void;
  /**
   * Told what the user should know about the file as it opens (an empty database file, which
   * SQLite would silently treat as a new log); default: printed to stderr.
   */
  onNotice?: (message: string) => void;
  clock?: () => Date;
  newId?: () => string;
}

/**
 * The default database file: `$XDG_DATA_HOME/harness/harness.db`, else
 * `~/.local/share/harness/harness.db`.
 *
 * @param env The environment.
 * @returns The path.
 *
 * @example
 * ```ts
 * import { defaultSessionDatabasePath } from "./open_session_store.ts";
 * const p = defaultSessionDatabasePath({ XDG_DATA_HOME: "/d" });
 * if (p.replaceAll("\\", "/") !== "/d/harness/harness.db") throw new Error(p);
 * ```
 */
export function defaultSessionDatabasePath(env: Record<string, string | undefined>): string {
  return join(dataDir(env), "harness.db");
}

/**
 * Opens the session database, creating it and migrating its schema as needed.
 *
 * @param options Path (or env for the default path) and seams.
 * @returns The store, or a `session_store` error naming the file and what to do.
 *
 * @example
 * ```ts
 * import { openSessionStore } from "./open_session_store.ts";
 * const dir = Deno.makeTempDirSync();
 * const store = openSessionStore({ path: `${dir}/harness.db` });
 * if (!store.ok) throw new Error();
 * const writer = store.value.startSession({
 *   model: "m", baseUrl: "http://x", cwd: "/p", grants: "", provider: "openai",
 * });
 * if (!writer.ok) throw new Error();
 * writer.value.record({ type: "message", message: { kind: "user", content: "hi" } });
 * const loaded = store.value.loadSession(writer.value.id ?? "");
 * if (!loaded.ok || loaded.value.messages[0]?.content !== "hi") throw new Error();
 * store.value.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function openSessionStore(
  options: SessionStoreOptions = {},
): Result<SessionStore, AgentError> {
  const path = options.path ?? defaultSessionDatabasePath(options.env ?? Deno.env.toObject());
  const empty = isEmptyFile(path);
  const db = openDatabase(path, options.synchronous ? { synchronous: options.synchronous } : {});
  if (!db.ok) return db;
  if (empty) {
    (options.onNotice ?? ((message) => console.error(`Warning: ${message}`)))(
      `The session database "${path}" was an empty file (0 bytes), so harness starts a new ` +
        "session log in it: sessions recorded there before are gone (restore the file from a " +
        "backup to get them back)",
    );
  }
  const log: EventLog = {
    path,
    db: db.value,
    clock: options.clock ?? (() => new Date()),
    onWriteError: options.onWriteError ??
      ((error) => console.error(`Warning ${formatAgentError(error)}`)),
  };
  return ok(new SqliteSessionStore(log, options.newId ?? (() => crypto.randomUUID())));
}

/** Whether `path` is an existing file of 0 bytes (a new database file does not exist yet). */
function isEmptyFile(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && info.size === 0;
  } catch {
    return false;
  }
}
