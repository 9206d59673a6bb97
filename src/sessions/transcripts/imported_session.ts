// What reading another agent's transcript gives: harness's own session events (the same ones a
// live session logs), where the conversation was recorded, and an account of what could not be
// mapped. One reader per agent format fills it (claude_code_reader.ts, codex_rollout_reader.ts,
// gemini_chat_reader.ts, opencode_export_reader.ts, harness_jsonl_reader.ts); the session store
// writes it (import_store.ts).

import type { ImportSource, SessionEvent, TranscriptAgent } from "../session_events.ts";

/** How each agent is named to the user. */
export const AGENT_NAMES: Readonly<Record<TranscriptAgent, string>> = {
  "claude-code": "Claude Code",
  codex: "Codex",
  "gemini-cli": "Gemini CLI",
  opencode: "opencode",
  harness: "harness",
};

/** One event with the time the transcript gives it (inert: kept only as a record). */
export type TimedEvent = SessionEvent;

/** A line (or record) the reader left out, and why. */
export interface SkippedLine {
  /** 1-based line of the file (for one-document formats, the line the record starts on). */
  line: number;
  reason: string;
}

/** A transcript read into harness's events. */
export interface ImportedSession {
  source: ImportSource;
  /** The harness session id to keep (harness's own exports); others get a new id. */
  keepId?: string;
  /** The folder the conversation was recorded in, when the transcript says. */
  cwd?: string;
  /** The model the agent used, when the transcript says. */
  model?: string;
  /** When the conversation started (ISO). */
  startedAt: string;
  /** The session's events, session_started first. */
  events: TimedEvent[];
  /** Lines left out, with the reason. */
  skipped: SkippedLine[];
  /**
   * Lines kept in the log as inert records, with why (an export's system prompt and
   * checkpoints): exported again as they came, never replayed.
   */
  inert?: SkippedLine[];
  /** Content harness has no place for, kept in the messages as text. */
  keptAsText: number;
  /** Tool calls without a result, answered `interrupted`. */
  interrupted: number;
  /** Messages (user and assistant) and tool calls imported. */
  messages: number;
  toolCalls: number;
}

/**
 * Counts skipped lines by reason, for the import report.
 *
 * @param skipped The lines left out.
 * @returns "not objects: 2 (lines 3, 4), summary lines without uuid: 1 (line 1)", most frequent
 *   first ("" for none).
 *
 * @example
 * ```ts
 * import { describeSkipped } from "./imported_session.ts";
 * const text = describeSkipped([{ line: 1, reason: "not JSON" }, { line: 4, reason: "not JSON" }]);
 * if (text !== "not JSON: 2 (lines 1, 4)") throw new Error(text);
 * ```
 */
export function describeSkipped(skipped: readonly SkippedLine[]): string {
  const byReason = Map.groupBy(skipped, (line) => line.reason);
  return [...byReason.entries()]
    .sort((a, b) => b[1].length - a[1].length)
    .map(([reason, lines]) => {
      const shown = lines.slice(0, 5).map((line) => line.line).join(", ");
      const more = lines.length > 5 ? ", ..." : "";
      return `${reason}: ${lines.length} (line${lines.length === 1 ? "" : "s"} ${shown}${more})`;
    })
    .join(", ");
}
