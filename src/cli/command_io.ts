// What every subcommand shares: where its errors go, and loading settings or opening the
// session store with the error printed and the exit code returned when that fails.

import type { RunFlags } from "../app/run_flags.ts";
import { loadSettings, type Settings } from "../config/settings.ts";
import { type AgentError, formatAgentError } from "../errors.ts";
import { createNullSessionStore, openSessionStore } from "../sessions/open_session_store.ts";
import type { SessionStore } from "../sessions/session_store_types.ts";
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

/** Opens the session store, or the null store with --no-session. */
export function openStoreOrExit(
  flags: RunFlags,
  io: CommandIO,
  onWriteError?: (error: AgentError) => void,
): SessionStore | number {
  if (flags.noSession) return createNullSessionStore();
  const store = openSessionStore(onWriteError ? { onWriteError } : {});
  if (!store.ok) {
    io.printError(`${formatAgentError(store.error)}`);
    return EXIT.runtime;
  }
  return store.value;
}
