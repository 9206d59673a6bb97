// Lines added and removed per path between two trees of a shadow repository (shadow_git.ts),
// or between the before and after states of a turn's record: what a subagent changed, for
// the footer harness writes under its report. The shadow
// repository marks every path -diff, which git's numstat obeys (every file "binary"), so a
// --text patch without context is counted instead, one block per path.

import { gitText, type ShadowRepo } from "./shadow_git.ts";
import { removeQuietly, type ShadowStore } from "./shadow_store.ts";
import { type FileState, isContent } from "./file_state.ts";

/** One path's change between two snapshots. */
export interface PathStat {
  path: string;
  added: number;
  removed: number;
  /** The file has a NUL byte: no line counts. */
  binary: boolean;
}

/** The lines one file's patch block adds and removes (after its first hunk header). */
function countPatchLines(path: string, block: string): PathStat {
  if (block.includes("\0")) return { path, added: 0, removed: 0, binary: true };
  let added = 0;
  let removed = 0;
  let inHunks = false;
  for (const line of block.split("\n")) {
    if (line.startsWith("@@")) inHunks = true;
    else if (inHunks && line.startsWith("+")) added++;
    else if (inHunks && line.startsWith("-")) removed++;
  }
  return { path, added, removed, binary: false };
}

/**
 * Lines added and removed per changed path from tree-ish `a` to `b`, in git's order. Without
 * context lines every content line of the patch starts with `+` or `-`, so a line of a file
 * can never be taken for the `diff --git` header that starts the next path's block.
 *
 * @param repo The shadow repository.
 * @param a The older commit or tree.
 * @param b The newer commit or tree.
 * @returns One entry per changed path.
 * @throws ShadowGitError when git fails.
 */
export async function diffStat(repo: ShadowRepo, a: string, b: string): Promise<PathStat[]> {
  const common = ["--no-renames", "--ignore-submodules=all", a, b];
  const names = await gitText(repo, ["diff-tree", "-r", "-z", "--name-only", ...common]);
  const patch = await gitText(repo, [
    "diff",
    "--text",
    "-U0",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    ...common,
  ]);
  const blocks = patch.split(/^diff --git /m).slice(1);
  return names.split("\0").filter((path) => path !== "").map((path, i) =>
    countPatchLines(path, blocks[i] ?? "")
  );
}

/**
 * Lines added and removed per path between the states a turn's record holds (before and
 * after each file it changed): what a subagent's turns changed. Each side becomes a tree of
 * its known contents; a path absent (or unknown) on one side counts as added or removed whole.
 *
 * @param store The shadow repository the states' blobs are in.
 * @param states Path -> [before, after], as TurnCheckpoint.states holds them.
 * @returns One entry per changed path.
 * @throws ShadowGitError when git fails.
 */
export async function diffStatOfStates(
  store: ShadowStore,
  states: Readonly<Record<string, readonly [FileState, FileState]>>,
): Promise<PathStat[]> {
  const tree = async (side: 0 | 1) => {
    const index = store.scratchIndex("diff");
    try {
      const entries = Object.entries(states).filter(([, pair]) => isContent(pair[side]));
      await gitText(store.repo, ["update-index", "-z", "--index-info"], {
        indexFile: index,
        stdin: entries.map(([path, pair]) => `${pair[side]}\t${path}\0`).join(""),
      });
      return (await gitText(store.repo, ["write-tree"], { indexFile: index })).trim();
    } finally {
      removeQuietly(index);
    }
  };
  return await diffStat(store.repo, await tree(0), await tree(1));
}
