// Every folder harness keeps things in, in one place: settings, trust stores, policies and the
// user's plugins under `$XDG_CONFIG_HOME/harness` (else `~/.config/harness`); the session
// database, the REPL history, the code graph and the saved full outputs of cut tool results
// under `$XDG_DATA_HOME/harness` (else `~/.local/share/harness`), owner-only (folders 0700,
// files 0600) because outputs can hold any project's secrets; caches under
// `$XDG_CACHE_HOME/harness` (else `~/.cache/harness`).

import { join } from "../platform/paths.ts";
import { sha256Hex } from "../platform/sha256_hex.ts";

/** The environment a folder is computed from: a record, or a lookup such as `Deno.env.get`. */
export type FolderEnv =
  | Record<string, string | undefined>
  | ((name: string) => string | undefined);

function lookup(env: FolderEnv, name: string): string | undefined {
  return typeof env === "function" ? env(name) : env[name];
}

function processEnv(name: string): string | undefined {
  return Deno.env.get(name);
}

/**
 * The user's home folder: `HOME`, else `USERPROFILE`, else `.`.
 *
 * @example
 * ```ts
 * import { homeDir } from "./folders.ts";
 * if (homeDir({ HOME: "/h" }) !== "/h" || homeDir({}) !== ".") throw new Error();
 * ```
 */
export function homeDir(env: FolderEnv = processEnv): string {
  return lookup(env, "HOME") ?? lookup(env, "USERPROFILE") ?? ".";
}

function xdgDir(env: FolderEnv, variable: string, fallback: string[]): string {
  const xdg = lookup(env, variable);
  return join(xdg || join(homeDir(env), ...fallback), "harness");
}

/**
 * The configuration folder: `$XDG_CONFIG_HOME/harness`, else `~/.config/harness`.
 *
 * @example
 * ```ts
 * import { configDir } from "./folders.ts";
 * if (configDir({ XDG_CONFIG_HOME: "/c" }).replaceAll("\\", "/") !== "/c/harness") throw new Error();
 * ```
 */
export function configDir(env: FolderEnv = processEnv): string {
  return xdgDir(env, "XDG_CONFIG_HOME", [".config"]);
}

/**
 * The data folder: `$XDG_DATA_HOME/harness`, else `~/.local/share/harness`.
 *
 * @example
 * ```ts
 * import { dataDir } from "./folders.ts";
 * const dir = dataDir({ XDG_DATA_HOME: "/d" });
 * if (dir.replaceAll("\\", "/") !== "/d/harness") throw new Error(dir);
 * ```
 */
export function dataDir(env: FolderEnv = processEnv): string {
  return xdgDir(env, "XDG_DATA_HOME", [".local", "share"]);
}

/**
 * The cache folder: `$XDG_CACHE_HOME/harness`, else `~/.cache/harness`; `undefined` when
 * neither that variable nor a home folder is known (nothing is cached then).
 *
 * @example
 * ```ts
 * import { cacheDir } from "./folders.ts";
 * if (cacheDir({ XDG_CACHE_HOME: "/c" })?.replaceAll("\\", "/") !== "/c/harness") throw new Error();
 * if (cacheDir({}) !== undefined) throw new Error();
 * ```
 */
export function cacheDir(env: FolderEnv = processEnv): string | undefined {
  const xdg = lookup(env, "XDG_CACHE_HOME");
  if (xdg) return join(xdg, "harness");
  const home = lookup(env, "HOME") ?? lookup(env, "USERPROFILE");
  return home ? join(home, ".cache", "harness") : undefined;
}

/**
 * Where downloaded models are kept: `<cache>/models` (`~/.cache/harness/models`, else
 * `./.cache/harness/models` when no home folder is known).
 *
 * @example
 * ```ts
 * import { modelCacheDir } from "./folders.ts";
 * const dir = modelCacheDir({ XDG_CACHE_HOME: "/c" });
 * if (dir.replaceAll("\\", "/") !== "/c/harness/models") throw new Error(dir);
 * ```
 */
export function modelCacheDir(env: FolderEnv = processEnv): string {
  return join(xdgDir(env, "XDG_CACHE_HOME", [".cache"]), "models");
}

/**
 * The user's plugin folder, `<config>/plugins`; `undefined` when neither `XDG_CONFIG_HOME`
 * nor a home folder is known.
 *
 * @example
 * ```ts
 * import { userPluginDir } from "./folders.ts";
 * const dir = userPluginDir({ XDG_CONFIG_HOME: "/cfg" });
 * if (dir?.replaceAll("\\", "/") !== "/cfg/harness/plugins") throw new Error(dir);
 * ```
 */
export function userPluginDir(env: FolderEnv = processEnv): string | undefined {
  const known = lookup(env, "XDG_CONFIG_HOME") || lookup(env, "HOME") ||
    lookup(env, "USERPROFILE");
  return known ? join(configDir(env), "plugins") : undefined;
}

/**
 * The root of saved tool outputs, `<data>/outputs`; each workspace has its own folder under it
 * ({@linkcode workspaceDataDir}).
 *
 * @example
 * ```ts
 * import { savedOutputsRoot } from "./folders.ts";
 * if (!savedOutputsRoot({ XDG_DATA_HOME: "/d" }).endsWith("outputs")) throw new Error();
 * ```
 */
export function savedOutputsRoot(env: FolderEnv = processEnv): string {
  return join(dataDir(env), "outputs");
}

/**
 * The folder under a session data folder where full outputs of cut results are saved. Tools
 * that may read the workspace may read it too (sandbox_worker.ts, workspace_path.ts), so the
 * data folder must be the workspace's own ({@linkcode workspaceDataDir}).
 *
 * @example
 * ```ts
 * import { toolOutputsDir } from "./folders.ts";
 * if (!toolOutputsDir("/data").endsWith("tool_outputs")) throw new Error();
 * ```
 */
export function toolOutputsDir(dataDir: string): string {
  return join(dataDir, "tool_outputs");
}

/** The folder name of each real workspace path hashed so far (a start asks for it often). */
const workspaceNames = new Map<string, string>();

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
  let name = workspaceNames.get(real);
  if (name === undefined) {
    name = sha256Hex(real).slice(0, 16);
    workspaceNames.set(real, name);
  }
  return join(root, name);
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
