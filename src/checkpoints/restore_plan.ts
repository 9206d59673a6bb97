// Planning /undo and /rewind from turn records, without touching a file: each path goes back
// to its state before the oldest undone turn that changed it. A path changed since the newest
// such turn (or between two of them) by anyone else is a conflict, asked about and never
// overwritten without a word (so is one a command changed while another session worked in
// the folder: it may be that session's); a path whose earlier state is unknown (git ignored it, too
// large, unreadable) is left as it is and said; only a path the turns created (absent before)
// is removed, and every removal is listed before it happens.

import { ABSENT, type FileState, isKnown, UNKNOWN, unknownReason } from "./file_state.ts";
import type { ShadowStore } from "./shadow_store.ts";
import type { CheckpointEvent, TurnCheckpoint } from "./turn_record.ts";

/** A turn's states, resolved (older records' snapshots looked up). */
export interface ResolvedTurn {
  files: readonly string[];
  states: ReadonlyMap<string, readonly [FileState, FileState]>;
  /** Paths a command changed while another session worked in the folder: always asked. */
  shared?: ReadonlySet<string>;
}

/** What a restore would do, path by path. */
export interface PathPlan {
  /** Every path the turns changed, sorted. */
  paths: string[];
  /** The state each path goes back to (the paths that change). */
  targets: Record<string, FileState>;
  /** Paths changed after a turn changed them (or whose state after it is unknown). */
  conflicts: string[];
  /** Paths that go back to "absent": files the turns created. */
  removals: string[];
  /** Paths left as they are, with why. */
  left: { path: string; why: string }[];
}

/** A restore to be confirmed: what it would change, and what the user changed meanwhile. */
export interface RestorePlan {
  /** The turns it undoes, newest first. */
  turns: TurnCheckpoint[];
  /** Every path the turns changed. */
  paths: string[];
  /** The state each path goes back to (the paths that change). */
  targets: Record<string, FileState>;
  /** Paths someone changed after a turn did: kept unless the user says overwrite. */
  conflicts: string[];
  /** Files the turns created: removed (listed before it happens). */
  removals: string[];
  /** Paths left as they are, with why. */
  left: { path: string; why: string }[];
  /** Lines for the user before anything is done (a command ran, a checkpoint failed). */
  notes: string[];
  /** A commit of the files as they are now (so the restore itself can be looked up). */
  saved: string;
}

/** How a restore ended: the event to log, or why nothing was restored. */
export type RestoreOutcome =
  | { event: Extract<CheckpointEvent, { type: "files_restored" }> }
  | { error: string };

/**
 * Plans putting paths back.
 *
 * @param turns The turns to undo, oldest first.
 * @param now Each path's state now.
 * @returns The plan.
 *
 * @example
 * ```ts
 * import { planPaths } from "./restore_plan.ts";
 * const a1 = "100644 1111111111111111111111111111111111111111";
 * const a2 = "100644 2222222222222222222222222222222222222222";
 * const turn = { files: ["a", "new"], states: new Map([["a", [a1, a2] as const], ["new", ["absent", a1] as const]]) };
 * const plan = planPaths([turn], new Map([["a", a2], ["new", a1]]));
 * if (plan.targets.a !== a1 || plan.removals[0] !== "new" || plan.conflicts.length !== 0) throw new Error();
 * ```
 */
export function planPaths(
  turns: readonly ResolvedTurn[],
  now: ReadonlyMap<string, FileState>,
): PathPlan {
  const plan: PathPlan = { paths: [], targets: {}, conflicts: [], removals: [], left: [] };
  plan.paths = [...new Set(turns.flatMap((turn) => turn.files))].sort();
  for (const path of plan.paths) {
    const touching = turns.flatMap((turn) => {
      const state = turn.states.get(path);
      return state ? [state] : [];
    });
    if (touching.length === 0) continue;
    const target = touching[0]![0];
    const current = now.get(path);
    if (isKnown(target) && target === current) continue; // already as it was
    if (!isKnown(target)) {
      plan.left.push({ path, why: unknownReason(target) });
      continue;
    }
    plan.targets[path] = target;
    if (target === ABSENT) plan.removals.push(path);
    const shared = turns.some((turn) => turn.shared?.has(path));
    if (shared || changedSince(touching, current)) plan.conflicts.push(path);
  }
  return plan;
}

/**
 * Whether someone changed a path after the turns did: between two of them, or after the
 * last (an unknown state counts as changed: it cannot be told apart).
 */
function changedSince(
  touching: readonly (readonly [FileState, FileState])[],
  current: FileState | undefined,
): boolean {
  const same = (a: FileState | undefined, b: FileState | undefined) => isKnown(a) && a === b;
  for (let i = 0; i + 1 < touching.length; i++) {
    if (!same(touching[i]![1], touching[i + 1]![0])) return true;
  }
  return !same(touching.at(-1)![1], current);
}

/**
 * A record's states for planning; an older record's (two snapshots of the whole workspace)
 * looked up in the repository, where a path the snapshot before lacks is not known to be new
 * (git ignored files then), so it is never removed.
 *
 * @param store The shadow repository.
 * @param record The record.
 * @returns Its files and states.
 * @throws ShadowGitError when git fails.
 */
export async function resolveTurn(
  store: ShadowStore,
  record: TurnCheckpoint,
): Promise<ResolvedTurn> {
  if (record.states) {
    return {
      files: record.files,
      states: new Map(Object.entries(record.states)),
      ...(record.shared ? { shared: new Set(record.shared) } : {}),
    };
  }
  const before = await store.snapshotStates(record.before ?? "", record.files);
  const after = await store.snapshotStates(record.after ?? "", record.files);
  const states = new Map<string, [FileState, FileState]>();
  for (const path of record.files) {
    states.set(path, [before.get(path) ?? UNKNOWN.notRecorded, after.get(path) ?? ABSENT]);
  }
  return { files: record.files, states };
}

/**
 * Lines on the failed turns a plan passes over (their files cannot be put back).
 *
 * @param open The records not undone, oldest first.
 * @param chosen The records the plan undoes.
 * @param from "last", or the first message the plan undoes from.
 * @returns One line per failed turn.
 */
export function failedTurnNotes(
  open: readonly TurnCheckpoint[],
  chosen: readonly TurnCheckpoint[],
  from: number | "last",
): string[] {
  const first = chosen[0];
  const skipped = open.filter((record) =>
    record.failed !== undefined &&
    (from === "last"
      ? first === undefined || open.indexOf(record) > open.indexOf(first)
      : record.messageCount >= from)
  );
  return skipped.map((record) =>
    `The checkpoint of ${JSON.stringify(record.prompt)} failed (${record.failed}), so its ` +
    `files cannot be put back: ${record.files.join(", ")}`
  );
}

/**
 * What the user should know about the turns before a restore: a command ran (its files are
 * what changed in the folder meanwhile), a turn was cut short.
 *
 * @param turns The records the plan undoes.
 * @returns The lines.
 */
export function turnNotes(turns: readonly TurnCheckpoint[]): string[] {
  const notes: string[] = [];
  for (const record of turns) {
    if (record.commands?.length) {
      notes.push(
        `A command ran in ${JSON.stringify(record.prompt)} (${record.commands.join("; ")}): ` +
          "its files are what changed in the folder while it ran, whoever changed them" +
          (record.shared?.length
            ? "; another session worked in the folder then, so those are asked about"
            : ""),
      );
    }
    if (record.open) {
      notes.push(
        `${JSON.stringify(record.prompt)} was cut short: a file a call was changing then is ` +
          "asked about",
      );
    }
  }
  return notes;
}
