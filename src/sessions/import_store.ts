// Writes an imported session into the log: its sessions row and its events with the times the
// transcript gives them, in one transaction. Importing is idempotent: harness's own export keeps
// its session id (the same id already in the log is the same session), and another agent's
// transcript is known by its agent and id (importedFrom in session_started). An inert event
// (an export's system prompt and checkpoints) is stored as a record only (events.inert).

import type { DatabaseSync } from "node:sqlite";
import type { ImportedSession } from "./transcripts/imported_session.ts";
import { payloadField } from "./schema.ts";

/** What storing an imported session did. */
export interface ImportOutcome {
  /** The harness session id. */
  id: string;
  /** True when the log already held it: nothing was written. */
  existing: boolean;
}

/**
 * Stores an imported session unless the log already has it. Runs inside the caller's
 * transaction.
 *
 * @param db The open session database.
 * @param session The session (session_started first).
 * @param newId Makes the id of a session that does not keep its own.
 * @returns Its id, and whether it was there already.
 */
export function storeImportedSession(
  db: DatabaseSync,
  session: ImportedSession,
  newId: () => string,
): ImportOutcome {
  const known = session.keepId ?? existingImport(db, session);
  if (known !== undefined) {
    const found = db.prepare("SELECT 1 AS x FROM sessions WHERE id = ?").get(known);
    if (found !== undefined) return { id: known, existing: true };
  }
  const id = session.keepId ?? newId();
  const started = session.events[0];
  if (started?.type !== "session_started") throw new Error("session_started must come first");
  const info = started.payload;
  db.prepare(
    "INSERT INTO sessions (id, started_at, cwd, model, base_url, grants, provider) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?)",
  ).run(id, started.at, info.cwd, info.model, info.baseUrl, info.grants, info.provider);
  const insert = db.prepare(
    "INSERT INTO events (session_id, type, at, payload, inert) VALUES (?, ?, ?, ?, ?)",
  );
  for (const event of session.events) {
    insert.run(id, event.type, event.at, JSON.stringify(event.payload), event.inert ? 1 : 0);
  }
  return { id, existing: false };
}

/** The session an earlier import of the same transcript made, if any. */
function existingImport(db: DatabaseSync, session: ImportedSession): string | undefined {
  const row = db.prepare(
    `SELECT session_id FROM events WHERE type = 'session_started'
       AND ${payloadField("$.importedFrom.agent")} = ? AND ${payloadField("$.importedFrom.id")} = ?
     ORDER BY seq LIMIT 1`,
  ).get(session.source.agent, session.source.id);
  return typeof row?.session_id === "string" ? row.session_id : undefined;
}
