// The built-in grep_search over the places a read grant covers (read_roots.ts:
// the workspace, or each granted folder and file inside it): each searched in walk order,
// one after another, with one max_results and one set of counts.

import { type CountedSummary, emptySummary, type GrepOptions, grepTree } from "./grep_files.ts";
import { firstInWalkOrder } from "./walk_order.ts";

/**
 * Searches several workspace-relative places as one search.
 *
 * @param workspace Absolute workspace root.
 * @param roots Workspace-relative folders or files ("" for the whole workspace).
 * @param options Pattern, filters and limits.
 * @returns Matches in walk order and the counts of all places together.
 *
 * @example
 * ```ts
 * import { grepRoots } from "./grep_roots.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/a`);
 * await Deno.writeTextFile(`${dir}/a/x.txt`, "one\n");
 * await Deno.writeTextFile(`${dir}/b.txt`, "one\n");
 * const r = grepRoots(dir, ["b.txt", "a"], { pattern: "one", caseSensitive: true, maxResults: 10, includeHidden: false, respectGitignore: true });
 * if (r.matches.map((m) => m.path).join() !== "a/x.txt,b.txt") throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function grepRoots(
  workspace: string,
  roots: readonly string[],
  options: GrepOptions,
): CountedSummary {
  const total = emptySummary();
  for (const root of firstInWalkOrder(roots, Infinity)) {
    const part = grepTree(workspace, root, {
      ...options,
      maxResults: options.maxResults - total.matches.length,
    });
    total.matches.push(...part.matches);
    total.filesSearched += part.filesSearched;
    total.filesMatched += part.filesMatched;
    total.deniedFiles.push(...part.deniedFiles);
    total.deniedDirs.push(...part.deniedDirs);
    if (part.truncated) {
      total.truncated = true;
      break;
    }
  }
  return total;
}
