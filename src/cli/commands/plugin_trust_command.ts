// `harness plugin trust [FILE...]`: the plugin author's way to trust project plugins without
// the REPL (which needs a model server). Trust is by content: each file and the local files it
// imports, as they are now; an edit needs trust again.

import { join, relative, resolve } from "node:path";
import { formatAgentError } from "../../errors.ts";
import { discoverPlugins } from "../../plugin_loader/load_plugins.ts";
import { markTrusted, trustHash } from "../../permissions/project_trust.ts";
import { EXIT } from "../../app/exit_codes.ts";
import type { CommandIO } from "../command_io.ts";
import { terminalLine } from "../../platform/terminal_text.ts";

/**
 * Trusts `paths` (default: every plugin file in ./plugins) and prints each with its hash.
 *
 * @returns The exit code: 2 when a file is missing or not a plugin file.
 */
export async function trustPluginFiles(
  paths: readonly string[],
  cwd: string,
  io: CommandIO,
): Promise<number> {
  let files: string[];
  if (paths.length === 0) {
    const found = await discoverPlugins({ cwd, builtinDir: null, userDir: null });
    for (const error of found.errors) io.printError(formatAgentError(error));
    files = found.files.filter((file) => file.origin === "project").map((file) => file.path);
    if (files.length === 0) {
      io.printError(
        `No plugins in "${join(cwd, "plugins")}": write one with "harness plugin new NAME"`,
      );
      return EXIT.usage;
    }
  } else {
    files = [];
    for (const path of paths) {
      const file = resolve(cwd, path);
      const info = await Deno.stat(file).catch(() => undefined);
      if (!info?.isFile || !/\.(ts|js|mts|mjs)$/.test(file)) {
        io.printError(
          `Cannot trust "${path}": ${
            info ? "not a .ts or .js file" : "no such file"
          }: give the path of a plugin file, e.g. plugins/word_count.ts`,
        );
        return EXIT.usage;
      }
      files.push(file);
    }
  }
  const quiet = {
    write: (text: string) => io.printError(text.trimEnd()),
    readLine: () => Promise.resolve(null),
  };
  for (const file of files) {
    const hashed = await trustHash(file);
    if ("error" in hashed) {
      io.printError(`Cannot trust "${relative(cwd, file)}": ${hashed.error}`);
      return EXIT.usage;
    }
    await markTrusted(file, { io: quiet, workspace: cwd });
    // A repository names its plugin files: their escapes show as text.
    const shown = terminalLine(relative(cwd, file) || file);
    console.log(`Trusted ${shown} (sha256 ${hashed.hash.slice(0, 12)})`);
  }
  return EXIT.ok;
}
