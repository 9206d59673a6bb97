// The session store's public types: the SessionStore interface the CLI and REPL use, a
// loaded session for resuming, and search results. Implemented by the SQLite store
// (sqlite_session_store.ts) and the --no-session store (session_store.ts).

import type { AgentError, Result } from "../errors.ts";
import type { Message } from "../messages.ts";
import type { SessionLogWriter } from "./log_writer.ts";
import type { SearchHit, SessionSummary } from "./query_sessions.ts";
import type { SessionEvent, SessionStartInfo } from "./session_events.ts";
import type { ImportOutcome } from "./import_store.ts";
import type { ImportedSession } from "./transcripts/imported_session.ts";
import type { UsageStatsOptions } from "./usage_stats.ts";
import type { UsageStats } from "./usage_stats_types.ts";
import type { TurnCheckpoint } from "../checkpoints/turn_checkpoints.ts";

/** A session loaded for resuming. */
export interface LoadedSession {
  info: SessionSummary;
  /** Exactly the canonical messages the conversation had, every tool call answered. */
  messages: Message[];
  /** The conversation state (tasks) from the last `state_changed`. */
  state: Record<string, unknown>;
  /** Calls the harness stopped during; an `interrupted` result was appended for each. */
  interrupted: { callId: string; name: string }[];
  /** Appends to the same session (resuming continues its id). */
  writer: SessionLogWriter;
  /** Rows that could not be read (unknown type, broken JSON) and were left out. */
  skippedRows: number;
  /** The turns that changed files (for /undo and /rewind after the resume). */
  checkpoints: TurnCheckpoint[];
  /**
   * Set when the session was open in another process: `info.id` and `writer` are then a new
   * session holding a copy of the messages, and this is the id of the one that was asked for.
   */
  forkedFrom?: string;
}

/** What {@linkcode SessionStore.searchSessions} found and how. */
export interface SearchResult {
  hits: SearchHit[];
  /** "fts5" (words, any order), "substring" (no FTS5 index) or "none" (--no-session). */
  engine: "fts5" | "substring" | "none";
}

/** The session log. Read methods take an id or a unique id prefix. */
export interface SessionStore {
  /** The database file, or null for the --no-session store. */
  readonly path: string | null;
  /**
   * Starts a session (writes session_started) and returns its writer. `id` is the one the
   * banner already showed; by default the store makes one.
   */
  startSession(info: SessionStartInfo, id?: string): Result<SessionLogWriter, AgentError>;
  /** Sessions, most recently active first (`withUserMessage`: only those the user spoke in). */
  listSessions(
    options?: { cwd?: string; limit?: number; withUserMessage?: boolean },
  ): Result<SessionSummary[], AgentError>;
  /**
   * The most recently active session started in `cwd` in which the user said something (for
   * --continue): a REPL opened and closed without a message is not what a user continues.
   */
  latestSession(cwd: string): Result<SessionSummary | undefined, AgentError>;
  /** The session with this id or unique id prefix (for --resume ID). */
  findSession(idOrPrefix: string): Result<SessionSummary, AgentError>;
  /** Loads a session to resume it, first appending `interrupted` results for unanswered calls. */
  loadSession(idOrPrefix: string): Result<LoadedSession, AgentError>;
  /**
   * Writes the session as JSONL, one line per call of `write`; returns the line count. The
   * lines hold nothing of this log's own (`seq` counts the session's events from 1), so
   * importing them into any log and exporting again gives the same bytes.
   */
  exportSession(idOrPrefix: string, write: (line: string) => void): Result<number, AgentError>;
  /** A session's summary and its events in log order (`harness sessions export --format md`). */
  readSession(
    idOrPrefix: string,
  ): Result<{ info: SessionSummary; events: SessionEvent[] }, AgentError>;
  /** Exported JSONL back into canonical messages. */
  importJsonl(text: string): Result<Message[], AgentError>;
  /**
   * Stores a session read from a transcript (`harness sessions import`), unless the log already
   * holds it (the same harness id, or the same agent's session id).
   */
  importSession(session: ImportedSession): Result<ImportOutcome, AgentError>;
  /** Messages containing every word of `text`, newest first. */
  searchSessions(text: string, options?: { limit?: number }): Result<SearchResult, AgentError>;
  /** Usage statistics of the sessions since a time, or of one session (`harness stats`). */
  usageStats(options?: UsageStatsOptions): Result<UsageStats, AgentError>;
  /** Deletes one session after `confirm` says yes; resolves to whether it was deleted. */
  deleteSession(
    idOrPrefix: string,
    options: { confirm: (session: SessionSummary) => boolean | Promise<boolean> },
  ): Promise<Result<boolean, AgentError>>;
  /**
   * The first write of this run that failed (a session that could not start, or an event a
   * writer could not append): the log then misses what followed. Undefined while all is saved.
   */
  unsaved(): AgentError | undefined;
  close(): void;
}
