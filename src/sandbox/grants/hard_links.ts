// Files in the write grants that have other hard links (package managers such as pnpm link
// `node_modules` into a store outside the project). harness's tools replace a file they write
// (a temp file renamed into place), so the other names keep their content; a command writes
// in place and changes every name at once, possibly outside the workspace. Neither the
// command sandbox nor the gate can tell a command apart from a write to its own file, so
// harness names such files once at start (looked for in the background, within a budget).

import { join, relative } from "../../platform/paths.ts";

/** What {@linkcode findLinkedFiles} found. */
export interface LinkedFiles {
  /** Up to `keep` of the files found, as found. */
  files: string[];
  /** How many were found in all. */
  count: number;
  /** False when the budget ran out before the walk ended. */
  complete: boolean;
}

/** Options of {@linkcode findLinkedFiles}. */
export interface LinkedFilesOptions {
  /** Entries looked at before giving up (default 20,000). */
  maxEntries?: number;
  /** Files kept by name (default 3). */
  keep?: number;
}

/** Folders never walked: git's own, whose objects git links on purpose. */
const SKIPPED = new Set([".git"]);

/**
 * Walks the folders for regular files with more than one hard link.
 *
 * @param roots Folders to walk (the write grants).
 * @param options The budget and how many names to keep.
 * @returns The files found and whether the walk finished.
 *
 * @example
 * ```ts
 * import { findLinkedFiles } from "./hard_links.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a`, "x");
 * await Deno.link(`${dir}/a`, `${dir}/b`);
 * const found = await findLinkedFiles([dir]);
 * if (found.count !== 2 || !found.complete) throw new Error(JSON.stringify(found));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function findLinkedFiles(
  roots: readonly string[],
  options: LinkedFilesOptions = {},
): Promise<LinkedFiles> {
  let budget = options.maxEntries ?? 20_000;
  const keep = options.keep ?? 3;
  const found: LinkedFiles = { files: [], count: 0, complete: true };
  const queue = [...roots];
  while (queue.length > 0) {
    const folder = queue.shift()!;
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(folder));
    } catch {
      continue; // unreadable or gone
    }
    for (const entry of entries) {
      if (--budget < 0) return { ...found, complete: false };
      const path = join(folder, entry.name);
      if (entry.isDirectory && !SKIPPED.has(entry.name)) queue.push(path);
      if (!entry.isFile) continue;
      const links = await Deno.lstat(path).then((info) => info.nlink ?? 1, () => 1);
      if (links < 2) continue;
      found.count++;
      if (found.files.length < keep) found.files.push(path);
    }
  }
  return found;
}

/**
 * The start-up warning for linked files, or undefined when none was found.
 *
 * @param found What {@linkcode findLinkedFiles} found.
 * @param cwd Names are shown relative to it.
 *
 * @example
 * ```ts
 * import { linkedFilesWarning } from "./hard_links.ts";
 * const line = linkedFilesWarning({ files: ["/w/node_modules/a.js"], count: 40, complete: true }, "/w");
 * if (!line?.startsWith("40 files in the write grant have other hard links (node_modules/a.js")) throw new Error(line);
 * ```
 */
export function linkedFilesWarning(found: LinkedFiles, cwd: string): string | undefined {
  if (found.count === 0) return undefined;
  const names = found.files.map((file) => relative(cwd, file) || file).join(", ");
  const more = found.count > found.files.length
    ? ` and ${found.count - found.files.length} more`
    : "";
  const counted = found.complete ? `${found.count}` : `at least ${found.count}`;
  return `${counted} file${found.count === 1 ? "" : "s"} in the write grant ` +
    `${found.count === 1 ? "has" : "have"} other hard links (${names}${more}): a command that ` +
    "writes one in place changes it under every name, also outside the workspace (a package " +
    "store); harness's file tools replace such a file instead";
}
