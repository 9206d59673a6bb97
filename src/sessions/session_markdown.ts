// `harness sessions export ID --format md`: a session as Markdown for people to read. The whole
// log is shown (what a compaction or /clear replaced stays, with a rule marking the point):
// the user's and the assistant's words, each tool call with its arguments, and its result (cut
// at a few thousand characters, saying how much). JSONL (jsonl.ts) is the format that imports.

import { type SessionEvent, type SubagentMark, subagentOf } from "./session_events.ts";
import type { SessionSummary } from "./query_sessions.ts";

/** Characters of a tool result shown before the cut. */
const RESULT_CHARS = 4000;

/**
 * Renders a session as Markdown.
 *
 * @param info The session's summary (id, folder, model).
 * @param events Its events in log order.
 * @returns The document, ending with a newline.
 *
 * @example
 * ```ts
 * import { sessionMarkdown } from "./session_markdown.ts";
 * const md = sessionMarkdown(
 *   { id: "s1", startedAt: "2025-01-01T00:00:00Z", lastAt: "", cwd: "/w", model: "m", baseUrl: "",
 *     provider: "", grants: "", firstUserMessage: "hi", userTurns: 1 },
 *   [{ type: "user_message", at: "2025-01-01T00:00:00Z", payload: { content: "hi" } }],
 * );
 * if (!md.includes("## User\n\nhi")) throw new Error(md);
 * ```
 */
export function sessionMarkdown(info: SessionSummary, events: readonly SessionEvent[]): string {
  const parts = [
    `# Session ${info.id}`,
    [
      `- Folder: ${info.cwd || "(not recorded)"}`,
      `- Model: ${info.model || "(not recorded)"}`,
      `- Started: ${info.startedAt}`,
      ...importedLine(events),
    ].join("\n"),
  ];
  for (const event of events) {
    const block = eventMarkdown(event);
    const mark = subagentOf(event);
    if (block !== undefined) parts.push(mark ? quoted(block, mark) : block);
  }
  return `${parts.join("\n\n")}\n`;
}

function importedLine(events: readonly SessionEvent[]): string[] {
  const started = events.find((event) => event.type === "session_started");
  const from = started?.type === "session_started" ? started.payload.importedFrom : undefined;
  return from ? [`- Imported from: ${from.agent} session ${from.id} (${from.file})`] : [];
}

function eventMarkdown(event: SessionEvent): string | undefined {
  switch (event.type) {
    case "user_message":
      return `## User\n\n${event.payload.content}`;
    case "assistant_message": {
      const { content, reasoning } = event.payload;
      const thought = reasoning
        ? `<details><summary>Reasoning</summary>\n\n${reasoning}\n\n</details>\n\n`
        : "";
      return `## Assistant\n\n${thought}${content}`.trimEnd();
    }
    case "tool_call_requested":
      return `**Tool call** \`${event.payload.name}\`\n\n${
        fenced(pretty(event.payload.arguments), "json")
      }`;
    case "tool_call_finished": {
      const { result, status } = event.payload;
      const body = result.error_type === "none"
        ? result.data ?? ""
        : `${result.error_type}: ${result.error_message ?? ""}`;
      const cut = body.length > RESULT_CHARS
        ? `${body.slice(0, RESULT_CHARS)}\n[... ${body.length - RESULT_CHARS} more characters]`
        : body;
      return `**Result** (${status})\n\n${fenced(cut, "")}`;
    }
    case "conversation_compacted":
      return `---\n\n*The conversation was compacted; it continued from this summary:*\n\n${event.payload.summary}`;
    case "conversation_cleared":
      return "---\n\n*The conversation was cleared (/clear).*";
    case "conversation_rewound":
      return `---\n\n*Rewound to before message ${event.payload.messageCount}.*`;
    default:
      return undefined;
  }
}

/** A subagent's block: quoted under its parent's, its headings naming the agent and task. */
function quoted(block: string, mark: SubagentMark): string {
  const named = block.replace(/^## /, `### ${mark.agent} (task ${mark.task}): `);
  return named.split("\n").map((line) => line === "" ? ">" : `> ${line}`).join("\n");
}

/** Arguments as indented JSON when they parse, else as given. */
function pretty(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** A code block whose fence is longer than any run of backticks inside. */
function fenced(text: string, language: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}
