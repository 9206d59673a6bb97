// Planning /undo and /rewind from turn records, without touching a file: each path goes back
// to its state before the oldest undone turn that changed it. A path changed since the newest
// such turn (or between two of them) by anyone else is a conflict, asked about and never
// overwritten without a word (so is one a command changed while another session worked in
// the folder: it may be that session's); a path whose earlier state is unknown (git ignored it, too
// large, unreadable) is left as it is and said; only a path the turns created (absent before)
// is removed, and every removal is listed before it happens.

import { ABSENT, type FileState, isKnown, unknownReason } from "./file_state.ts";

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
