// The SQLite implementation of SessionStore: summaries, prefix lookup, resume with
// recovery of calls left open by a crash, export, search and delete. Reads and writes
// that fail (a corrupt page, a full disk) come back as `session_store` errors.

import type { DatabaseSync } from "node:sqlite";
import { type AgentError, err, ok, type Result } from "../errors.ts";
import { type Message, toolResultMessage } from "../messages.ts";
import { eventToJsonl, importJsonl } from "./jsonl.ts";
import {
  appendEvent,
  createLogWriter,
  type EventLog,
  type SessionLogWriter,
  writeAdvice,
} from "./log_writer.ts";
import {
  hasMessageIndex,
  queryEvents,
  querySearch,
  querySessions,
  type SessionSummary,
} from "./query_sessions.ts";
import { type ImageLookup, interruptedResult, replayEvents } from "./replay.ts";
import { loadImage } from "./image_store.ts";
import { describe } from "./schema.ts";
import { claimSession, removeSessionLock, type SessionLock } from "./session_lock.ts";
import { eventFromMessage, type SessionEvent, type SessionStartInfo } from "./session_events.ts";
import { type ImportOutcome, storeImportedSession } from "./import_store.ts";
import type { ImportedSession } from "./transcripts/imported_session.ts";
import type { LoadedSession, SearchResult, SessionStore } from "./session_store_types.ts";
import { queryUsageStats, type UsageStatsOptions } from "./usage_stats.ts";
import type { UsageStats } from "./usage_stats_types.ts";

/** The store over an open event log; ids for new sessions come from `newId`. */
export class SqliteSessionStore implements SessionStore {
  /** Session locks this store holds, with how many of its writers use each. */
  readonly #held = new Map<string, { lock: SessionLock; users: number }>();
  /** The first failed write (see `unsaved`). */
  #unsaved: AgentError | undefined;
  /** The log its writers append through: their failures are noted here, then reported. */
  readonly #writerLog: EventLog;

  constructor(readonly log: EventLog, readonly newId: () => string) {
    this.#writerLog = {
      ...log,
      onWriteError: (error) => {
        this.#unsaved ??= error;
        log.onWriteError(error);
      },
    };
  }

  /** Takes session `id`'s lock for one writer; false when another process holds it. */
  #claim(id: string): boolean {
    const held = this.#held.get(id);
    if (held) {
      held.users++;
      return true;
    }
    const lock = claimSession(this.log.path, id);
    if (lock === undefined) return false;
    this.#held.set(id, { lock, users: 1 });
    return true;
  }

  #unclaim(id: string): void {
    const held = this.#held.get(id);
    if (!held || --held.users > 0) return;
    this.#held.delete(id);
    held.lock.release();
  }

  /** A writer for `id` that gives the session's lock back when it ends. */
  #writer(id: string): SessionLogWriter {
    const writer = createLogWriter(this.#writerLog, id);
    let ended = false;
    return {
      id: writer.id,
      record: (event) => writer.record(event),
      recordCleared: () => writer.recordCleared(),
      end: () => {
        writer.end();
        if (ended) return;
        ended = true;
        this.#unclaim(id);
      },
    };
  }

  get path(): string {
    return this.log.path;
  }

  /** Finds a logged image's bytes (replay brings a resumed session's images back). */
  readonly #images: ImageLookup = (ref) => loadImage(this.#db, ref);

  get #db(): DatabaseSync {
    return this.log.db;
  }

  startSession(info: SessionStartInfo, id = this.newId()): Result<SessionLogWriter, AgentError> {
    const at = this.log.clock().toISOString();
    const written = this.#write(() => {
      this.#db.prepare(
        "INSERT INTO sessions (id, started_at, cwd, model, base_url, grants, provider) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).run(id, at, info.cwd, info.model, info.baseUrl, info.grants, info.provider);
      appendEvent(this.log, id, { type: "session_started", payload: { ...info } });
    });
    if (!written.ok) return written;
    this.#claim(id);
    return ok(this.#writer(id));
  }

  usageStats(options: UsageStatsOptions = {}): Result<UsageStats, AgentError> {
    return this.#read(() => queryUsageStats(this.#db, options));
  }

  listSessions(
    options: { cwd?: string; limit?: number; withUserMessage?: boolean } = {},
  ): Result<SessionSummary[], AgentError> {
    return this.#read(() => querySessions(this.#db, options));
  }

  latestSession(cwd: string): Result<SessionSummary | undefined, AgentError> {
    return this.#read(() => querySessions(this.#db, { cwd, withUserMessage: true, limit: 1 })[0]);
  }

  findSession(idOrPrefix: string): Result<SessionSummary, AgentError> {
    const wanted = idOrPrefix.trim();
    if (wanted === "") return err({ kind: "usage", message: "Give a session id" });
    const read = this.#read(() => querySessions(this.#db, { idPrefix: wanted, limit: 6 }));
    if (!read.ok) return read;
    const matches = read.value;
    const exact = matches.find((session) => session.id === wanted);
    if (exact) return ok(exact);
    const [only, ...others] = matches;
    if (!only) {
      return err({
        kind: "usage",
        message: `No session matches "${wanted}": run "harness sessions list" to see the ids`,
      });
    }
    if (others.length > 0) {
      const ids = matches.slice(0, 5).map((session) => session.id).join(", ");
      return err({
        kind: "usage",
        message: `Session id prefix "${wanted}" is ambiguous (${ids}${
          matches.length > 5 ? ", ..." : ""
        }): give more characters`,
      });
    }
    return ok(only);
  }

  loadSession(idOrPrefix: string): Result<LoadedSession, AgentError> {
    const found = this.findSession(idOrPrefix);
    if (!found.ok) return found;
    const id = found.value.id;
    // Another process has this session open: its calls may still be running, so nothing is
    // recovered or appended here; the conversation continues in a copy with a new id.
    if (!this.#claim(id)) return this.#fork(found.value);
    // Read and recover under the write lock, so two resuming processes cannot both
    // answer the same call.
    const loaded = this.#write(() => {
      const { events, skipped } = queryEvents(this.#db, id);
      const replayed = replayEvents(events, this.#images);
      const now = this.log.clock();
      for (const call of replayed.unanswered) {
        const message = toolResultMessage(call.callId, call.name, interruptedResult(call, now));
        const event = eventFromMessage(message);
        const seq = appendEvent(this.log, id, event);
        events.push({ ...event, seq, at: now.toISOString() } as (typeof events)[number]);
      }
      return {
        replayed: replayEvents(events, this.#images),
        unanswered: replayed.unanswered,
        skipped,
      };
    });
    if (!loaded.ok) {
      this.#unclaim(id);
      return loaded;
    }
    const { replayed, unanswered, skipped } = loaded.value;
    return ok({
      info: found.value,
      messages: replayed.messages,
      state: replayed.state,
      interrupted: unanswered.map(({ callId, name }) => ({ callId, name })),
      writer: this.#writer(id),
      skippedRows: skipped,
      checkpoints: replayed.checkpoints,
    });
  }

  /** Copies a session open elsewhere into a new one (calls still open there are answered
   * `interrupted` in the copy only) and returns the copy to continue. */
  #fork(original: SessionSummary): Result<LoadedSession, AgentError> {
    const read = this.#read(() => queryEvents(this.#db, original.id));
    if (!read.ok) return read;
    const replayed = replayEvents(read.value.events, this.#images);
    const now = this.log.clock();
    const answers = replayed.unanswered.map((call) =>
      toolResultMessage(call.callId, call.name, interruptedResult(call, now))
    );
    const messages = answers.length === 0 ? replayed.messages : replayEvents([
      ...read.value.events,
      ...answers.map((message, index) => ({
        ...eventFromMessage(message),
        seq: Number.MAX_SAFE_INTEGER - answers.length + index,
        at: now.toISOString(),
      } as (typeof read.value.events)[number])),
    ], this.#images).messages;
    const { cwd, model, baseUrl, grants, provider } = original;
    const started = this.startSession({ cwd, model, baseUrl, grants, provider });
    if (!started.ok) return started;
    const writer = started.value;
    for (const message of messages) writer.record({ type: "message", message });
    if (Object.keys(replayed.state).length > 0) {
      writer.record({ type: "state_changed", state: replayed.state });
    }
    // The copy can undo what the original's turns changed (their `undone` marks come along).
    for (const checkpoint of replayed.checkpoints) {
      writer.record({ type: "checkpoint", checkpoint });
    }
    return ok({
      info: { ...original, id: writer.id! },
      messages,
      state: replayed.state,
      interrupted: replayed.unanswered.map(({ callId, name }) => ({ callId, name })),
      writer,
      skippedRows: read.value.skipped,
      forkedFrom: original.id,
      checkpoints: replayed.checkpoints,
    });
  }

  exportSession(idOrPrefix: string, write: (line: string) => void): Result<number, AgentError> {
    const read = this.readSession(idOrPrefix);
    if (!read.ok) return read;
    const { info, events } = read.value;
    // `seq` counts within the session: the log's own row numbers never leave it.
    events.forEach((event, index) => write(eventToJsonl(info.id, { ...event, seq: index + 1 })));
    return ok(events.length);
  }

  readSession(
    idOrPrefix: string,
  ): Result<{ info: SessionSummary; events: SessionEvent[] }, AgentError> {
    const found = this.findSession(idOrPrefix);
    if (!found.ok) return found;
    const read = this.#read(() => queryEvents(this.#db, found.value.id).events);
    if (!read.ok) return read;
    const events = read.value.map(({ seq: _seq, ...event }) => event as SessionEvent);
    return ok({ info: found.value, events });
  }

  importSession(session: ImportedSession): Result<ImportOutcome, AgentError> {
    return this.#write(() => storeImportedSession(this.#db, session, this.newId));
  }

  importJsonl(text: string): Result<Message[], AgentError> {
    return importJsonl(text);
  }

  searchSessions(text: string, options: { limit?: number } = {}): Result<SearchResult, AgentError> {
    return this.#read(() => ({
      hits: querySearch(this.#db, text, options.limit ?? 50),
      engine: hasMessageIndex(this.#db) ? "fts5" : "substring",
    }));
  }

  async deleteSession(
    idOrPrefix: string,
    options: { confirm: (session: SessionSummary) => boolean | Promise<boolean> },
  ): Promise<Result<boolean, AgentError>> {
    const found = this.findSession(idOrPrefix);
    if (!found.ok) return found;
    if (!(await options.confirm(found.value))) return ok(false);
    const lock = claimSession(this.log.path, found.value.id);
    if (lock === undefined && !this.#held.has(found.value.id)) {
      return err({
        kind: "usage",
        message: `Session "${found.value.id}" is open in another harness process: ` +
          "end it there (/exit), then delete it",
      });
    }
    lock?.release();
    const deleted = this.#write(() => {
      this.#db.prepare("DELETE FROM events WHERE session_id = ?").run(found.value.id);
      this.#db.prepare("DELETE FROM sessions WHERE id = ?").run(found.value.id);
    });
    if (!deleted.ok) return deleted;
    removeSessionLock(this.log.path, found.value.id);
    return ok(true);
  }

  unsaved(): AgentError | undefined {
    return this.#unsaved;
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  /** Runs a query; a failure (a corrupt page, a closed store) becomes a `session_store` error. */
  #read<T>(body: () => T): Result<T, AgentError> {
    try {
      return ok(body());
    } catch (error) {
      return err(this.#failure("read", error));
    }
  }

  #failure(action: "read" | "write", error: unknown): AgentError {
    const message = describe(error);
    const fix = /malformed|not a database|corrupt/i.test(message)
      ? "move it aside (sqlite3's .recover may save its sessions) or run with --no-session"
      : action === "write"
      ? `${writeAdvice(message)}, or run with --no-session`
      : "check the file, or run with --no-session";
    return { kind: "session_store", file: this.log.path, action, reason: `${message}: ${fix}` };
  }

  /** Runs `body` in one write transaction; a failure becomes a `session_store` error. */
  #write<T>(body: () => T): Result<T, AgentError> {
    try {
      this.#db.exec("BEGIN IMMEDIATE");
      try {
        const value = body();
        this.#db.exec("COMMIT");
        return ok(value);
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
        throw error;
      }
    } catch (error) {
      const failure = this.#failure("write", error);
      this.#unsaved ??= failure;
      return err(failure);
    }
  }
}
