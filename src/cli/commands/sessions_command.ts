// `harness sessions`: list, export (JSONL or Markdown), search, delete and import recorded
// sessions; import reads other agents' transcripts too (src/sessions/transcripts/).

import { resolve } from "node:path";
import { commandLineGate } from "../../app/workspace_gate.ts";
import { writeGatedTextFile } from "../../gate/gated_files.ts";
import type { Command } from "../args.ts";
import { formatAgentError } from "../../errors.ts";
import { EXIT } from "../../app/exit_codes.ts";
import type { CommandIO } from "../command_io.ts";
import { openSessionStore } from "../../sessions/open_session_store.ts";
import type { SearchHit, SessionSummary } from "../../sessions/query_sessions.ts";
import { turnCount } from "../../sessions/turn_count.ts";
import { jsonTerminalSafe, terminalLine, terminalSafe } from "../../platform/terminal_text.ts";
import type { SessionStore } from "../../sessions/session_store_types.ts";
import { sessionMarkdown } from "../../sessions/session_markdown.ts";
import {
  type ImportReport,
  importTranscripts,
} from "../../sessions/transcripts/import_transcripts.ts";
import { localTranscriptFiles } from "../../sessions/transcripts/transcript_files.ts";

/** Rows listed when --limit is left out. */
const DEFAULT_LIMIT = 50;

/** How a search hit's event type reads in the list. */
const HIT_KINDS: Record<SearchHit["type"], string> = {
  user_message: "user",
  assistant_message: "assistant",
  tool_call_requested: "tool call",
  tool_call_finished: "tool result",
};

/** `harness sessions list|export|search|delete|import`: the session log without a model. */
export async function runSessionsCommand(
  command: Extract<Command, { kind: "sessions" }>,
  io: CommandIO,
): Promise<number> {
  const opened = openSessionStore();
  if (!opened.ok) {
    io.printError(formatAgentError(opened.error));
    return EXIT.runtime;
  }
  const store = opened.value;
  try {
    switch (command.action) {
      case "list": {
        const limit = command.limit ?? DEFAULT_LIMIT;
        // One row past the limit tells whether more exist.
        const listed = store.listSessions({ limit: limit + 1, withUserMessage: !command.all });
        if (!listed.ok) {
          io.printError(formatAgentError(listed.error));
          return EXIT.runtime;
        }
        const rows = listed.value.slice(0, limit);
        if (rows.length === 0) {
          console.log("No sessions yet");
        } else console.log(terminalSafe(formatSessionList(rows)));
        if (listed.value.length > limit) {
          console.error(
            `More sessions exist: showing the ${limit} most recently active; pass --limit ${
              limit * 2
            } for more`,
          );
        }
        return EXIT.ok;
      }
      case "export":
        return await exportSession(store, command, io);
      case "import": {
        const report = await importTranscripts(command.arg!, {
          store,
          files: localTranscriptFiles,
          cwd: Deno.cwd(),
        });
        return printImportReport(report, io);
      }
      case "search": {
        const limit = command.limit ?? DEFAULT_LIMIT;
        const searched = store.searchSessions(command.arg!, { limit: limit + 1 });
        if (!searched.ok) {
          io.printError(formatAgentError(searched.error));
          return EXIT.runtime;
        }
        const hits = searched.value.hits.slice(0, limit);
        if (hits.length === 0) console.log(`No messages match "${command.arg}"`);
        for (const hit of hits) {
          console.log(
            `${hit.sessionId}  ${hit.at.slice(0, 16).replace("T", " ")}  ${HIT_KINDS[hit.type]}  ${
              terminalLine(hit.snippet.replace(/\s+/g, " "))
            }`,
          );
        }
        if (searched.value.hits.length > limit) {
          console.error(
            `More matches exist: showing the ${limit} newest; pass --limit ${limit * 2} for more`,
          );
        }
        return EXIT.ok;
      }
      case "delete": {
        // Look the id up first: an unknown id is the same error with or without a terminal.
        const found = store.findSession(command.arg!);
        if (!found.ok) {
          io.printError(formatAgentError(found.error));
          return EXIT.usage;
        }
        const id = found.value.id;
        if (!command.flags.yes && !Deno.stdin.isTerminal()) {
          io.printError(
            `Refusing to delete session "${id}" without confirmation: run "harness sessions delete ${id}" in a terminal, or add --yes`,
          );
          return EXIT.usage;
        }
        const deleted = await store.deleteSession(id, {
          confirm: (s) => {
            if (command.flags.yes) return true;
            const answer = prompt(
              `Delete session ${s.id} (${turnCount(s.userTurns)}, ${s.cwd}, "${
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
        console.log(deleted.value ? `Deleted session ${id}` : "Nothing deleted");
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

/**
 * Writes a session as JSONL (the lines import takes back) or Markdown, to stdout or to
 * `--output FILE` (the one place an export opens a file).
 */
async function exportSession(
  store: SessionStore,
  command: Extract<Command, { kind: "sessions" }>,
  io: CommandIO,
): Promise<number> {
  const lines: string[] = [];
  const written = command.format === "md"
    ? (() => {
      const read = store.readSession(command.arg!);
      if (read.ok) lines.push(sessionMarkdown(read.value.info, read.value.events).trimEnd());
      return read;
    })()
    : store.exportSession(command.arg!, (line) => lines.push(line));
  if (!written.ok) {
    io.printError(formatAgentError(written.error));
    return EXIT.usage;
  }
  if (command.output === undefined) {
    // On a terminal, escapes inside the text show as text, never act.
    const safe = command.format === "md" ? terminalSafe : jsonTerminalSafe;
    for (const line of lines) console.log(safe(line));
    return EXIT.ok;
  }
  try {
    await writeExportFile(command.output, `${lines.join("\n")}\n`);
  } catch (error) {
    io.printError(
      `Cannot write "${command.output}": ${error instanceof Error ? error.message : error}`,
    );
    return EXIT.runtime;
  }
  return EXIT.ok;
}

/**
 * The file an export writes: created or replaced, owner-only (a session may hold secrets), and
 * never one the file gate protects (`.git/hooks`, harness's folders).
 */
async function writeExportFile(path: string, text: string): Promise<void> {
  await writeGatedTextFile(commandLineGate(Deno.cwd()), resolve(path), text, { mode: 0o600 });
}

/** Prints one line per transcript and a total; exit 1 when any transcript failed. */
function printImportReport(report: ImportReport, io: CommandIO): number {
  for (const line of report.lines) {
    if (line.startsWith("Cannot")) io.printError(terminalLine(line));
    else console.log(terminalLine(line));
  }
  if (report.notTranscripts.length > 0) {
    const shown = report.notTranscripts.slice(0, 3).map((file) => `"${file}"`).join(", ");
    console.error(
      `Left out ${report.notTranscripts.length} file(s) that are not transcripts (${shown}${
        report.notTranscripts.length > 3 ? ", ..." : ""
      })`,
    );
  }
  const total = report.imported + report.existing + report.failed;
  if (total === 0) {
    io.printError("Found no transcript to import: give a transcript file or a folder of them");
    return EXIT.usage;
  }
  if (report.imported > 0) {
    console.log(
      `Imported ${report.imported} of ${total} transcript(s): go on with one by running ` +
        `"harness --continue" in its folder, or "harness --resume ID"`,
    );
  }
  return report.failed > 0 ? EXIT.runtime : EXIT.ok;
}

/**
 * The `harness sessions` table: a header line naming the columns, then one line per
 * session (most recently active first, so the time shown is the last activity), columns aligned (the last one, the first message, is cut at 60 characters).
 *
 * @param sessions The sessions to list, in display order.
 * @returns The lines, joined with newlines (no trailing newline).
 *
 * @example
 * ```ts
 * import { formatSessionList } from "./sessions_command.ts";
 * const text = formatSessionList([{
 *   id: "e1dd", startedAt: "2025-01-02T03:04:05.000Z", lastAt: "", cwd: "/w", model: "m",
 *   baseUrl: "", provider: "", grants: "", firstUserMessage: "hi", userTurns: 1,
 * }]);
 * if (!text.startsWith("ID") || !text.includes("1 turn ")) throw new Error(text);
 * ```
 */
export function formatSessionList(sessions: readonly SessionSummary[]): string {
  const rows = [
    ["ID", "LAST ACTIVE", "TURNS", "MODEL", "CWD", "FIRST MESSAGE"],
    ...sessions.map((s) => [
      s.id,
      (s.lastAt || s.startedAt).slice(0, 16).replace("T", " "),
      turnCount(s.userTurns),
      s.model,
      s.cwd,
      // A damaged row spoils only its own session, which says so.
      (s.damaged ? `[damaged: ${s.damaged} unreadable event${s.damaged === 1 ? "" : "s"}] ` : "") +
      (s.firstUserMessage ?? "").replace(/\s+/g, " ").slice(0, 60),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column]!))
        .join("  ").trimEnd()
    )
    .join("\n");
}
