// The session log writer: the loop-event sink that appends one row per event, synchronously,
// before the loop takes its next step (so a tool_call is on disk before the tool runs, and
// a crash leaves it visible). It only inserts; it never updates or deletes a row. A session
// ended while calls are still open (SIGTERM, SIGHUP) first answers each `interrupted`, as a
// resume would, so every call in a closed session has exactly one result.

import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { AgentError } from "../errors.ts";
import type { LoopEvent } from "../agent/loop_events.ts";
import type { SessionRecorder } from "../agent/session_recorder.ts";
import { messageImages, toolResultMessage } from "../messages.ts";
import { interruptedResult, type UnansweredCall } from "./replay.ts";
import { describe } from "./schema.ts";
import {
  eventFromLoopEvent,
  eventFromMessage,
  subagentOf,
  type UnstampedEvent,
} from "./session_events.ts";
import { storeImages } from "./image_store.ts";

/** Records one session's events. Implements the loop's SessionRecorder seam. */
export interface SessionLogWriter extends SessionRecorder {
  /** The session id (null for the --no-session writer). */
  readonly id: string | null;
  /**
   * Persists a loop event: messages (user, assistant, tool_call, tool_result),
   * permission_decided, tool_started, limit_reached, state_changed and done. Deltas,
   * turn starts, usage (the assistant message carries it) and warnings are not kept.
   */
  record(event: LoopEvent): void;
  /** Records that the user cleared the conversation (/clear); resume then starts empty. */
  recordCleared(): void;
  /**
   * Records `session_ended` (once), after an `interrupted` result for each call still open.
   * The session can still be resumed and appended to.
   */
  end(): void;
}

/** The database side shared by the store and its writers. */
export interface EventLog {
  readonly path: string;
  readonly db: DatabaseSync;
  readonly clock: () => Date;
  /** Called once per writer on the first failed write (disk full, database closed). */
  readonly onWriteError: (error: AgentError) => void;
}

/**
 * Appends one event to a session (one autocommit INSERT: durable when it returns).
 *
 * @param log The open event log.
 * @param sessionId The session.
 * @param event The event to stamp and append.
 * @returns The event's sequence number.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./schema.ts";
 * import { appendEvent } from "./log_writer.ts";
 * const dir = Deno.makeTempDirSync();
 * const db = openDatabase(`${dir}/h.db`);
 * if (!db.ok) throw new Error();
 * db.value.exec("INSERT INTO sessions VALUES ('s1', 't', '/p', 'm', 'u', '', '')");
 * const log = { path: `${dir}/h.db`, db: db.value, clock: () => new Date(), onWriteError() {} };
 * const seq = appendEvent(log, "s1", { type: "user_message", payload: { content: "hi" } });
 * if (seq < 1) throw new Error();
 * db.value.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function appendEvent(log: EventLog, sessionId: string, event: UnstampedEvent): number {
  const result = insertStatement(log).run(
    sessionId,
    event.type,
    log.clock().toISOString(),
    JSON.stringify(event.payload),
  );
  return Number(result.lastInsertRowid);
}

const statements = new WeakMap<DatabaseSync, StatementSync>();

function insertStatement(log: EventLog): StatementSync {
  let statement = statements.get(log.db);
  if (!statement) {
    statement = log.db.prepare(
      "INSERT INTO events (session_id, type, at, payload) VALUES (?, ?, ?, ?)",
    );
    statements.set(log.db, statement);
  }
  return statement;
}

/**
 * A writer appending to an existing session.
 *
 * @param log The open event log.
 * @param sessionId The session to append to.
 * @returns The writer.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./schema.ts";
 * import { createLogWriter } from "./log_writer.ts";
 * const dir = Deno.makeTempDirSync();
 * const db = openDatabase(`${dir}/h.db`);
 * if (!db.ok) throw new Error();
 * db.value.exec("INSERT INTO sessions VALUES ('s1', 't', '/p', 'm', 'u', '', '')");
 * const log = { path: `${dir}/h.db`, db: db.value, clock: () => new Date(), onWriteError() {} };
 * const writer = createLogWriter(log, "s1");
 * writer.record({ type: "message", message: { kind: "user", content: "hi" } });
 * writer.end();
 * db.value.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function createLogWriter(log: EventLog, sessionId: string): SessionLogWriter {
  let failed = false;
  let ended = false;
  /** Calls logged without a result yet, and calls end() answered (a late result is dropped). */
  const open = new Map<string, UnansweredCall>();
  const answered = new Set<string>();
  const write = (event: UnstampedEvent, images: Parameters<typeof storeImages>[1] = []) => {
    try {
      // The bytes first: an event never names an image the log does not hold.
      if (images.length > 0) storeImages(log.db, images);
      appendEvent(log, sessionId, event);
    } catch (error) {
      // The loop must go on (the user's work matters more than its log), but say so once.
      if (failed) return;
      failed = true;
      log.onWriteError({
        kind: "session_store",
        file: log.path,
        action: "write",
        reason: `${describe(error)}: this session is no longer being recorded; ` +
          `${writeAdvice(describe(error))}, then resume with --resume ${sessionId}`,
      });
    }
  };
  const track = (event: UnstampedEvent): boolean => {
    switch (event.type) {
      case "tool_call_requested":
        open.set(event.payload.callId, {
          callId: event.payload.callId,
          name: event.payload.name,
          started: false,
        });
        return true;
      case "tool_started": {
        const call = open.get(event.payload.callId);
        if (call) call.started = true;
        return true;
      }
      case "tool_call_finished":
        open.delete(event.payload.callId);
        return !answered.has(event.payload.callId);
      case "conversation_cleared":
      case "conversation_compacted":
        open.clear();
        return true;
      default:
        return true;
    }
  };
  return {
    id: sessionId,
    record(event) {
      const logged = eventFromLoopEvent(event);
      // A subagent's calls are its own: the session's open calls are the session's.
      if (logged && (subagentOf(logged) !== undefined || track(logged))) {
        write(logged, event.type === "message" ? messageImages(event.message) : []);
      }
    },
    recordCleared() {
      track({ type: "conversation_cleared", payload: {} });
      write({ type: "conversation_cleared", payload: {} });
    },
    end() {
      if (ended) return;
      ended = true;
      for (const call of open.values()) {
        answered.add(call.callId);
        const result = interruptedResult(call, log.clock());
        write(eventFromMessage(toolResultMessage(call.callId, call.name, result)));
      }
      open.clear();
      write({ type: "session_ended", payload: {} });
    },
  };
}

/**
 * What to do after a failed write: free disk space only when the error says the disk is full
 * (or failing); a closed or locked database is not a full disk.
 *
 * @param message The error's message.
 * @returns Advice, lower case, for after a colon.
 *
 * @example
 * ```ts
 * import { writeAdvice } from "./log_writer.ts";
 * if (!writeAdvice("database or disk is full").includes("disk space")) throw new Error();
 * if (writeAdvice("database is not open").includes("disk")) throw new Error();
 * ```
 */
export function writeAdvice(message: string): string {
  return /full|no space|disk i\/o|too large|quota/i.test(message)
    ? "free disk space or check the file"
    : "check the file";
}
