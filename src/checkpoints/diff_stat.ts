// Lines added and removed per path between two trees of a shadow repository (shadow_git.ts):
// what a subagent changed, for the footer harness writes under its report. The shadow
// repository marks every path -diff, which git's numstat obeys (every file "binary"), so a
// --text patch without context is counted instead, one block per path.

import { gitText, type ShadowRepo } from "./shadow_git.ts";

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
