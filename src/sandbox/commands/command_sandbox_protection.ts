// What commands may not change even inside a write grant. A command that writes
// `.git/hooks/*`, `.git/config` (core.fsmonitor, core.hooksPath, aliases) or `.git/index` (a
// gitlink to a nested repository whose own config names a program) runs code the next time
// the user types `git status` outside harness, and nothing of it shows in `git diff`; harness's
// settings, trust stores and plugins run code the next time harness starts. So the command
// sandbox keeps them read-only: `.git` (unless the user opts in), `.harness`, every plugin
// folder harness loads and harness's own folders. Work-tree files (.envrc, .vscode/, scripts)
// stay writable: they are the project, and every change to them shows in `git diff`.

import { dirname, join } from "../../platform/paths.ts";
import { grantCovers } from "../grants/permission_value.ts";
import { realPathIfExists } from "../../platform/real_path_if_exists.ts";
import type { GateRules, HiddenEntry } from "../../gate/gate_types.ts";
import { enclosingGit, gitFolders } from "../../gate/protected_set.ts";
import { entryExists } from "../../platform/entry_exists.ts";

/** What the command sandbox keeps read-only; decided on the host at start. */
export interface CommandProtection {
  /** Folders whose `.git` and `.harness` are kept read-only: the workspace and write grants. */
  roots: string[];
  /** Folders and files kept read-only whole: plugin folders, harness's own, git's programs. */
  folders: string[];
  /** `.git` stays writable (`--writable-git`, config `writable_git`). */
  writableGit: boolean;
  /** Folders hidden from commands whatever the read grants (harness's data), with exceptions. */
  hidden?: HiddenEntry[];
}

/** Where the kept paths may be written at all: the write grants as commands get them. */
interface Writable {
  writeAll: boolean;
  write: readonly string[];
}

function realPathOf(path: string): string {
  return realPathIfExists(path) ?? path;
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
    if (!entryExists(candidate)) continue;
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
  hidden?: readonly HiddenEntry[];
}): CommandProtection {
  return {
    roots: [...new Set([options.workspace, ...options.writeRoots])],
    folders: [...new Set(options.folders)],
    writableGit: options.writableGit,
    ...(options.hidden ? { hidden: [...options.hidden] } : {}),
  };
}

/**
 * The command protection of the file gate's rules: its protected entries kept read-only (and
 * `.git` of each root found again for each command, a repository made since included), its
 * hidden folders hidden.
 *
 * @param rules The gate's rules (gate/protected_set.ts).
 * @param workspace The workspace.
 * @returns What commands may not change or see.
 */
export function protectionFromGate(rules: GateRules, workspace: string): CommandProtection {
  const writeRoots = rules.write === true ? [] : rules.write;
  return commandProtection({
    workspace,
    writeRoots,
    folders: rules.protected.map((entry) => entry.path),
    writableGit: !rules.protectedNames.includes(".git"),
    hidden: rules.hidden,
  });
}

/**
 * The folders to make mount points of their own so that a command cannot rename them: every
 * folder between a kept path and the write grant holding it. A confined command could
 * otherwise rename the folder above a hidden file or a read-only folder and reach the file, or
 * plant another at the old path, outside the sandbox (the mounts stay where they were).
 * Binding a folder onto itself keeps it writable; only rename and removal fail (EBUSY).
 *
 * @param kept Real paths kept read-only or hidden inside the write grants.
 * @param writable The write grants as commands get them.
 * @returns Folders, outermost first.
 *
 * @example
 * ```ts
 * import { renamePins } from "./command_sandbox_protection.ts";
 * const pins = renamePins(["/w/a/b/.git"], { writeAll: false, write: ["/w"] });
 * if (pins.join() !== "/w/a,/w/a/b") throw new Error(pins.join());
 * ```
 */
export function renamePins(kept: readonly string[], writable: Writable): string[] {
  const pins = new Set<string>();
  for (const path of kept) {
    const roots = writable.writeAll
      ? ["/"]
      : writable.write.filter((root) => grantCovers("write", [root], path));
    if (roots.length === 0) continue;
    const root = roots.reduce((a, b) => (a.length >= b.length ? a : b));
    for (let dir = dirname(path); dir !== root && dir.startsWith(root); dir = dirname(dir)) {
      if (dirname(dir) === dir) break;
      pins.add(dir);
    }
  }
  return [...pins].sort((a, b) => a.split("/").length - b.split("/").length);
}
