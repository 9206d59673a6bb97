// glob's file listing through fd (run by the host in the command sandbox, search_client.ts):
// the files, links, FIFOs and sockets the built-in walk (walk_tree.ts) would list under a
// folder, with the same hidden and .gitignore rules, the first of them in walk order, and the
// --deny-read folders the walk would have met. Paths are filtered as fd prints them, while it
// still runs; only the ones listed are put in walk order (walk_order.ts).

import { deniedOnWalk } from "./denied_paths.ts";
import { type SearchClient } from "./search_client.ts";
import { folderIgnored, VCS_DIRS } from "./walk_tree.ts";
import { firstInWalkOrder } from "./walk_order.ts";

/** Version-control folders fd does not hide as hidden names. */
const VISIBLE_VCS_DIRS = [...VCS_DIRS].filter((name) => !name.startsWith("."));

/**
 * Whether the walk from a folder shows a path fd printed (fd without --hidden still prints
 * hidden names a .gitignore `!` rule brings back, and what is inside _darcs).
 *
 * @param path Workspace-relative path.
 * @param below Where the part under the start folder begins in `path`.
 */
function walkShows(path: string, below: number, includeHidden: boolean): boolean {
  if (!includeHidden && (path.charCodeAt(below) === 0x2e || path.indexOf("/.", below) !== -1)) {
    return false;
  }
  for (const name of VISIBLE_VCS_DIRS) {
    let at = path.indexOf(name, below);
    while (at !== -1) {
      const end = at + name.length;
      if ((at === below || path[at - 1] === "/") && (end === path.length || path[end] === "/")) {
        return false;
      }
      at = path.indexOf(name, at + 1);
    }
  }
  return true;
}

/** What fd listed. */
export interface FdListing {
  /** How many paths `keep` accepted. */
  count: number;
  /** The first `limit` of them (workspace-relative) in walk order. */
  files: string[];
  /** --deny-read folders the walk would have met and skipped, in walk order. */
  deniedDirs: string[];
}

/** Options of {@linkcode listWithFd}. */
export interface FdListOptions {
  /** List hidden names. */
  includeHidden: boolean;
  /** fd may leave out files without this extension (`keep` still sees every path). */
  extension?: string;
  /** Which workspace-relative paths count (default: all). */
  keep?: (path: string) => boolean;
  /** How many of them to return in walk order (default: all). */
  limit?: number;
}

/**
 * Lists the files under `start` with fd.
 *
 * @param client The call's search client.
 * @param workspace Absolute workspace root.
 * @param start Workspace-relative folder ("" for the root), an existing folder.
 * @param options What to list and how many.
 * @param signal Stops fd when aborted.
 * @returns The listing, or undefined when fd cannot list here: list with the walk then.
 */
export async function listWithFd(
  client: SearchClient,
  workspace: string,
  start: string,
  options: FdListOptions,
  signal?: AbortSignal,
): Promise<FdListing | undefined> {
  const keep = options.keep ?? (() => true);
  const below = start === "" ? 0 : start.length + 1;
  const kept: string[] = [];
  const decoder = new TextDecoder();
  let rest = "";
  const take = (text: string, root: string) => {
    const prefix = `${root}/`;
    const paths = text.split("\0");
    rest = paths.pop()!;
    for (const printed of paths) {
      if (printed === "") continue;
      const path = printed.startsWith(prefix) ? printed.slice(prefix.length) : printed;
      if (walkShows(path, below, options.includeHidden) && keep(path)) kept.push(path);
    }
  };
  const run = await client.run({
    type: "files",
    folder: start,
    includeHidden: options.includeHidden,
    // A folder named outright is listed even when a .gitignore above ignores it, and then
    // the rules above it do not apply (as in the walk).
    parentIgnores: !folderIgnored(workspace, start),
    ...(options.extension === undefined ? {} : { extension: options.extension }),
  }, (bytes, root) => {
    take(rest + decoder.decode(bytes, { stream: true }), root);
  }, signal);
  if ("unavailable" in run || run.code !== 0) return undefined;
  take(`${rest}${decoder.decode()}\0`, run.root);
  // The walk lists a denied file's name (its folder is readable), never its content; fd was
  // kept from it altogether.
  const { deniedDirs, deniedFiles } = deniedOnWalk(workspace, start, run.excluded, {
    includeHidden: options.includeHidden,
    respectGitignore: true,
    file: () => true,
  });
  for (const path of deniedFiles) if (keep(path)) kept.push(path);
  return {
    count: kept.length,
    files: firstInWalkOrder(kept, options.limit ?? Infinity),
    deniedDirs,
  };
}
