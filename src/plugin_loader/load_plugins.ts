// Plugin discovery: lists the tool files the sandbox should load, in precedence order
// (built-in, user, project, --plugins folders). It only reads folder listings on the trusted
// main thread; importing and validating the files happens inside a sandbox worker
// (src/sandbox/workers/tool_worker.ts), driven by src/sandbox/workers/tool_host.ts.

import { join, resolve } from "../platform/paths.ts";
import { fileURLToPath, pathToFileURL } from "../platform/file_urls.ts";
import type { AgentError } from "../errors.ts";
import { userPluginDir } from "../config/folders.ts";
import { harnessUrl } from "../platform/own_modules.ts";

/** Where a plugin file came from; earlier origins win on duplicate names. */
export type PluginOrigin = "builtin" | "user" | "project" | "flag";

/** One discovered plugin file. */
export interface PluginFile {
  /** Absolute path of the file. */
  path: string;
  /** `file:` URL the worker imports. */
  url: string;
  origin: PluginOrigin;
  /** File name without extension; must equal the tool's name. */
  name: string;
}

/**
 * The folder of built-in tools (`plugins/` of this repository, embedded in binaries).
 *
 * @example
 * ```ts
 * import { builtinPluginDir } from "./load_plugins.ts";
 * if (!builtinPluginDir().endsWith("plugins/")) throw new Error();
 * ```
 */
export function builtinPluginDir(): string {
  return fileURLToPath(harnessUrl("plugins/"));
}

function isPluginFileName(name: string): boolean {
  // `_helpers.ts` and dotfiles are support files, not tools; `.d.ts` holds only types.
  return /\.(ts|js)$/.test(name) && !name.endsWith(".d.ts") && !/^[._]/.test(name);
}

async function listFolder(
  dir: string,
  origin: PluginOrigin,
): Promise<{ files: PluginFile[]; error?: AgentError }> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!isPluginFileName(entry.name)) continue;
      if (entry.isFile) names.push(entry.name);
      else if (entry.isSymlink) {
        const info = await Deno.stat(join(dir, entry.name)).catch(() => null);
        if (info?.isFile) names.push(entry.name);
      }
    }
  } catch (error) {
    // Optional folders; a missing --plugins folder was refused earlier by loadSettings.
    if (error instanceof Deno.errors.NotFound) return { files: [] };
    const reason = error instanceof Error ? error.message : String(error);
    return {
      files: [],
      error: {
        kind: "plugin_invalid",
        file: dir,
        reason: `cannot read the plugin folder: ${reason}. Check its permissions`,
      },
    };
  }
  names.sort();
  const files = names.map((fileName) => {
    const path = join(dir, fileName);
    return {
      path,
      url: pathToFileURL(path).href,
      origin,
      name: fileName.replace(/\.(ts|js)$/, ""),
    };
  });
  return { files };
}

/**
 * Lists plugin files: the built-in folder, the user's folder, `./plugins` in `cwd`, then each
 * `--plugins` folder. Names are sorted within a folder; a folder reached twice is listed
 * once. A missing folder is skipped silently (the default folders are optional, and
 * loadSettings in src/config/settings.ts has already refused a missing `--plugins` folder with a usage
 * error, exit 2); an unreadable one is reported.
 *
 * @param options Folder overrides (tests pass their own); `env` defaults to `Deno.env`.
 * @returns Files in precedence order and `plugin_invalid` errors for unreadable folders.
 *
 * @example
 * ```ts
 * import { discoverPlugins } from "./load_plugins.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/b.ts`, "");
 * await Deno.writeTextFile(`${dir}/a.js`, "");
 * await Deno.writeTextFile(`${dir}/notes.md`, "");
 * const { files } = await discoverPlugins({ builtinDir: null, userDir: null, cwd: "/nonexistent", pluginDirs: [dir] });
 * if (files.map((f) => f.name).join() !== "a,b" || files[0]?.origin !== "flag") throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function discoverPlugins(
  options: {
    cwd?: string;
    pluginDirs?: readonly string[];
    /** Of `pluginDirs`, those the user named on the command line: naming ./plugins there
     * vouches for it (its files load as "flag", not as untrusted "project"). */
    namedDirs?: readonly string[];
    /** `null` skips the built-in folder. */
    builtinDir?: string | null;
    /** `null` skips the user folder. */
    userDir?: string | null;
    env?: Record<string, string | undefined>;
  } = {},
): Promise<{ files: PluginFile[]; errors: AgentError[] }> {
  const cwd = options.cwd ?? Deno.cwd();
  const userDir = options.userDir === undefined
    ? userPluginDir(options.env ?? Deno.env.toObject())
    : options.userDir;
  const builtinDir = options.builtinDir === undefined ? builtinPluginDir() : options.builtinDir;
  const folders: [string | null | undefined, PluginOrigin][] = [
    [builtinDir, "builtin"],
    [userDir, "user"],
    [join(cwd, "plugins"), "project"],
    ...(options.pluginDirs ?? []).map((d): [string, PluginOrigin] => [resolve(cwd, d), "flag"]),
  ];
  const seen = new Set<string>();
  const files: PluginFile[] = [];
  const errors: AgentError[] = [];
  const realOf = (dir: string) => Deno.realPath(dir).catch(() => resolve(dir));
  // A folder the user names with --plugins is theirs to vouch for, also ./plugins; a config
  // file's folder is not (a relative "./plugins" there would vouch for every repository).
  const named = new Set(
    await Promise.all((options.namedDirs ?? []).map((d) => realOf(resolve(cwd, d)))),
  );
  for (const [dir, folderOrigin] of folders) {
    if (!dir) continue;
    const real = await realOf(dir);
    if (seen.has(real)) continue; // e.g. running harness inside its own repository
    seen.add(real);
    const origin = folderOrigin === "project" && named.has(real) ? "flag" : folderOrigin;
    const listed = await listFolder(dir, origin);
    files.push(...listed.files);
    if (listed.error) errors.push(listed.error);
  }
  return { files, errors };
}
