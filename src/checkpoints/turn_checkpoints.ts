// The checkpoints of one conversation: before the first call of a turn that may change files,
// a snapshot of the workspace; when the turn ends, another; a turn that changed files gives a
// record (where its user message sits, both snapshots, the files) for the conversation to log.
// Snapshots are taken while the model works where they can be, so a call rarely waits for one.
// /undo and /rewind plan a restore from the records and show the files the user changed
// meanwhile as conflicts; nothing of theirs is overwritten unless they say so.

import type { CheckpointRepo, SkippedPath } from "./checkpoint_repo.ts";

/** One turn that changed files, as the session log keeps it. */
export interface TurnCheckpoint {
  /** Messages the conversation held before this turn's user message; -1 after a compaction. */
  messageCount: number;
  /** The start of the user's message, for lists. */
  prompt: string;
  /** Snapshot before the turn's first change. */
  before: string;
  /** Snapshot when the turn ended. */
  after: string;
  /** Workspace-relative paths the turn changed. */
  files: string[];
  /** The files were restored to `before` (by /undo or /rewind). */
  undone?: boolean;
}

/** What checkpoints tell the conversation (recorded in the session log, shown to the user). */
export type CheckpointEvent =
  | { type: "checkpoint"; checkpoint: TurnCheckpoint }
  | {
    type: "files_restored";
    /** `before` snapshots of the turns undone, newest first. */
    turns: string[];
    /** The snapshot the files were restored from. */
    to: string;
    /** The workspace as it was just before the restore (so it can be looked up later). */
    saved: string;
    restored: string[];
    /** Files the user had changed and chose to keep. */
    kept: string[];
  };

/** A restore to be confirmed: what it would write, and what the user changed meanwhile. */
export interface RestorePlan {
  /** The turns it undoes, newest first. */
  turns: TurnCheckpoint[];
  /** The snapshot files go back to (the oldest turn's `before`). */
  to: string;
  /** Every path the turns changed. */
  paths: string[];
  /** Paths the user changed after a turn changed them: kept unless they say overwrite. */
  conflicts: string[];
  /** The workspace now, snapshotted before anything is written. */
  saved: string;
}

/** How a restore ended: the event to log, or why nothing was restored. */
export type RestoreOutcome =
  | { event: Extract<CheckpointEvent, { type: "files_restored" }> }
  | { error: string };

/** How a conversation's checkpoints reach the repository. */
export interface TurnCheckpointsOptions {
  /**
   * Opens the workspace's shadow repository (on the first turn that may change files), or
   * says why none is needed (nothing a turn does can change the workspace's files).
   */
  open(): Promise<CheckpointRepo | { inactive: string }>;
  /** The size limit, for the note on skipped files. */
  maxFileBytes: number;
  /** Records loaded from the session log (a resumed session). */
  records?: readonly TurnCheckpoint[];
}

interface OpenTurn {
  messageCount: number;
  prompt: string;
  before?: Promise<string | undefined>;
  /** The snapshot started with the turn, so the one before its first change finds it current. */
  early?: Promise<string | undefined>;
  /** A call that may have changed files ran since the last snapshot was started. */
  dirty: boolean;
  /** The snapshot started while the model works on its next answer. */
  after?: Promise<string | undefined>;
}

/** The checkpoints of one conversation. */
export class TurnCheckpoints {
  readonly #options: TurnCheckpointsOptions;
  #records: TurnCheckpoint[];
  #repo: Promise<CheckpointRepo | undefined> | undefined;
  #off: string | undefined;
  #turn: OpenTurn | undefined;
  /** A snapshot was taken in this conversation: the repository is open and its index current. */
  #warm = false;
  /** Lines for the user (files left out, checkpoints turned off), taken by the conversation. */
  #warnings: string[] = [];

  constructor(options: TurnCheckpointsOptions) {
    this.#options = options;
    this.#records = [...(options.records ?? [])];
  }

  /** Why checkpoints are off for this conversation, if they are. */
  get off(): string | undefined {
    return this.#off;
  }

  /** The lines for the user gathered since the last call (files left out, errors). */
  takeWarnings(): string[] {
    return this.#warnings.splice(0);
  }

  /** The turns that changed files, oldest first. */
  records(): readonly TurnCheckpoint[] {
    return this.#records;
  }

  /**
   * A turn starts (the user's message is about to be appended).
   *
   * @param messageCount Messages before the user's message.
   * @param prompt The user's message.
   */
  begin(messageCount: number, prompt: string): void {
    const turn: OpenTurn = { messageCount, prompt: firstLine(prompt), dirty: false };
    // Once the conversation has taken a snapshot, each turn takes one at once, while the model
    // works: it records the user's edits since the last turn, so the snapshot before the turn's
    // first change is usually a scan that finds nothing new. (Before that, a conversation that
    // never changes files does not hash the workspace.)
    if (this.#warm && this.#off === undefined) turn.early = this.#snapshot();
    this.#turn = turn;
  }

  /**
   * Called before each call that may change files: the first one of a turn takes the
   * snapshot the turn can be undone to; later ones wait for it. Never fails: a git error
   * turns checkpoints off with one warning.
   */
  async beforeChange(): Promise<void> {
    const turn = this.#turn;
    if (turn === undefined || this.#off !== undefined) return;
    turn.before ??= (turn.early ?? Promise.resolve(undefined)).then(() => this.#snapshot());
    await turn.before;
  }

  /** A call that may have changed files has run. */
  changed(): void {
    if (this.#turn?.before !== undefined) this.#turn.dirty = true;
  }

  /**
   * The model is asked again: after calls that may have changed files, the snapshot the turn
   * may end on is taken now, while the model works (a turn that ends here does not wait for it).
   */
  settle(): void {
    const turn = this.#turn;
    if (turn === undefined || !turn.dirty || this.#off !== undefined) return;
    turn.dirty = false;
    turn.after = this.#snapshot();
  }

  /**
   * The turn ended: when it may have changed files, a snapshot of the result (the one taken
   * while the model gave its last answer, unless a call ran after it), and the record of the
   * files it changed (for the caller to log).
   *
   * @returns The record, or undefined when the turn changed nothing.
   */
  async end(): Promise<TurnCheckpoint | undefined> {
    const turn = this.#turn;
    this.#turn = undefined;
    if (turn?.before === undefined) return undefined;
    const before = await turn.before;
    if (before === undefined) return undefined;
    const after = turn.dirty || turn.after === undefined
      ? await this.#snapshot()
      : await turn.after;
    if (after === undefined) return undefined;
    const repo = await this.#repo;
    const files = await this.#guard(() => repo!.changedPaths(before, after));
    if (files === undefined || files.length === 0) return undefined;
    const checkpoint: TurnCheckpoint = {
      messageCount: turn.messageCount,
      prompt: turn.prompt,
      before,
      after,
      files,
    };
    this.#records.push(checkpoint);
    void repo!.keep().catch(() => {});
    return checkpoint;
  }

  /**
   * Plans undoing the turns from the given one on (those not undone yet): which files go
   * back, and which the user changed after a turn did (the workspace now, and between turns).
   *
   * @param fromMessageCount The first turn to undo, by where its user message sits; "last":
   *   the latest turn not undone yet.
   * @returns The plan, or a sentence saying why there is nothing to undo.
   */
  async plan(fromMessageCount: number | "last"): Promise<RestorePlan | { error: string }> {
    if (this.#off !== undefined) return { error: `Checkpoints are off: ${this.#off}` };
    const open = this.#records.filter((record) => !record.undone);
    const turns = fromMessageCount === "last"
      ? open.slice(-1)
      : open.filter((record) => record.messageCount >= fromMessageCount);
    if (turns.length === 0) {
      return {
        error: fromMessageCount === "last"
          ? "No turn has changed files yet in this conversation (or every change was undone)"
          : "No file was changed from that turn on",
      };
    }
    const repo = await this.#openRepo();
    if (repo === undefined) return { error: `Checkpoints are off: ${this.#off}` };
    const saved = await this.#snapshot();
    if (saved === undefined) return { error: `Checkpoints are off: ${this.#off}` };
    const planned = await this.#guard(async () => {
      const paths = new Set(turns.flatMap((turn) => turn.files));
      // What changed after each turn but not by a turn: the next turn's start, or now.
      const touched = new Set<string>();
      for (const [index, turn] of turns.entries()) {
        const next = turns[index + 1]?.before ?? saved;
        for (const path of await repo.changedPaths(turn.after, next)) touched.add(path);
      }
      const conflicts = [...paths].filter((path) => touched.has(path)).sort();
      return { paths: [...paths].sort(), conflicts };
    });
    if (planned === undefined) return { error: `Checkpoints are off: ${this.#off}` };
    return { turns: [...turns].reverse(), to: turns[0]!.before, saved, ...planned };
  }

  /**
   * Carries out a plan: every path goes back, except the conflicts when `overwrite` is false.
   *
   * @param plan What {@linkcode plan} returned.
   * @param overwrite The user said to overwrite their own changes too.
   * @returns The event to log (paths restored and kept), or why nothing could be restored.
   */
  async apply(plan: RestorePlan, overwrite: boolean): Promise<RestoreOutcome> {
    const repo = await this.#openRepo();
    if (repo === undefined) return { error: `Checkpoints are off: ${this.#off}` };
    const kept = overwrite ? [] : plan.conflicts;
    const restored = plan.paths.filter((path) => !kept.includes(path));
    try {
      await repo.restore(plan.to, restored);
    } catch (error) {
      return { error: `Could not restore the files: ${(error as Error).message}` };
    }
    markUndone(this.#records, plan.turns.map((turn) => turn.before));
    return {
      event: {
        type: "files_restored",
        turns: plan.turns.map((turn) => turn.before),
        to: plan.to,
        saved: plan.saved,
        restored,
        kept,
      },
    };
  }

  /** Forgets the turns from this message on (the conversation was rewound before them). */
  forget(fromMessageCount: number): void {
    // A record detached by a compaction (-1) stays: its files can still be undone.
    this.#records = this.#records.filter((record) => record.messageCount < fromMessageCount);
  }

  /** The conversation was compacted: records keep their files but no longer a message. */
  detachMessages(): void {
    this.#records = this.#records.map((record) => ({ ...record, messageCount: -1 }));
  }

  /** Closes the repository (its snapshots stay). */
  async close(): Promise<void> {
    const repo = await this.#repo;
    await repo?.close();
  }

  #openRepo(): Promise<CheckpointRepo | undefined> {
    this.#repo ??= this.#options.open().then((opened) => {
      if (!("inactive" in opened)) return opened;
      this.#off = opened.inactive; // nothing to warn about: no turn can change a file
      return undefined;
    }, (error) => {
      this.#turnOff((error as Error).message);
      return undefined;
    });
    return this.#repo;
  }

  async #snapshot(): Promise<string | undefined> {
    const repo = await this.#openRepo();
    if (repo === undefined) return undefined;
    const snapshot = await this.#guard(() => repo.snapshot());
    if (snapshot === undefined) return undefined;
    this.#warm = true;
    for (const note of snapshot.skipped) this.#warnings.push(skippedNote(note, this.#options));
    return snapshot.commit;
  }

  /** Runs a git step; a failure turns checkpoints off (once, with a warning). */
  async #guard<T>(step: () => Promise<T>): Promise<T | undefined> {
    try {
      return await step();
    } catch (error) {
      this.#turnOff((error as Error).message);
      return undefined;
    }
  }

  #turnOff(reason: string): void {
    if (this.#off !== undefined) return;
    this.#off = reason;
    this.#warnings.push(
      `Checkpoints are off for this session: ${reason}; /undo cannot restore files changed ` +
        "from now on",
    );
  }
}

/**
 * Marks the records whose `before` snapshot is in `befores` as undone (replay does the same
 * with a logged `files_restored`).
 *
 * @param records The records, changed in place.
 * @param befores The `before` snapshots of the undone turns.
 *
 * @example
 * ```ts
 * import { markUndone, type TurnCheckpoint } from "./turn_checkpoints.ts";
 * const records: TurnCheckpoint[] = [
 *   { messageCount: 1, prompt: "p", before: "a", after: "b", files: ["x"] },
 * ];
 * markUndone(records, ["a"]);
 * if (records[0]?.undone !== true) throw new Error();
 * ```
 */
export function markUndone(records: TurnCheckpoint[], befores: readonly string[]): void {
  for (const record of records) if (befores.includes(record.before)) record.undone = true;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function skippedNote(note: SkippedPath, options: { maxFileBytes: number }): string {
  if (note.why === "repository") {
    return `Checkpoints leave out "${note.path}": it is a git repository of its own, so /undo ` +
      "cannot restore its files (commit them there)";
  }
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `Checkpoints leave out "${note.path}" (${mib(note.bytes ?? 0)}, over the ` +
    `${mib(options.maxFileBytes)} of checkpoint_max_file_size): /undo cannot restore it`;
}
