// What a project config makes harness run besides its own text: the scripts its hooks' commands
// name (`./scripts/check.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.py`) and the plugin files
// of the folders its `plugins` key names, with every local file they import. Trusting the
// config trusts these bytes too: config_trust.ts hashes them with the file, so a changed
// script asks again, as a changed plugin import does.

import { isAbsolute, join, resolve } from "node:path";
import type { HooksConfig } from "./hooks_config.ts";
import { localImports } from "../platform/import_graph.ts";
import { sha256Hex } from "../platform/sha256_hex.ts";

/** Words of a shell command that look like paths: quotes removed, the project folder set. */
function pathWords(command: string, cwd: string): string[] {
  const expanded = command.replace(/\$\{?CLAUDE_PROJECT_DIR\}?/g, cwd);
  const words = expanded.match(/'[^']*'|"(?:[^"\\]|\\.)*"|[^\s;&|<>()]+/g) ?? [];
  return words
    .map((word) => word.replace(/^['"]|['"]$/g, "").replace(/"/g, ""))
    .filter((word) => /[\\/]/.test(word) && !/^[a-z]+:\/\//i.test(word));
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The plugin files of a folder (`.ts`/`.js`, not `_helpers` or `.d.ts`), as load_plugins.ts lists them. */
function pluginFiles(folder: string): string[] {
  try {
    return [...Deno.readDirSync(folder)]
      .filter((e) =>
        /\.(ts|js)$/.test(e.name) && !e.name.endsWith(".d.ts") && !/^[._]/.test(e.name)
      )
      .map((e) => join(folder, e.name))
      .filter(isFile);
  } catch {
    return [];
  }
}

/**
 * The files a project config runs: hook scripts its commands name (paths that exist), and
 * the plugin files of its `plugins` folders with their local imports. Sorted, each once.
 *
 * @param config The parsed config's `hooks` and `plugins`.
 * @param cwd The workspace (relative paths start there).
 * @returns Absolute paths.
 *
 * @example
 * ```ts
 * import { configScripts } from "./trusted_scripts.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/check.sh`, "#!/bin/sh\n");
 * const hooks = { Stop: [{ hooks: [{ type: "command" as const, command: "sh ./check.sh --all" }] }] };
 * const found = await configScripts({ hooks }, dir);
 * if (found.join() !== `${dir}/check.sh`) throw new Error(found.join());
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function configScripts(
  config: { hooks?: HooksConfig; plugins?: readonly string[] },
  cwd: string,
): Promise<string[]> {
  const found = new Set<string>();
  for (const matchers of Object.values(config.hooks ?? {})) {
    for (const matcher of matchers ?? []) {
      for (const hook of matcher.hooks) {
        for (const word of pathWords(hook.command, cwd)) {
          const path = isAbsolute(word) ? word : resolve(cwd, word);
          if (isFile(path)) found.add(path);
        }
      }
    }
  }
  for (const folder of config.plugins ?? []) {
    for (const file of pluginFiles(resolve(cwd, folder))) {
      found.add(file);
      const graph = await localImports(file).catch(() => undefined);
      for (const imported of graph?.files ?? []) found.add(imported);
    }
  }
  return [...found].sort();
}

/**
 * The digest trust is recorded under for a project config: its text, the workspace it is
 * trusted in, and the bytes of every script it runs. Another workspace, a changed script or
 * a missing one gives another digest, so the user is asked again.
 *
 * @param text The config's text.
 * @param workspace The workspace's real path.
 * @param scripts What {@linkcode configScripts} found.
 * @returns A SHA-256 in hex.
 *
 * @example
 * ```ts
 * import { configTrustDigest } from "./trusted_scripts.ts";
 * if (await configTrustDigest("{}", "/a", []) === await configTrustDigest("{}", "/b", [])) throw new Error();
 * ```
 */
export async function configTrustDigest(
  text: string,
  workspace: string,
  scripts: readonly string[],
): Promise<string> {
  const parts: [string, string][] = [];
  for (const path of scripts) {
    try {
      const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
      parts.push([
        path,
        Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""),
      ]);
    } catch {
      parts.push([path, "missing"]);
    }
  }
  return sha256Hex(JSON.stringify({ config: sha256Hex(text), workspace, scripts: parts }));
}

/**
 * The scripts among `scripts` that a write grant covers (the model could change them): each
 * is named at trust time.
 *
 * @example
 * ```ts
 * import { writableScripts } from "./trusted_scripts.ts";
 * if (writableScripts(["/w/a.sh", "/x/b.sh"], (p) => p.startsWith("/w/")).join() !== "/w/a.sh") throw new Error();
 * ```
 */
export function writableScripts(
  scripts: readonly string[],
  writable: ((path: string) => boolean) | undefined,
): string[] {
  return writable ? scripts.filter(writable) : [];
}
