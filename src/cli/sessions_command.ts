// `harness sessions`: list, export, search and delete recorded sessions.

import type { Command } from "./args.ts";
import { formatAgentError } from "../errors.ts";
import { EXIT } from "../run_print.ts";
import { type CommandIO, openStoreOrExit } from "./run_command.ts";

/** `harness sessions list|export|search|delete`: the session log without a model. */
export async function runSessionsCommand(
  command: Extract<Command, { kind: "sessions" }>,
  io: CommandIO,
): Promise<number> {
  const store = openStoreOrExit({ ...command.flags, noSession: false }, io);
  if (typeof store === "number") return store;
  try {
    switch (command.action) {
      case "list": {
        const listed = store.listSessions({ limit: 50 });
        if (!listed.ok) {
          io.printError(formatAgentError(listed.error));
          return EXIT.runtime;
        }
        const sessions = listed.value;
        if (sessions.length === 0) console.log("No sessions yet");
        for (const s of sessions) {
          const first = (s.firstUserMessage ?? "").replace(/\s+/g, " ").slice(0, 60);
          console.log(
            `${s.id}  ${
              s.startedAt.slice(0, 16).replace("T", " ")
            }  ${s.userTurns} turns  ${s.model}  ${s.cwd}  ${first}`,
          );
        }
        return EXIT.ok;
      }
      case "export": {
        const exported = store.exportSession(command.arg!, (line) => console.log(line));
        if (!exported.ok) {
          io.printError(formatAgentError(exported.error));
          return EXIT.usage;
        }
        return EXIT.ok;
      }
      case "search": {
        const searched = store.searchSessions(command.arg!);
        if (!searched.ok) {
          io.printError(formatAgentError(searched.error));
          return EXIT.runtime;
        }
        const found = searched.value;
        if (found.hits.length === 0) console.log(`No messages match "${command.arg}"`);
        for (const hit of found.hits) {
          console.log(
            `${hit.sessionId}  ${hit.at.slice(0, 16).replace("T", " ")}  ${
              hit.type.replace("_message", "")
            }  ${hit.snippet}`,
          );
        }
        return EXIT.ok;
      }
      case "delete": {
        if (!Deno.stdin.isTerminal()) {
          io.printError(
            `Refusing to delete session "${command.arg}" without confirmation: run "harness sessions delete ${command.arg}" in a terminal`,
          );
          return EXIT.usage;
        }
        const deleted = await store.deleteSession(command.arg!, {
          confirm: (s) => {
            const answer = prompt(
              `Delete session ${s.id} (${s.userTurns} turns, ${s.cwd}, "${
                (s.firstUserMessage ?? "").slice(0, 40)
              }")? [y/N]`,
            );
            return answer?.trim().toLowerCase() === "y";
          },
        });
        if (!deleted.ok) {
          io.printError(formatAgentError(deleted.error));
          return EXIT.usage;
        }
        console.log(deleted.value ? `Deleted session ${command.arg}` : "Nothing deleted");
        return EXIT.ok;
      }
      default: {
        const never: never = command.action;
        throw new Error(`unhandled sessions action ${String(never)}`);
      }
    }
  } finally {
    store.close();
  }
}
