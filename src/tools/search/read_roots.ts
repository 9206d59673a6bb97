// Where a walk of the workspace starts (the code index's, the built-in grep_search's): the
// workspace when the read grant covers it, else each granted folder or file inside it
// (`--allow-read=src` walks src/ and never asks to read the workspace's root, its .gitignore
// or .git/info/exclude).

import { relative, resolve, sep } from "../../platform/paths.ts";
import { realPathIfExists } from "../../platform/real_path_if_exists.ts";

/** Whether a relative path leads out of its base (or to another drive). */
function outside(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || rel.startsWith(sep) ||
    /^[A-Za-z]:/.test(rel);
}

/**
 * The workspace-relative places a walk covers, with forward slashes ("" is the whole
 * workspace); none when the grant reaches nothing inside the workspace.
 *
 * @param workspace The workspace folder.
 * @param read The read permission the walking worker gets: true for all, else absolute paths.
 *
 * @example
 * ```ts
 * import { readRoots } from "./read_roots.ts";
 * if (readRoots("/w", true).join() !== "") throw new Error();
 * if (readRoots("/w", ["/w/src", "/w/lib/a.ts", "/etc"]).join() !== "lib/a.ts,src") throw new Error();
 * if (readRoots("/w", ["/"]).join() !== "") throw new Error();
 * ```
 */
export function readRoots(workspace: string, read: boolean | readonly string[]): string[] {
  if (read === true) return [""];
  if (read === false) return [];
  const bases = [resolve(workspace), realPathIfExists(workspace)].filter((b) => b !== undefined);
  const roots = new Set<string>();
  for (const granted of read) {
    for (const place of [resolve(granted), realPathIfExists(granted)]) {
      if (place === undefined) continue;
      for (const base of bases) {
        const rel = relative(base, place);
        if (rel === "") return [""];
        if (outside(rel)) {
          if (!outside(relative(place, base))) return [""]; // the grant holds the workspace
          continue;
        }
        roots.add(rel.split(sep).join("/"));
      }
    }
  }
  return [...roots].sort();
}
