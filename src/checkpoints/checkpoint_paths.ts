// Which workspace paths checkpoints may look at and write. A snapshot reads only what the
// session may read (CheckpointAccess, built once at start from the grants and deny lists: the
// one gate plugs in here); a path from a tool's arguments is taken as the file it really
// names (links resolved, inside the workspace); and a restore, whatever the session log says,
// refuses a path with `..`, an absolute path, a `.git` segment, or one whose folders are not
// real folders of the workspace any more (a link there could lead out of it).

import { isAbsolute, join, relative, sep } from "../platform/paths.ts";

/** What the session may touch, asked for every path checkpoints read or write. */
export interface CheckpointAccess {
  /** Whether the session may read this absolute path. */
  mayRead(path: string): boolean;
  /** Whether a restore may write or remove this absolute path. */
  mayWrite(path: string): boolean;
}

/**
 * Checks a workspace-relative path from a record: `/`-separated, no empty, `.` or `..`
 * segment, not absolute, no `.git` segment (git's own folder is never a file of a turn).
 *
 * @param path The path as the record gives it.
 * @returns Why it is refused, or undefined when it is a plain relative path.
 *
 * @example
 * ```ts
 * import { refusedPath } from "./checkpoint_paths.ts";
 * if (refusedPath("src/a.ts") !== undefined) throw new Error();
 * if (refusedPath("../x") === undefined || refusedPath("/etc/passwd") === undefined) throw new Error();
 * if (refusedPath("a/.GIT/hooks/pre-commit") === undefined) throw new Error();
 * ```
 */
export function refusedPath(path: string): string | undefined {
  if (typeof path !== "string" || path === "" || path.includes("\0")) return "it is not a path";
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.startsWith("\\")) {
    return "it is an absolute path";
  }
  const segments = path.split("/");
  if (segments.some((segment) => segment === ".." || segment.split("\\").includes(".."))) {
    return "it leaves the workspace (..)";
  }
  if (segments.some((segment) => segment === "" || segment === ".")) return "it is not plain";
  if (segments.some((segment) => segment.toLowerCase() === ".git")) return "it is inside .git";
  return undefined;
}

/**
 * The first folder on the way to `path` that is not a real folder (a link, a file), or
 * undefined when every folder above it is one (or does not exist yet).
 *
 * @param workspace The workspace (real path).
 * @param path A checked workspace-relative path.
 * @returns The offending folder, workspace-relative.
 */
export function linkOnTheWay(workspace: string, path: string): string | undefined {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const folder = parts.slice(0, i).join("/");
    try {
      if (!Deno.lstatSync(join(workspace, folder)).isDirectory) return folder;
    } catch {
      return undefined; // missing: nothing further down exists either
    }
  }
  return undefined;
}

/**
 * The workspace-relative path of the file a tool's path argument really names: links on the
 * way (and the file itself, when it is a link to a file) resolved, as the tool resolves them.
 *
 * @param workspace The workspace (real path).
 * @param given The argument (relative to the workspace, or absolute).
 * @returns The path, `/`-separated; undefined when it is outside the workspace.
 *
 * @example
 * ```ts
 * import { fileOfArgument } from "./checkpoint_paths.ts";
 * const dir = Deno.realPathSync(Deno.makeTempDirSync());
 * if (fileOfArgument(dir, "./src//a.ts") !== "src/a.ts") throw new Error();
 * if (fileOfArgument(dir, "../x") !== undefined) throw new Error();
 * Deno.removeSync(dir);
 * ```
 */
export function fileOfArgument(workspace: string, given: string): string | undefined {
  const absolute = isAbsolute(given) ? given : join(workspace, given);
  // Resolve what exists of it: the file itself, else its nearest existing folder.
  let real: string | undefined;
  let rest = "";
  let probe = absolute;
  for (let i = 0; i < 4096 && real === undefined; i++) {
    try {
      real = Deno.realPathSync(probe);
    } catch {
      const cut = probe.lastIndexOf(sep);
      if (cut <= 0) return undefined;
      rest = rest === "" ? probe.slice(cut + 1) : `${probe.slice(cut + 1)}${sep}${rest}`;
      probe = probe.slice(0, cut);
    }
  }
  if (real === undefined) return undefined;
  const inside = relative(workspace, rest === "" ? real : join(real, rest));
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) return undefined;
  const path = inside.split(sep).join("/");
  return refusedPath(path) === undefined ? path : undefined;
}

/**
 * A name safe in a file name and a ref: letters, digits, `-` and `_`.
 *
 * @example
 * ```ts
 * import { safeName } from "./checkpoint_paths.ts";
 * if (safeName("a/b c") !== "a_b_c" || safeName("") !== "_") throw new Error();
 * ```
 */
export function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, "_") || "_";
}
