// Workspace path rules shared by every file tool: a path is relative to the workspace root,
// and neither `..`, an absolute path, nor a symlink may lead outside it. The result is the
// real path (links resolved), so the tool opens what was checked and Deno's permission check
// applies to the link's target, not to the link; verified_fs.ts catches a later swap. Runs
// inside the sandbox worker (it only reads the file system).

import { isAbsolute, relative, resolve, sep } from "../platform/paths.ts";
import { realPathSync as realpathSync } from "../platform/real_path.ts";
import { ToolError } from "./define_tool.ts";

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Real path of `path`, or of its nearest existing ancestor joined with the rest. */
function realPathOfExistingPrefix(path: string): string {
  let current = path;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(current);
      return rest.length === 0 ? real : resolve(real, ...rest.reverse());
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const parent = resolve(current, "..");
      if (parent === current) return path;
      rest.push(current.slice(parent.length).replace(/^[\\/]/, ""));
      current = parent;
    }
  }
}

/** True when `path` (absolute) is really inside `root`, symbolic links resolved. */
function isInsideRoot(root: string, path: string): boolean {
  if (!isInside(root, resolve(path))) return false;
  try {
    return isInside(realpathSync(root), realPathOfExistingPrefix(resolve(path)));
  } catch {
    return false;
  }
}

/**
 * Resolves a workspace-relative path to an absolute path inside the workspace.
 *
 * @param workspace Absolute path of the workspace root.
 * @param path The path the model gave.
 * @param roots Folders whose absolute paths are accepted too, links resolved inside them:
 *   where harness saves the full outputs of cut results (results name them), the folders
 *   of skills the session loaded, and plan mode's plan folder (the one place it may write).
 * @returns The real absolute path: symbolic links resolved (for a path that does not exist
 *   yet, those of its nearest existing folder), so opening it opens what was checked.
 * @throws {ToolError} `validation_failed` for absolute paths, `..` escapes and symlinks
 * whose real location is outside the workspace.
 *
 * @example
 * ```ts
 * import { resolveWorkspacePath } from "./workspace_path.ts";
 * const abs = resolveWorkspacePath(Deno.cwd(), "src/x.ts");
 * if (!abs.endsWith("x.ts")) throw new Error(abs);
 * ```
 */
export function resolveWorkspacePath(
  workspace: string,
  path: string,
  roots: string | readonly string[] = [],
): string {
  if (path.includes("\0")) {
    throw new ToolError("validation_failed", `Path "${path}" contains a NUL byte`);
  }
  const outside = typeof roots === "string" ? [roots] : roots;
  if (isAbsolute(path) && outside.some((root) => isInsideRoot(root, path))) {
    return realPathOfExistingPrefix(resolve(path));
  }
  if (isAbsolute(path)) {
    throw new ToolError(
      "validation_failed",
      `Path "${path}" is absolute: give a path relative to the workspace root, e.g. "src/main.ts"`,
    );
  }
  const target = resolve(workspace, path);
  if (!isInside(workspace, target)) {
    throw new ToolError(
      "validation_failed",
      `Path "${path}" is outside the workspace: give a path inside "${workspace}"`,
    );
  }
  let realRoot = workspace;
  try {
    realRoot = realpathSync(workspace);
  } catch { /* a missing root is reported by the tool's own I/O */ }
  // The root itself needs no link resolved, and a read grant narrower than the workspace
  // (`--allow-read=src`) cannot resolve it: a tool walking from it walks the granted folders.
  if (target === resolve(workspace)) return realRoot;
  const realTarget = realPathOfExistingPrefix(target);
  if (!isInside(realRoot, realTarget)) {
    throw new ToolError(
      "validation_failed",
      `Path "${path}" leads outside the workspace through a symbolic link (to "${realTarget}")`,
    );
  }
  return realTarget;
}

/**
 * The workspace-relative form (forward slashes, "" for the root) of a real path that
 * resolveWorkspacePath returned.
 *
 * @param workspace Absolute path of the workspace root (links in it are resolved here).
 * @param realPath A path from resolveWorkspacePath inside the workspace.
 * @returns e.g. "src/tools".
 *
 * @example
 * ```ts
 * import { resolveWorkspacePath, workspaceRelative } from "./workspace_path.ts";
 * const root = Deno.cwd();
 * if (workspaceRelative(root, resolveWorkspacePath(root, "a/b")) !== "a/b") throw new Error();
 * ```
 */
export function workspaceRelative(workspace: string, realPath: string): string {
  let realRoot = workspace;
  try {
    realRoot = realpathSync(workspace);
  } catch { /* a missing root is reported by the tool's own I/O */ }
  return relative(realRoot, realPath).replaceAll("\\", "/");
}
