// The REPL's /undo and /rewind (app/restore_files.ts does the work): /undo puts back the files
// the last turn changed; /rewind lists the conversation's messages, or takes a number, and
// goes back before it, files and conversation. A file the user changed since is asked about.

import type { ReplControl, SlashCommand } from "../../ui/repl.ts";
import {
  type ConflictAnswer,
  conflictQuestion,
  formatTurns,
  type RestoreReport,
  rewindTo,
  undoLastTurn,
} from "../../app/restore_files.ts";
import { terminalLine } from "../../platform/terminal_text.ts";

/** How the REPL asks: one key, or one line. */
export interface RestoreAsk {
  key(question: string): Promise<string>;
  line(question: string): Promise<string | null>;
}

/**
 * /undo and /rewind over the REPL's conversation.
 *
 * @param ask Reads the user's key or line at a question.
 * @returns The two commands.
 */
export function restoreCommands(ask: RestoreAsk): SlashCommand[] {
  const conflicts = (repl: ReplControl) => async (paths: readonly string[]) => {
    const key = await ask.key(repl.style.yellow(terminalLine(conflictQuestion(paths))));
    repl.write("\n");
    const answers: Record<string, ConflictAnswer> = { o: "overwrite", k: "keep" };
    return answers[key.toLowerCase()] ?? "cancel";
  };
  // Said before the files change: what the restore removes, that a command ran.
  const say = (repl: ReplControl) => (line: string) =>
    repl.write(`${repl.style.yellow(terminalLine(line))}\n`);
  const show = (repl: ReplControl, report: RestoreReport) => {
    const [first = "", ...rest] = report.lines.map((line) => terminalLine(line));
    repl.write(`${report.done ? first : repl.style.yellow(first)}\n`);
    for (const line of rest) repl.write(`${repl.style.dim(line)}\n`);
  };
  return [
    {
      name: "undo",
      summary: "put back the files the last turn changed (the conversation stays)",
      async run(_args, repl) {
        show(
          repl,
          await undoLastTurn(repl.conversation, {
            ask: conflicts(repl),
            display: () => {},
            say: say(repl),
          }),
        );
      },
    },
    {
      name: "rewind",
      summary: "go back before an earlier message, files and conversation: /rewind [N]",
      async run(args, repl) {
        const turns = repl.conversation.turns();
        if (turns.length === 0) {
          repl.write(`${repl.style.dim("Nothing to rewind: no message was sent yet")}\n`);
          return;
        }
        let chosen = args.trim();
        if (chosen === "") {
          repl.write(`${formatTurns(turns).map((line) => terminalLine(line)).join("\n")}\n`);
          chosen = (await ask.line("Rewind to before which message? (number, Enter cancels) "))
            ?.trim() ?? "";
          if (chosen === "") {
            repl.write(`${repl.style.dim("Nothing was changed")}\n`);
            return;
          }
        }
        const turn = turns[Number(chosen) - 1];
        if (!/^\d+$/.test(chosen) || turn === undefined) {
          repl.write(
            `${
              repl.style.red(`No message ${JSON.stringify(chosen)}`)
            }: give a number from 1 to ${turns.length}\n`,
          );
          return;
        }
        show(
          repl,
          await rewindTo(repl.conversation, turn, {
            ask: conflicts(repl),
            display: () => {},
            say: say(repl),
          }),
        );
      },
    },
  ];
}
