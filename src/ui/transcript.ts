// The recap a resumed REPL shows: the last messages of the conversation, each cut to a few
// lines, so the user sees where they left off (as Claude Code and Codex do on resume).

import type { Message } from "../messages.ts";
import type { Style } from "./style.ts";
import { terminalLine } from "../platform/terminal_text.ts";

/** Lines of one message shown at most. */
const MAX_LINES = 4;
/** Characters of one line shown at most. */
const MAX_LINE_CHARS = 160;

function clip(text: string): string[] {
  // Messages come from the model and tools: escapes show as text (terminal_text.ts).
  const lines = text.trim().split("\n").map(terminalLine);
  const shown = lines.slice(0, MAX_LINES).map((line) =>
    line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line
  );
  if (lines.length > MAX_LINES) shown.push(`… ${lines.length - MAX_LINES} more lines`);
  return shown;
}

/**
 * Formats the last `limit` user, assistant and tool-call messages for the terminal.
 *
 * @param messages The conversation (system prompt and tool results are left out).
 * @param style Terminal styling.
 * @param limit How many messages to show at most (default 12).
 * @returns The recap without a trailing newline, or "" for an empty conversation.
 *
 * @example
 * ```ts
 * import { formatTranscript } from "./transcript.ts";
 * import { createStyle } from "./style.ts";
 * const text = formatTranscript([
 *   { kind: "system", content: "sys" },
 *   { kind: "user", content: "fix the tests" },
 *   { kind: "assistant", content: "Done.", data: {} },
 * ], createStyle(false));
 * if (text !== "> fix the tests\nDone.") throw new Error(text);
 * ```
 */
export function formatTranscript(messages: readonly Message[], style: Style, limit = 12): string {
  const shown = messages.filter((m) =>
    m.kind === "user" || m.kind === "tool_call" || (m.kind === "assistant" && m.content.trim())
  );
  const recent = shown.slice(-limit);
  // What the user changed a call to at the prompt, by call id (the call shows the model's).
  const changed = new Map<string, string>();
  for (const m of messages) {
    if (m.kind === "tool_result" && m.data.changedArguments !== undefined) {
      changed.set(m.data.callId, m.data.changedArguments);
    }
  }
  const lines: string[] = [];
  if (shown.length > recent.length) {
    lines.push(style.dim(`… ${shown.length - recent.length} earlier messages`));
  }
  for (const message of recent) {
    switch (message.kind) {
      case "user":
        lines.push(
          ...clip(message.content).map((line, i) =>
            style.cyan(i === 0 ? `> ${line}` : `  ${line}`)
          ),
        );
        break;
      case "assistant":
        lines.push(...clip(message.content));
        break;
      case "tool_call": {
        const args = message.data.arguments;
        const cut = args.length > 80 ? `${args.slice(0, 79)}…` : args;
        lines.push(style.dim(terminalLine(`  · ${message.data.name} ${cut}`)));
        const ran = changed.get(message.data.id);
        if (ran !== undefined) {
          const short = ran.length > 80 ? `${ran.slice(0, 79)}…` : ran;
          lines.push(style.dim(terminalLine(`    changed by you before it ran: ${short}`)));
        }
        break;
      }
    }
  }
  return lines.join("\n");
}
