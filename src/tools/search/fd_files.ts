// glob's file listing through fd (run by the host in the command sandbox, search_client.ts):
// the files, links, FIFOs and sockets the built-in walk (walk_tree.ts) would list under a
// folder, with the same hidden and .gitignore rules, in walk order, and the --deny-read
// folders the walk would have met.

import { deniedOnWalk, walkOrderKey } from "./denied_paths.ts";
import { type SearchClient } from "./search_client.ts";
import { folderIgnored } from "./walk_tree.ts";

/** What fd listed. */
export interface FdListing {
  /** Workspace-relative paths in walk order. */
  files: string[];
  /** --deny-read folders the walk would have met and skipped, in walk order. */
  deniedDirs: string[];
}

/**
 * Lists the files under `start` with fd.
 *
 * @param client The call's search client.
 * @param workspace Absolute workspace root.
 * @param start Workspace-relative folder ("" for the root), an existing folder.
 * @param options `includeHidden`: list hidden names; `extension`: fd may leave out files
 *   without it (the caller still filters every path).
 * @param signal Stops fd when aborted.
 * @returns The listing, or undefined when fd cannot list here: list with the walk then.
 */
export async function listWithFd(
  client: SearchClient,
  workspace: string,
  start: string,
  options: { includeHidden: boolean; extension?: string },
  signal?: AbortSignal,
): Promise<FdListing | undefined> {
  const chunks: Uint8Array[] = [];
  const run = await client.run({
    type: "files",
    folder: start,
    includeHidden: options.includeHidden,
    // A folder named outright is listed even when a .gitignore above ignores it, and then
    // the rules above it do not apply (as in the walk).
    parentIgnores: !folderIgnored(workspace, start),
    ...(options.extension === undefined ? {} : { extension: options.extension }),
  }, (bytes) => {
    chunks.push(bytes);
  }, signal);
  if ("unavailable" in run || run.code !== 0) return undefined;
  const bytes = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  const text = new TextDecoder().decode(bytes);
  const prefix = `${run.root}/`;
  const listed = text.split("\0").filter((path) => path !== "")
    .map((path) => path.startsWith(prefix) ? path.slice(prefix.length) : path);
  // The walk lists a denied file's name (its folder is readable), never its content; fd was
  // kept from it altogether.
  const { deniedDirs, deniedFiles } = deniedOnWalk(workspace, start, run.excluded, {
    includeHidden: options.includeHidden,
    respectGitignore: true,
    file: () => true,
  });
  const files = [...listed, ...deniedFiles].map((path) => [walkOrderKey(path), path] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, path]) => path);
  return { files, deniedDirs };
}
