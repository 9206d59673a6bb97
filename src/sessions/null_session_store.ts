// The session store of --no-session: the same interface as the SQLite store
// (open_session_store.ts), records nothing and lists nothing. A file of its own, so a run
// without sessions never loads SQLite.

import { type AgentError, err, ok } from "../errors.ts";
import type { SessionLogWriter } from "./log_writer.ts";
import type { SessionStore } from "./session_store_types.ts";

/**
 * The store for --no-session: the same interface, records nothing, lists nothing.
 *
 * @returns A store whose writers drop every event.
 *
 * @example
 * ```ts
 * import { createNullSessionStore } from "./null_session_store.ts";
 * const store = createNullSessionStore();
 * const writer = store.startSession({ model: "m", baseUrl: "u", cwd: "/", grants: "", provider: "" });
 * if (!writer.ok || writer.value.id !== null) throw new Error();
 * ```
 */
export function createNullSessionStore(): SessionStore {
  const off = () =>
    err<AgentError>({
      kind: "usage",
      message: "Sessions are off (--no-session): run without --no-session to use them",
    });
  return {
    path: null,
    startSession: () => ok(NULL_LOG_WRITER),
    listSessions: () => ok([]),
    latestSession: () => ok(undefined),
    findSession: off,
    loadSession: off,
    exportSession: off,
    readSession: off,
    // Off too: its parser (jsonl.ts, with the replay) is not worth loading for a -p run.
    importJsonl: off,
    importSession: off,
    searchSessions: () => ok({ hits: [], engine: "none" }),
    usageStats: off,
    deleteSession: () => Promise.resolve(off()),
    unsaved: () => undefined,
    close() {},
  };
}

/**
 * The log of a session that is not recorded: it keeps nothing. Here, not in log_writer.ts,
 * whose SQLite imports a --no-session run would otherwise load.
 */
const NULL_LOG_WRITER: SessionLogWriter = { id: null, record() {}, recordCleared() {}, end() {} };
