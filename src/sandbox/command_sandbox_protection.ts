// What commands may not change even inside a write grant. A command that writes
// `.git/hooks/*`, `.git/config` (core.fsmonitor, core.hooksPath, aliases) or `.git/index` (a
// gitlink to a nested repository whose own config names a program) runs code the next time
// the user types `git status` outside harness, and nothing of it shows in `git diff`; harness's
// settings, trust stores and plugins run code the next time harness starts. So the command
// sandbox keeps them read-only: `.git` (unless the user opts in), `.harness`, every plugin
// folder harness loads and harness's own folders. Work-tree files (.envrc, .vscode/, scripts)
// stay writable: they are the project, and every change to them shows in `git diff`.

import { dirname, isAbsolute, join, resolve } from "node:path";
import { grantCovers } from "./permission_value.ts";
import { realPathIfExists } from "../platform/real_path_if_exists.ts";

/** What the command sandbox keeps read-only; decided on the host at start. */
export interface CommandProtection {
  /** Folders whose `.git` and `.harness` are kept read-only: the workspace and write grants. */
  roots: string[];
  /** Folders kept read-only whole: the plugin folders, harness's own folders. */
  folders: string[];
  /** `.git` stays writable (`--writable-git`, config `writable_git`). */
  writableGit: boolean;
}

/** Where the kept paths may be written at all: the write grants as commands get them. */
interface Writable {
  writeAll: boolean;
  write: readonly string[];
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function realPathOf(path: string): string {
  return realPathIfExists(path) ?? path;
}

function readSmallFile(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path).trim();
  } catch {
    return undefined;
  }
}

/**
 * A repository's git folders: `.git` itself and, when `.git` is a file (a linked worktree or
 * a submodule: `gitdir: PATH`), the folder it names and that folder's common folder (where a
 * worktree's config and hooks are).
 */
function gitFolders(dotGit: string): string[] {
  if (!exists(dotGit)) return [];
  const found = [dotGit];
  const pointer = readSmallFile(dotGit);
  const gitdir = pointer?.startsWith("gitdir:") ? pointer.slice(7).trim() : undefined;
  if (gitdir !== undefined && gitdir !== "") {
    const target = isAbsolute(gitdir) ? gitdir : resolve(dirname(dotGit), gitdir);
    found.push(target);
    const common = readSmallFile(join(target, "commondir"));
    if (common) found.push(isAbsolute(common) ? common : resolve(target, common));
  }
  return found;
}

/** The nearest `.git` at or above `folder`, if any. */
function enclosingGit(folder: string): string | undefined {
  for (let dir = folder;; dir = dirname(dir)) {
    const candidate = join(dir, ".git");
    if (exists(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The paths under protection whether or not they exist, for explaining a refused write
 * without touching the file system (a tool worker may not read them).
 *
 * @example
 * ```ts
 * import { protectedCandidates } from "./command_sandbox_protection.ts";
 * const paths = protectedCandidates({ roots: ["/w"], folders: ["/p"], writableGit: false });
 * if (paths.join() !== "/w/.git,/w/.harness,/p") throw new Error(paths.join());
 * ```
 */
export function protectedCandidates(protection: CommandProtection): string[] {
  return [
    ...protection.roots.flatMap((root) => [
      ...(protection.writableGit ? [] : [join(root, ".git")]),
      join(root, ".harness"),
    ]),
    ...protection.folders,
  ];
}

/**
 * The paths to keep read-only for a command starting now: each that exists, lies inside a
 * write grant (elsewhere it is read-only or hidden already, and binding it would show it)
 * and does not hold a root itself (the user works in there on purpose), links resolved.
 *
 * @param protection What to protect.
 * @param writable The write grants as commands get them (commandRules).
 * @returns Real paths, for `--ro-bind` (bubblewrap) or `deny file-write*` (sandbox-exec).
 */
export function readOnlyPaths(protection: CommandProtection, writable: Writable): string[] {
  const candidates: string[] = [];
  for (const root of protection.roots) {
    if (!protection.writableGit) {
      candidates.push(...gitFolders(join(root, ".git")));
    }
    candidates.push(join(root, ".harness"));
  }
  if (!protection.writableGit && writable.writeAll) {
    // Writing everything includes the repository the workspace sits in.
    const outer = protection.roots[0] === undefined ? undefined : enclosingGit(protection.roots[0]);
    if (outer !== undefined) candidates.push(...gitFolders(outer));
  }
  candidates.push(...protection.folders);
  const kept = new Set<string>();
  for (const candidate of candidates) {
    if (!exists(candidate)) continue;
    const real = realPathOf(candidate);
    const insideWrite = writable.writeAll || grantCovers("write", writable.write, real) ||
      grantCovers("write", writable.write, candidate);
    const holdsRoot = protection.roots.some((root) => grantCovers("read", [real], root));
    if (insideWrite && !holdsRoot) kept.add(real);
  }
  return [...kept];
}

/**
 * The protection of a run: `.git` and `.harness` of the workspace and of each write grant,
 * and `folders` (plugin folders, harness's own) as a whole.
 *
 * @param options `workspace`; `writeRoots`: the write grants' folders; `folders`: plugin and
 *   harness folders; `writableGit`: the user's opt-in.
 *
 * @example
 * ```ts
 * import { commandProtection } from "./command_sandbox_protection.ts";
 * const p = commandProtection({ workspace: "/w", writeRoots: ["/w", "/out"], folders: [], writableGit: false });
 * if (p.roots.join() !== "/w,/out") throw new Error(p.roots.join());
 * ```
 */
export function commandProtection(options: {
  workspace: string;
  writeRoots: readonly string[];
  folders: readonly string[];
  writableGit: boolean;
}): CommandProtection {
  return {
    roots: [...new Set([options.workspace, ...options.writeRoots])],
    folders: [...new Set(options.folders)],
    writableGit: options.writableGit,
  };
}
