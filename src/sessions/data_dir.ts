// Where harness keeps its data: `$XDG_DATA_HOME/harness`, else `~/.local/share/harness`.
// The session database and the REPL history live there.

import { join } from "node:path";

/**
 * The harness data folder.
 *
 * @param env The environment (HOME, USERPROFILE, XDG_DATA_HOME).
 * @returns The folder path.
 *
 * @example
 * ```ts
 * import { harnessDataDir } from "./data_dir.ts";
 * const dir = harnessDataDir({ XDG_DATA_HOME: "/d" });
 * if (dir.replaceAll("\\", "/") !== "/d/harness") throw new Error(dir);
 * ```
 */
export function harnessDataDir(env: Record<string, string | undefined>): string {
  const home = env.HOME ?? env.USERPROFILE ?? ".";
  return join(env.XDG_DATA_HOME || join(home, ".local", "share"), "harness");
}
