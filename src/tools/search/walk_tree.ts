// Synchronous directory walk shared by grep_search, glob and get_file_tree: skips VCS folders,
// optionally hidden names, and what .gitignore files exclude (.git/info/exclude, the start
// folder's ancestors, nested ones; compiled once per folder by gitignore_rules.ts). Sync on
// purpose (async ops pay a round trip each); entry types come from readDir, never a stat.
// The walk goes through real paths and checks each folder after listing it, so a folder
// swapped for a symbolic link during the walk stops it instead of leading outside.

import { realPathSync as realpathSync } from "../../platform/real_path.ts";
import { join, sep } from "../../platform/paths.ts";
import { ToolError } from "../define_tool.ts";
import { readDirVerified } from "../verified_fs.ts";
import { type GitignoreEntry, GitignoreRules } from "./gitignore_rules.ts";

/** Folders of version-control systems; never listed or searched. */
export const VCS_DIRS: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  ".bzr",
  ".jj",
  "_darcs",
]);

/** One entry met by the walk. */
export interface WalkEntry {
  /** Path relative to the workspace root, forward slashes, e.g. "src/main.ts". */
  path: string;
  /** Under the workspace's real path (symbolic links of the root resolved). */
  absPath: string;
  name: string;
  /** Symlinks are reported, never followed; "other" is a FIFO, socket or device. */
  kind: "file" | "dir" | "symlink" | "other";
  /** 1 for direct children of the start folder. */
  depth: number;
}

/** What a visitor returns: "skip" does not descend into a folder, "stop" ends the walk. */
export type WalkDecision = void | "skip" | "stop";

export interface WalkOptions {
  /** Include names starting with a dot (VCS folders are always skipped). */
  includeHidden: boolean;
  /** Honour .gitignore files. */
  respectGitignore: boolean;
  /** Deepest level to report (1 = direct children); unlimited when left out. */
  maxDepth?: number;
  /** Called with a folder path (relative, with trailing slash) to prune folders early. */
  enterDir?: (path: string) => boolean;
  /** Called when a folder the sandbox denies is skipped (also listed in deniedDirs). */
  onDenied?: (path: string) => void;
}

/** Totals of one walk. */
export interface WalkSummary {
  stopped: boolean;
  /** Folders that could not be read (OS permission errors). */
  unreadableDirs: number;
  /**
   * Folders below the start that the sandbox refused (a --deny-read entry inside the grant),
   * workspace-relative, in walk order: skipped, never listed. The start folder itself throws.
   */
  deniedDirs: string[];
}

/** Gitignore rules of one folder: `base` is its workspace-relative path with a trailing slash ("" at the root). */
interface IgnoreLevel {
  base: string;
  rules: GitignoreRules;
}

/**
 * An ignore file's text, or null when it is missing or outside the read grant: with
 * `--allow-read=src` the workspace's .git/info/exclude and .gitignore cannot be read, and the
 * walk of what the grant allows goes on without their rules.
 */
function readIgnoreFile(absPath: string): string | null {
  try {
    return Deno.readTextFileSync(absPath);
  } catch {
    return null;
  }
}

function levelFor(base: string, file: string): IgnoreLevel | null {
  const text = readIgnoreFile(file);
  if (text === null) return null;
  const rules = GitignoreRules.parse(text);
  return rules.size === 0 ? null : { base, rules };
}

/**
 * Whether an entry is ignored: the deepest folder's rules speak first and, within a file,
 * the last matching line wins (git's precedence). Every level on the stack belongs to an
 * ancestor of the entry, so no prefix check is needed.
 */
function isIgnored(levels: readonly IgnoreLevel[], entry: GitignoreEntry): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i]!;
    const verdict = level.rules.match(entry, level.base.length);
    if (verdict !== undefined) return verdict;
  }
  return false;
}

/**
 * .git/info/exclude and the .gitignore files of the folders above the start folder. A
 * folder the user named explicitly is searched even when it or a folder above it is
 * ignored; the ancestors' rules are then dropped.
 */
function ancestorLevels(workspace: string, start: string): IgnoreLevel[] {
  return ancestorRules(workspace, start).levels;
}

/** The rules above `start`, and whether they ignore it or a folder above it. */
function ancestorRules(
  workspace: string,
  start: string,
): { levels: IgnoreLevel[]; ignored: boolean } {
  const levels: IgnoreLevel[] = [];
  const exclude = levelFor("", join(workspace, ".git", "info", "exclude"));
  if (exclude !== null) levels.push(exclude);
  if (start === "") return { levels, ignored: false };
  const parts = start.split("/");
  for (let i = 0; i < parts.length; i++) {
    const base = i === 0 ? "" : `${parts.slice(0, i).join("/")}/`;
    const level = levelFor(base, join(workspace, base, ".gitignore"));
    if (level !== null) levels.push(level);
    const folder = { path: base + parts[i]!, name: parts[i]!, isDir: true };
    if (isIgnored(levels, folder)) return { levels: [], ignored: true };
  }
  return { levels, ignored: false };
}

/**
 * Whether .gitignore rules (and .git/info/exclude) ignore a folder or one of the folders
 * above it, as a walk from the workspace root would find.
 *
 * @param workspace Absolute workspace root.
 * @param folder Workspace-relative folder with forward slashes.
 *
 * @example
 * ```ts
 * import { folderIgnored } from "./walk_tree.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/.gitignore`, "build/\n");
 * if (!folderIgnored(dir, "build/x") || folderIgnored(dir, "src")) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function folderIgnored(workspace: string, folder: string): boolean {
  // Nothing ignores the workspace itself: glob from the root asks fd without reading a rule.
  return folder !== "" && ancestorRules(workspace, folder).ignored;
}

/**
 * The workspace's real path, as workspace_path.ts and verified_fs.ts resolve it; the path as
 * given when the read grant holds only folders inside it (`--allow-read=src`: resolving the
 * workspace needs read access to it). The cwd a run starts in is real already.
 */
function realRootOf(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return workspace;
    throw error;
  }
}

function byName(a: Deno.DirEntry, b: Deno.DirEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Walks the tree under `start` depth-first in name order, calling `visit` for each entry.
 *
 * @param workspace Absolute workspace root.
 * @param start Workspace-relative folder with forward slashes ("" or "." for the root), or a
 *   file, visited by itself (a file the read grant names; its folder may be unreadable).
 * @param options Hidden names, gitignore, depth, and a visitor returning "skip" or "stop".
 * @returns Whether the visitor stopped the walk, and how many folders could not be read.
 * @throws {ToolError} validation_failed when a folder is swapped for a symbolic link while
 *   the walk reads it.
 *
 * @example
 * ```ts
 * import { walkTree } from "./walk_tree.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "");
 * await Deno.writeTextFile(`${dir}/.gitignore`, "a.txt\n");
 * const seen: string[] = [];
 * walkTree(dir, "", { includeHidden: true, respectGitignore: true, visit: (e) => { seen.push(e.path); } });
 * if (seen.join() !== ".gitignore") throw new Error(seen.join());
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function walkTree(
  workspace: string,
  start: string,
  options: WalkOptions & { visit: (entry: WalkEntry) => WalkDecision },
): WalkSummary {
  const startPath = start === "." ? "" : start.replace(/^\.\//, "").replace(/\/+$/, "");
  const summary: WalkSummary = { stopped: false, unreadableDirs: 0, deniedDirs: [] };
  const file = startFile(workspace, startPath);
  if (file !== undefined) {
    // A file the read grant names (its folder unreadable) is walked by itself, unless hidden.
    const hidden = startPath.split("/").some((part) => part.startsWith("."));
    if (options.includeHidden || !hidden) summary.stopped = options.visit(file) === "stop";
    return summary;
  }
  const levels = options.respectGitignore ? ancestorLevels(workspace, startPath) : [];
  const maxDepth = options.maxDepth ?? Infinity;
  const { includeHidden, respectGitignore, visit, enterDir } = options;
  const probe: GitignoreEntry = { path: "", name: "", isDir: false }; // reused per entry

  function walkDir(absDir: string, relDir: string, depth: number): boolean {
    let entries: Deno.DirEntry[];
    try {
      entries = readDirVerified(absDir, relDir === "" ? "." : relDir);
    } catch (error) {
      // A denied folder inside the walk is skipped like an ignored one; the start folder
      // denied means the tool cannot do its work, which the error says.
      if (error instanceof Deno.errors.NotCapable && relDir !== startPath) {
        summary.deniedDirs.push(relDir);
        options.onDenied?.(relDir);
        return true;
      }
      if (error instanceof Deno.errors.NotCapable || error instanceof ToolError) throw error;
      summary.unreadableDirs++;
      return true;
    }
    entries.sort(byName);
    const prefix = relDir === "" ? "" : `${relDir}/`;
    let pushed = false;
    if (respectGitignore && entries.some((e) => e.name === ".gitignore")) {
      const level = levelFor(prefix, absDir + sep + ".gitignore");
      if (level !== null) {
        levels.push(level);
        pushed = true;
      }
    }
    try {
      for (const entry of entries) {
        const name = entry.name;
        if (VCS_DIRS.has(name) || (!includeHidden && name.charCodeAt(0) === 46 /* "." */)) continue;
        const isDir = entry.isDirectory;
        const path = prefix + name;
        if (levels.length > 0) {
          probe.path = path;
          probe.name = name;
          probe.isDir = isDir;
          if (isIgnored(levels, probe)) continue;
        }
        const kind = entry.isSymlink ? "symlink" : isDir ? "dir" : entry.isFile ? "file" : "other";
        const absPath = absDir + sep + name;
        const decision = visit({ path, absPath, name, kind, depth });
        if (decision === "stop") return false;
        if (
          kind === "dir" && decision !== "skip" && depth < maxDepth &&
          (enterDir === undefined || enterDir(`${path}/`))
        ) {
          if (!walkDir(absPath, path, depth + 1)) return false;
        }
      }
    } finally {
      if (pushed) levels.pop();
    }
    return true;
  }

  const absStart = startPath === ""
    ? realpathSync(workspace)
    : join(realRootOf(workspace), startPath);
  summary.stopped = !walkDir(absStart, startPath, 1);
  return summary;
}

/** The entry of `start` when it is a file, not a folder (nor a link to one). */
function startFile(workspace: string, start: string): WalkEntry | undefined {
  if (start === "" || start === ".") return undefined;
  const absPath = join(workspace, start);
  try {
    if (!Deno.lstatSync(absPath).isFile) return undefined;
  } catch {
    return undefined;
  }
  return { path: start, absPath, name: start.split("/").at(-1)!, kind: "file", depth: 0 };
}

/**
 * Where a walk that starts at `start` goes under a read grant's places (readRoots in
 * read_roots.ts): `start` itself when one covers it, else the places inside it, in walk order.
 *
 * @example
 * ```ts
 * import { placesUnder } from "./walk_tree.ts";
 * if (placesUnder(["lib/a.ts", "src"], "").join() !== "lib/a.ts,src") throw new Error();
 * if (placesUnder(["src"], "src/x").join() !== "src/x") throw new Error();
 * if (placesUnder(["src"], "lib").length !== 0) throw new Error();
 * ```
 */
export function placesUnder(places: readonly string[], start: string): string[] {
  const within = (path: string, folder: string) =>
    folder === "" || path === folder || path.startsWith(`${folder}/`);
  if (places.some((place) => within(start, place))) return [start];
  return places.filter((place) => within(place, start));
}
