// glob's file listing through fd (run by the host in the command sandbox, search_client.ts):
// the files, links, FIFOs and sockets the built-in walk (walk_tree.ts) would list under a
// folder, with the same hidden and .gitignore rules, the first of them in walk order, and the
// --deny-read folders the walk would have met. Paths are filtered as fd prints them, while it
// still runs; only the ones listed are put in walk order (walk_order.ts).

import { deniedOnWalk } from "./denied_paths.ts";
import { type SearchClient } from "./search_client.ts";
import { folderIgnored } from "./walk_tree.ts";
import { firstInWalkOrder } from "./walk_order.ts";

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
      if (keep(path)) kept.push(path);
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
