// Which --deny-read paths inside the workspace a search would have met, for the "[Skipped ...]"
// note (denied_note.ts) when ripgrep or fd did the search: they never see those paths, so the
// tool walks only the folders that lead to them (walk_tree.ts, same hidden and .gitignore
// rules as the built-in search) and names the ones the built-in walk would have reached.

import { walkTree } from "./walk_tree.ts";
import { walkOrderKey } from "./walk_order.ts";

/** Workspace-relative paths in walk order (folders depth-first, names sorted). */
export interface DeniedPaths {
  deniedFiles: string[];
  deniedDirs: string[];
}

/**
 * The denied paths a walk from `start` meets.
 *
 * @param workspace Absolute workspace root.
 * @param start Workspace-relative folder the walk starts at ("" for the root).
 * @param denied Workspace-relative paths the sandbox denies.
 * @param options The walk's hidden and .gitignore rules; `file` tells which files the search
 *   would open (false: denied files are not reported, as glob reports none); `before`: only
 *   paths the walk meets before this one (where a search stopped).
 * @returns Denied folders and files met, in walk order.
 *
 * @example
 * ```ts
 * import { deniedOnWalk } from "./denied_paths.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/keys`);
 * await Deno.writeTextFile(`${dir}/.env`, "x");
 * const met = deniedOnWalk(dir, "", ["keys", ".env"], {
 *   includeHidden: false, respectGitignore: true, file: () => true,
 * });
 * if (met.deniedDirs.join() !== "keys" || met.deniedFiles.length !== 0) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function deniedOnWalk(
  workspace: string,
  start: string,
  denied: readonly string[],
  options: {
    includeHidden: boolean;
    respectGitignore: boolean;
    file: ((path: string) => boolean) | false;
    before?: string;
  },
): DeniedPaths {
  const met: DeniedPaths = { deniedFiles: [], deniedDirs: [] };
  const prefix = start === "" ? "" : `${start}/`;
  const inside = denied.filter((path) => path.startsWith(prefix));
  if (inside.length === 0) return met;
  const set = new Set(inside);
  const limit = options.before === undefined ? undefined : walkOrderKey(options.before);
  walkTree(workspace, start, {
    includeHidden: options.includeHidden,
    respectGitignore: options.respectGitignore,
    // Only the folders that lead to a denied path are listed.
    enterDir: (folder) => inside.some((path) => `${path}/`.startsWith(folder)),
    visit(entry) {
      if (limit !== undefined && walkOrderKey(entry.path) >= limit) return "stop";
      if (!set.has(entry.path)) return;
      if (entry.kind === "dir") {
        met.deniedDirs.push(entry.path);
        return "skip";
      }
      if (entry.kind === "file" && options.file !== false && options.file(entry.path)) {
        met.deniedFiles.push(entry.path);
      }
    },
  });
  return met;
}
