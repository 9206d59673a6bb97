// What every subcommand shares: where its errors go, and loading settings with the error
// printed and the exit code returned when that fails.

import type { RunFlags } from "../app/run_flags.ts";
import { loadSettings, type Settings } from "../config/settings.ts";
import { formatAgentError } from "../errors.ts";
import { EXIT } from "../app/exit_codes.ts";

/** Where a command prints its errors (stderr, or a test's sink). */
export interface CommandIO {
  printError(message: string): void;
}

/** Loads settings or prints the config error. */
export async function settingsOrExit(flags: RunFlags, io: CommandIO): Promise<Settings | number> {
  const settings = await loadSettings(flags, { cwd: Deno.cwd() });
  if (!settings.ok) {
    io.printError(formatAgentError(settings.error));
    return EXIT.usage;
  }
  return settings.value;
}
