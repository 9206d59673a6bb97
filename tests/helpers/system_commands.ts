// Which optional programs this machine has (git, mkfifo, wget, ...), asked once at a test
// file's top level so a test that needs one is `ignore:`d where it is missing instead of
// returning early without asserting.

/**
 * Whether `name` is a program on PATH (`command -v` in sh; false without sh, as on Windows).
 *
 * @example
 * ```ts
 * import { hasCommand } from "./system_commands.ts";
 * if (hasCommand("surely-no-such-program-here")) throw new Error();
 * ```
 */
export function hasCommand(name: string): boolean {
  try {
    return new Deno.Command("sh", {
      args: ["-c", `command -v '${name.replaceAll("'", "'\\''")}'`],
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
  } catch {
    return false;
  }
}
