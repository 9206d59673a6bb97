// glob's file listing through fd (run by the host in the command sandbox, search_client.ts):
// the files, links, FIFOs and sockets the built-in walk (walk_tree.ts) would list under a
// folder, with the same hidden and .gitignore rules, the first of them in walk order, and the
// --deny-read folders the walk would have met. The listing is read once fd has ended
// (fd_listing.ts): in bulk where it can be, a few milliseconds for 38,000 paths.

import { deniedOnWalk } from "./denied_paths.ts";
import { type SearchClient } from "./search_client.ts";
import { readListing } from "./fd_listing.ts";
import { folderIgnored } from "./walk_tree.ts";

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
  /**
   * `keep` accepts exactly the paths ending with this among those with no name starting
   * with a dot and no control character (a faster reading of the listing, fd_listing.ts).
   */
  suffix?: string;
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
  const decoder = new TextDecoder();
  let text = "";
  const run = await client.run({
    type: "files",
    folder: start,
    includeHidden: options.includeHidden,
    // A folder named outright is listed even when a .gitignore above ignores it, and then
    // the rules above it do not apply (as in the walk).
    parentIgnores: !folderIgnored(workspace, start),
    ...(options.extension === undefined ? {} : { extension: options.extension }),
  }, (bytes) => {
    // The host sends the listing whole (search_service.ts): one chunk, decoded once.
    text += decoder.decode(bytes, { stream: true });
  }, signal);
  if ("unavailable" in run || run.code !== 0) return undefined;
  text += decoder.decode();
  // The walk lists a denied file's name (its folder is readable), never its content; fd was
  // kept from it altogether.
  const { deniedDirs, deniedFiles } = deniedOnWalk(workspace, start, run.excluded, {
    includeHidden: options.includeHidden,
    respectGitignore: true,
    file: () => true,
  });
  const { count, files } = readListing(text, {
    root: start === "" ? "" : run.root,
    below: start === "" ? 0 : start.length + 1,
    includeHidden: options.includeHidden,
    keep,
    ...(options.suffix === undefined ? {} : { suffix: options.suffix }),
    limit: options.limit ?? Infinity,
    also: deniedFiles,
  });
  return { count, files, deniedDirs };
}
