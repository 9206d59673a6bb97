// Where harness keeps its data: `$XDG_DATA_HOME/harness`, else `~/.local/share/harness`.
// The session database, the REPL history and the full outputs of cut tool results live there,
// owner-only (folders 0700, files 0600): outputs can hold any project's secrets.

import { join } from "node:path";
import { sha256Hex } from "../platform/sha256_hex.ts";

/**
 * The harness data folder.
 *
 * @param env The environment (HOME, USERPROFILE, XDG_DATA_HOME).
 * @returns The folder path.
 *
 * @example
 * ```ts
 * import { harnessDataDir } from "./folders.ts";
 * const dir = harnessDataDir({ XDG_DATA_HOME: "/d" });
 * if (dir.replaceAll("\\", "/") !== "/d/harness") throw new Error(dir);
 * ```
 */
export function harnessDataDir(env: Record<string, string | undefined>): string {
  const home = env.HOME ?? env.USERPROFILE ?? ".";
  return join(env.XDG_DATA_HOME || join(home, ".local", "share"), "harness");
}

/**
 * The folder of one workspace's tool data under a root such as `<data>/outputs`: named by the
 * first 16 hex digits of the SHA-256 of the workspace's real path, so a session in one project
 * is granted (and can read) only its own saved outputs, never another project's.
 *
 * @param root The folder that holds every workspace's folder.
 * @param workspace The workspace (its real path is hashed when it exists).
 * @returns `<root>/<hash>`.
 *
 * @example
 * ```ts
 * import { workspaceDataDir } from "./folders.ts";
 * const a = workspaceDataDir("/d/outputs", "/projects/a");
 * if (a === workspaceDataDir("/d/outputs", "/projects/b")) throw new Error();
 * if (!a.replaceAll("\\", "/").startsWith("/d/outputs/")) throw new Error(a);
 * ```
 */
export function workspaceDataDir(root: string, workspace: string): string {
  let real = workspace;
  try {
    real = Deno.realPathSync(workspace);
  } catch { /* a missing folder is hashed as given */ }
  return join(root, sha256Hex(real).slice(0, 16));
}

/**
 * Creates a folder (and missing parents) readable only by its owner, and makes an existing
 * one owner-only too: `mkdir -p` leaves the modes of folders that already exist alone.
 *
 * @param path The folder.
 *
 * @example
 * ```ts
 * import { ensurePrivateDir } from "./folders.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.chmod(dir, 0o755);
 * ensurePrivateDir(`${dir}/a`);
 * ensurePrivateDir(dir);
 * if (Deno.build.os !== "windows" && (Deno.statSync(dir).mode! & 0o777) !== 0o700) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function ensurePrivateDir(path: string): void {
  Deno.mkdirSync(path, { recursive: true, mode: 0o700 });
  makeOwnerOnly(path, 0o700);
}

/**
 * Sets `mode` (0o700 for folders, 0o600 for files) on a path the user owns; does nothing on
 * Windows or for a file owned by someone else (chmod would fail there).
 *
 * @param path A file or folder.
 * @param mode The owner-only mode.
 *
 * @example
 * ```ts
 * import { makeOwnerOnly } from "./folders.ts";
 * const file = await Deno.makeTempFile();
 * makeOwnerOnly(file, 0o600);
 * if (Deno.build.os !== "windows" && (Deno.statSync(file).mode! & 0o777) !== 0o600) throw new Error();
 * await Deno.remove(file);
 * ```
 */
export function makeOwnerOnly(path: string, mode: 0o700 | 0o600): void {
  if (Deno.build.os === "windows") return;
  try {
    const info = Deno.statSync(path);
    if (info.mode !== null && (info.mode & 0o777) !== mode) Deno.chmodSync(path, mode);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    if (error instanceof Deno.errors.PermissionDenied) return; // not the owner
    throw error;
  }
}
