// Which session a run continues: a new one, the latest in this folder (--continue), a given
// one (--resume ID), or one picked from a numbered list (--resume alone, on a terminal).

import type { RunFlags } from "../app/run_flags.ts";
import type { CommandIO } from "./command_io.ts";
import { formatAgentError } from "../errors.ts";
import { EXIT } from "../app/exit_codes.ts";
import { turnCount } from "../sessions/turn_count.ts";
import type { SessionStore } from "../sessions/session_store_types.ts";
import { terminalLine } from "../platform/terminal_text.ts";

/**
 * The id of the session to resume, `undefined` for a new one, or the exit code after the
 * error was printed (`fatalIo` for --continue's errors, `io` for the picker's).
 */
export function chooseSession(
  flags: RunFlags,
  store: SessionStore,
  cwd: string,
  io: { fatal: CommandIO; plain: CommandIO },
): string | undefined | { exit: number } {
  if (flags.continue) {
    const found = store.latestSession(cwd);
    if (!found.ok) {
      io.fatal.printError(formatAgentError(found.error));
      return { exit: EXIT.runtime };
    }
    if (!found.value) {
      // A runtime condition (what the log holds), not a mistake in the command line.
      io.fatal.printError(`No session to continue in "${cwd}": start one with "harness"`);
      return { exit: EXIT.runtime };
    }
    return found.value.id;
  }
  if (typeof flags.resume === "string") return flags.resume;
  if (flags.resume === true) return pickSession(store, cwd, io.plain) ?? { exit: EXIT.usage };
  return undefined;
}

/** The sessions of this folder as `/resume` lists them: id, start, turns, model, first line. */
export function formatSessions(store: SessionStore, cwd: string): string {
  const listed = store.listSessions({ cwd, limit: 20 });
  if (!listed.ok) return formatAgentError(listed.error);
  const sessions = listed.value;
  if (sessions.length === 0) return "No sessions in this folder yet";
  return sessions.map((s) =>
    terminalLine(
      `${s.id}  ${s.startedAt.slice(0, 16).replace("T", " ")}  ${
        turnCount(s.userTurns)
      }  ${s.model}  ${(s.firstUserMessage ?? "").replace(/\s+/g, " ").slice(0, 60)}`,
    )
  ).join("\n");
}

function pickSession(store: SessionStore, cwd: string, io: CommandIO): string | undefined {
  const listed = store.listSessions({ cwd, limit: 20, withUserMessage: true });
  if (!listed.ok) {
    io.printError(formatAgentError(listed.error));
    return undefined;
  }
  const sessions = listed.value;
  if (sessions.length === 0) {
    io.printError(`No sessions in "${cwd}": start one with "harness"`);
    return undefined;
  }
  if (!Deno.stdin.isTerminal()) {
    io.printError(
      `--resume needs a session id when stdin is not a terminal: run "harness sessions" to list them`,
    );
    return undefined;
  }
  sessions.forEach((s, i) =>
    console.log(
      `[${i + 1}] ${s.id}  ${s.startedAt.slice(0, 16).replace("T", " ")}  ${
        turnCount(s.userTurns)
      }  ${(s.firstUserMessage ?? "").slice(0, 60)}`,
    )
  );
  const answer = prompt("Resume which session?");
  const index = Number(answer) - 1;
  const chosen = sessions[index];
  if (!chosen) {
    io.printError(`No session numbered "${answer}"`);
    return undefined;
  }
  return chosen.id;
}
