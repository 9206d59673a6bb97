// The checkpoints of one conversation. A turn's record holds only what its own calls changed:
// before a file tool writes, the state of the file it names; before a command runs, nothing
// but a mark, and after it, what changed in the folder while it ran (command_baseline.ts). The
// record is logged before the first change and after each call, so a turn cut short still
// has one; a failed snapshot spoils only its own turn. /undo and /rewind plan from the records
// (restore_plan.ts): the user's changes since are asked about, only created files are removed.

import { callChanges, type CheckpointedCall } from "./call_changes.ts";
import { fileOfArgument } from "./checkpoint_paths.ts";
import type { CommandWindow } from "./command_baseline.ts";
import { type FileState, UNKNOWN } from "./file_state.ts";
import {
  failedTurnNotes,
  planPaths,
  resolveTurn,
  type RestoreOutcome,
  type RestorePlan,
  turnNotes,
} from "./restore_plan.ts";
import { addRecord, markUndone, recordId, type TurnCheckpoint } from "./turn_record.ts";
import { type CheckpointWorkspace, RetryLater } from "./workspace_checkpoints.ts";

export type { CheckpointEvent, TurnCheckpoint } from "./turn_record.ts";
export type { RestoreOutcome, RestorePlan } from "./restore_plan.ts";

/** How a conversation's checkpoints reach the workspace's. */
export interface TurnCheckpointsOptions {
  /** The workspace's repository and baseline, or why nothing is checkpointed. */
  open(): Promise<CheckpointWorkspace | { inactive: string }>;
  /** Records loaded from the session log (a resumed session). */
  records?: readonly TurnCheckpoint[];
  /** Lines for the user at the first turn (another session working in the folder). */
  notices?: readonly string[];
  /** What closing the conversation's checkpoints also closes (a workspace of its own). */
  close?(): Promise<void>;
  /** Whether another session works in the folder now (default: none). */
  othersWorking?(): boolean;
}

/** A call that may change files, between its start and its end. */
interface OpenCall {
  paths?: string[];
  window?: CommandWindow;
  /** Another session worked in the folder when the command started. */
  shared?: boolean;
}

/** The turn being recorded. */
interface OpenTurn {
  id: string;
  started: number;
  messageCount: number;
  prompt: string;
  /** Path -> [before, after]; "cut-short" after while a call changing it runs. */
  states: Map<string, [FileState, FileState]>;
  commands: string[];
  /** Paths a command changed while another session worked in the folder. */
  shared: Set<string>;
  calls: Map<string, OpenCall>;
  failed?: string;
  /** A record of it was handed out to be logged. */
  logged: boolean;
}

/** The checkpoints of one conversation. */
export class TurnCheckpoints {
  readonly #options: TurnCheckpointsOptions;
  #records: TurnCheckpoint[] = [];
  #off: string | undefined;
  #turn: OpenTurn | undefined;
  #warnings: string[];
  #failures: string[] = [];
  /** The last time the repository could not be opened, why. */
  #lastError: string | undefined;

  constructor(options: TurnCheckpointsOptions) {
    this.#options = options;
    for (const record of options.records ?? []) addRecord(this.#records, record);
    this.#warnings = [...(options.notices ?? [])];
  }

  /** Why checkpoints are off for this conversation, if they are. */
  get off(): string | undefined {
    return this.#off;
  }

  /** The lines for the user gathered since the last call. */
  takeWarnings(): string[] {
    return this.#warnings.splice(0);
  }

  /** Why checkpoints of this conversation's turns failed (each failed turn once). */
  failures(): readonly string[] {
    return this.#failures;
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
    this.#turn = {
      id: crypto.randomUUID(),
      started: Date.now(),
      messageCount,
      prompt: firstLine(prompt),
      states: new Map(),
      commands: [],
      shared: new Set(),
      calls: new Map(),
      logged: false,
    };
  }

  /**
   * Before a call that may change files runs: the state of the files it names, or a mark
   * for a command. Never fails: an error fails this turn's checkpoint alone, with a warning.
   *
   * @param call The call and its tool.
   * @param progress Told a line when the first reading of the folder is slow.
   * @returns The record to log now (so a turn cut short can be undone), if there is one.
   */
  async beforeCall(
    call: CheckpointedCall,
    progress?: (line: string) => void,
  ): Promise<TurnCheckpoint | undefined> {
    const turn = this.#turn;
    if (turn === undefined || turn.failed !== undefined) return undefined;
    const workspace = await this.#workspace();
    if (workspace === undefined) return undefined;
    const changes = callChanges(call);
    try {
      if (changes.kind === "files") {
        const root = workspace.store.options.workspace;
        const paths = changes.paths.flatMap((given) => fileOfArgument(root, given) ?? []);
        const fresh = paths.filter((path) => !turn.states.has(path));
        const read = await workspace.store.read(fresh);
        for (const path of fresh) turn.states.set(path, [read.get(path)!, UNKNOWN.cutShort]);
        for (const path of paths) turn.states.get(path)![1] = UNKNOWN.cutShort;
        turn.calls.set(call.id, { paths });
      } else {
        const window = await workspace.commands.begin(progress);
        turn.commands.push(changes.label);
        turn.calls.set(call.id, { window, shared: this.#options.othersWorking?.() ?? false });
      }
    } catch (error) {
      this.#failTurn(turn, error);
    }
    return this.#record(turn, true);
  }

  /**
   * After a call ran: the state of what it changed.
   *
   * @param callId The call's id.
   * @returns The record to log now, if the call was one that may change files.
   */
  async afterCall(callId: string): Promise<TurnCheckpoint | undefined> {
    const turn = this.#turn;
    const call = turn?.calls.get(callId);
    if (turn === undefined || call === undefined) return undefined;
    turn.calls.delete(callId);
    if (turn.failed !== undefined) return undefined;
    await this.#settle(turn, call);
    return this.#record(turn, true);
  }

  /** Reads what one call changed into the turn. */
  async #settle(turn: OpenTurn, call: OpenCall): Promise<void> {
    const workspace = await this.#workspace();
    if (workspace === undefined) return;
    try {
      if (call.paths) {
        const read = await workspace.store.read(call.paths);
        for (const path of call.paths) turn.states.get(path)![1] = read.get(path)!;
      } else if (call.window) {
        for (const change of await workspace.commands.end(call.window)) {
          if (call.shared) turn.shared.add(change.path);
          const known = turn.states.get(change.path);
          if (known) known[1] = change.after;
          else turn.states.set(change.path, [change.before, change.after]);
        }
      }
    } catch (error) {
      this.#failTurn(turn, error);
    }
  }

  /**
   * The turn ended (also when it was interrupted): calls still open are read, and the final
   * record made.
   *
   * @returns The record to log, or undefined when the turn changed nothing and logged nothing.
   */
  async end(): Promise<TurnCheckpoint | undefined> {
    const turn = this.#turn;
    this.#turn = undefined;
    if (turn === undefined) return undefined;
    for (const call of turn.calls.values()) {
      if (turn.failed === undefined) await this.#settle(turn, call);
    }
    turn.calls.clear();
    const record = this.#record(turn, false);
    if (record === undefined) return undefined;
    if (record.files.length > 0 || record.failed !== undefined) {
      addRecord(this.#records, record);
      const workspace = await this.#workspace();
      workspace?.store.keeper.keepLater([...turn.states.values()].flat());
    }
    return record;
  }

  /** A subagent's record, made while this turn ran: its changes are this turn's too (/undo). */
  absorb(record: TurnCheckpoint): TurnCheckpoint | undefined {
    const turn = this.#turn;
    if (turn === undefined || turn.failed !== undefined) return undefined;
    for (const [path, [before, after]] of Object.entries(record.states ?? {})) {
      turn.states.set(path, [turn.states.get(path)?.[0] ?? before, after]);
    }
    turn.commands.push(...(record.commands ?? []));
    return this.#record(turn, true);
  }

  /** The record of a turn, or undefined when there is nothing to log. */
  #record(turn: OpenTurn, open: boolean): TurnCheckpoint | undefined {
    const states: Record<string, [FileState, FileState]> = {};
    for (const [path, [before, after]] of [...turn.states].sort(([a], [b]) => a < b ? -1 : 1)) {
      if (before !== after) states[path] = [before, after];
    }
    const files = Object.keys(states);
    // The files a command changed while another session worked in the folder.
    const shared = files.filter((path) => turn.shared.has(path));
    const worth = files.length > 0 || turn.failed !== undefined || turn.commands.length > 0;
    if (!worth && !turn.logged) return undefined;
    turn.logged = true;
    return {
      turn: turn.id,
      messageCount: turn.messageCount,
      prompt: turn.prompt,
      started: turn.started,
      files,
      states,
      ...(turn.commands.length > 0 ? { commands: [...turn.commands] } : {}),
      ...(shared.length > 0 ? { shared } : {}),
      ...(open ? { open: true } : {}),
      ...(turn.failed !== undefined ? { failed: turn.failed } : {}),
    };
  }

  /**
   * Plans undoing the turns from the given one on (those not undone yet).
   *
   * @param fromMessageCount The first turn to undo, by where its user message sits; "last":
   *   the latest turn not undone yet.
   * @returns The plan, or a sentence saying why there is nothing to undo.
   */
  async plan(fromMessageCount: number | "last"): Promise<RestorePlan | { error: string }> {
    if (this.#off !== undefined) return { error: `Checkpoints are off: ${this.#off}` };
    const open = this.#records.filter((record) => !record.undone && record.files.length > 0);
    const chosen = fromMessageCount === "last"
      ? open.filter((record) => record.failed === undefined).slice(-1)
      : open.filter((record) => record.messageCount >= fromMessageCount && !record.failed);
    const notes = failedTurnNotes(open, chosen, fromMessageCount);
    if (chosen.length === 0) {
      return {
        error: [
          ...notes,
          fromMessageCount === "last"
            ? "No turn has changed files yet in this conversation (or every change was undone)"
            : "No file was changed from that turn on",
        ].join("\n"),
      };
    }
    const workspace = await this.#workspace();
    if (workspace === undefined) return { error: this.#unavailable() };
    try {
      const resolved = await Promise.all(
        chosen.map((record) => resolveTurn(workspace.store, record)),
      );
      const paths = [...new Set(chosen.flatMap((record) => record.files))];
      const now = await workspace.store.read(paths);
      const saved = await workspace.store.keeper.keep(now.values()) ?? "";
      return {
        turns: [...chosen].reverse(),
        ...planPaths(resolved, now),
        notes: [...notes, ...turnNotes(chosen)],
        saved,
      };
    } catch (error) {
      return { error: `Could not read the files to restore: ${(error as Error).message}` };
    }
  }

  /**
   * Carries out a plan: every path goes back, except the conflicts when `overwrite` is false.
   *
   * @param plan What {@linkcode plan} returned.
   * @param overwrite The user said to overwrite their own changes too.
   * @returns The event to log, or why nothing could be restored.
   */
  async apply(plan: RestorePlan, overwrite: boolean): Promise<RestoreOutcome> {
    const workspace = await this.#workspace();
    if (workspace === undefined) return { error: this.#unavailable() };
    const kept = overwrite ? [] : plan.conflicts;
    const entries = Object.entries(plan.targets).filter(([path]) => !kept.includes(path));
    let outcome;
    const starts = plan.turns.flatMap((turn) => turn.started ?? []);
    try {
      outcome = await workspace.store.write(
        entries,
        starts.length === plan.turns.length ? { foldersBornSince: Math.min(...starts) } : {},
      );
    } catch (error) {
      return { error: `Could not restore the files: ${(error as Error).message}` };
    }
    const ids = plan.turns.map(recordId);
    markUndone(this.#records, ids);
    const left = [...plan.left, ...outcome.refused];
    return {
      event: {
        type: "files_restored",
        turns: ids,
        saved: plan.saved,
        restored: [...outcome.written, ...outcome.removed].sort(),
        kept,
        ...(outcome.removed.length > 0 ? { removed: outcome.removed } : {}),
        ...(left.length > 0 ? { left } : {}),
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

  /** Closes what the conversation's checkpoints own (records and snapshots stay). */
  async close(): Promise<void> {
    await this.#options.close?.();
  }

  /** Why /undo cannot reach the repository now. */
  #unavailable(): string {
    return this.#off !== undefined
      ? `Checkpoints are off: ${this.#off}`
      : `Could not open the checkpoints' repository: ${this.#lastError ?? "unknown error"}; ` +
        "try again";
  }

  /** The workspace's checkpoints, or undefined when they are off (said once). */
  async #workspace(): Promise<CheckpointWorkspace | undefined> {
    if (this.#off !== undefined) return undefined;
    try {
      const opened = await this.#options.open();
      if (!("inactive" in opened)) return opened;
      this.#off = opened.inactive; // nothing to warn about: no turn can change a file
    } catch (error) {
      if (error instanceof RetryLater) {
        this.#lastError = error.message;
        if (this.#turn && this.#turn.failed === undefined) this.#failTurn(this.#turn, error);
        return undefined;
      }
      this.#off = (error as Error).message;
      this.#failures.push(this.#off);
      this.#warnings.push(
        `Checkpoints are off for this session: ${this.#off}; /undo cannot restore files`,
      );
    }
    return undefined;
  }

  #failTurn(turn: OpenTurn, error: unknown): void {
    const reason = (error as Error).message;
    turn.failed = reason;
    this.#failures.push(reason);
    this.#warnings.push(
      `The checkpoint of this turn failed: ${reason}; /undo cannot put back the files it ` +
        "changes (earlier turns still can)",
    );
  }
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
