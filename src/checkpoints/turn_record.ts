// The record of one turn's file changes, as the session log keeps it: the files its own calls
// changed, each with its state before and after (file_state.ts), the commands that ran, and
// whether the turn is still open (a record is logged before its first change and again as it
// goes, so a turn cut short by kill -9 can still be undone) or its checkpoint failed. Records
// of an older harness name two snapshots of the whole workspace instead of states.

import type { FileState } from "./file_state.ts";

/** One turn that changed files, as the session log keeps it. */
export interface TurnCheckpoint {
  /** Names the turn: every record logged while it runs carries it, and the last one counts. */
  turn?: string;
  /** Messages the conversation held before this turn's user message; -1 after a compaction. */
  messageCount: number;
  /** The start of the user's message, for lists. */
  prompt: string;
  /** When the turn started (epoch ms): folders made since, left empty by a restore, go. */
  started?: number;
  /** Workspace-relative paths the turn's calls changed. */
  files: string[];
  /** Each file's state before the turn changed it, and after it: `[before, after]`. */
  states?: Record<string, [FileState, FileState]>;
  /**
   * Calls that ran a command (or did not say which files they write): the files they changed
   * are what changed in the folder while they ran, whoever changed it.
   */
  commands?: string[];
  /**
   * Files a command changed while another session worked in the folder: they may hold that
   * session's work, so a restore asks before it puts them back.
   */
  shared?: string[];
  /** The turn had not ended when this was logged (it may have been cut short). */
  open?: boolean;
  /** Why this turn's checkpoint failed: its files cannot be put back. */
  failed?: string;
  /** An older record: the snapshot of the whole workspace before the turn's first change. */
  before?: string;
  /** An older record: the snapshot when the turn ended. */
  after?: string;
  /** The files were restored (by /undo or /rewind). */
  undone?: boolean;
}

/** What checkpoints tell the conversation (recorded in the session log, shown to the user). */
export type CheckpointEvent =
  | { type: "checkpoint"; checkpoint: TurnCheckpoint }
  | {
    type: "files_restored";
    /** The turns undone (their ids), newest first. */
    turns: string[];
    /** A commit of the workspace's files as they were just before the restore. */
    saved: string;
    restored: string[];
    /** Files the user had changed and chose to keep. */
    kept: string[];
    /** Files the turns created, removed. */
    removed?: string[];
    /** Files left as they were, with why. */
    left?: { path: string; why: string }[];
  };

/**
 * How a record is named in `files_restored`: its turn id, or an older record's snapshot.
 *
 * @example
 * ```ts
 * import { recordId } from "./turn_record.ts";
 * if (recordId({ turn: "t1", messageCount: 1, prompt: "", files: [] }) !== "t1") throw new Error();
 * ```
 */
export function recordId(record: TurnCheckpoint): string {
  return record.turn ?? record.before ?? "";
}

/**
 * Adds a logged record: it replaces the earlier record of the same turn (a turn is logged as
 * it goes), else it is appended.
 *
 * @param records The records, changed in place.
 * @param record The logged record.
 *
 * @example
 * ```ts
 * import { addRecord, type TurnCheckpoint } from "./turn_record.ts";
 * const records: TurnCheckpoint[] = [];
 * addRecord(records, { turn: "t", messageCount: 1, prompt: "p", files: ["a"], open: true });
 * addRecord(records, { turn: "t", messageCount: 1, prompt: "p", files: ["a", "b"] });
 * if (records.length !== 1 || records[0]!.files.length !== 2) throw new Error();
 * ```
 */
export function addRecord(records: TurnCheckpoint[], record: TurnCheckpoint): void {
  const at = record.turn === undefined
    ? -1
    : records.findIndex((known) => known.turn === record.turn);
  if (at >= 0) records[at] = { ...record, ...(records[at]!.undone ? { undone: true } : {}) };
  else records.push({ ...record });
}

/**
 * Marks the records named in `ids` as undone (replay does the same with a logged
 * `files_restored`).
 *
 * @param records The records, changed in place.
 * @param ids The ids of the undone turns ({@linkcode recordId}).
 *
 * @example
 * ```ts
 * import { markUndone, type TurnCheckpoint } from "./turn_record.ts";
 * const records: TurnCheckpoint[] = [
 *   { messageCount: 1, prompt: "p", before: "a", after: "b", files: ["x"] },
 * ];
 * markUndone(records, ["a"]);
 * if (records[0]?.undone !== true) throw new Error();
 * ```
 */
export function markUndone(records: TurnCheckpoint[], ids: readonly string[]): void {
  for (const record of records) if (ids.includes(recordId(record))) record.undone = true;
}

/**
 * The line a front end shows for a turn's record: how many files, which, and that a command
 * ran when one did.
 *
 * @example
 * ```ts
 * import { recordLine } from "./turn_record.ts";
 * const line = recordLine({ messageCount: 1, prompt: "", files: ["a.ts"], commands: ["run_command: make"] });
 * if (!line.startsWith("Changed 1 file: a.ts") || !line.includes("a command ran")) throw new Error(line);
 * ```
 */
export function recordLine(record: TurnCheckpoint): string {
  const { files } = record;
  const named = files.slice(0, 3).join(", ");
  const more = files.length > 3 ? ` and ${files.length - 3} more` : "";
  const command = record.commands?.length
    ? "; a command ran, so they include whatever changed in the folder while it ran"
    : "";
  return `Changed ${files.length} file${files.length === 1 ? "" : "s"}: ${named}${more} ` +
    `(/undo puts them back${command})`;
}
