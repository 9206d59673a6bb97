// Reads harness's own JSONL export (`harness sessions export ID --format jsonl`): the session's
// events exactly as logged, so importing it and exporting it again gives the same bytes. The
// session keeps its id; a line that is not an event stops the import with its line number.

import type { Result } from "../../errors.ts";
import { err, formatAgentError, ok } from "../../errors.ts";
import { parseJsonl } from "../jsonl.ts";
import type { ImportedSession, TimedEvent } from "./imported_session.ts";
import { type JsonLine, record } from "./transcript_lines.ts";
import { isSessionEventType } from "../session_events.ts";

/**
 * Tells whether JSON Lines look like a harness export.
 *
 * @param lines The file's first lines.
 */
export function looksLikeHarnessExport(lines: readonly JsonLine[]): boolean {
  const first = lines[0];
  const value = first && "value" in first ? record(first.value) : undefined;
  return value !== undefined && typeof value.type === "string" && isSessionEventType(value.type) &&
    record(value.payload) !== undefined && typeof value.at === "string";
}

/**
 * Reads a harness JSONL export.
 *
 * @param source The file's text.
 * @param file The file's path.
 * @returns The session with its id and events, or the line that is not an event.
 */
export function readHarnessExport(source: string, file: string): Result<ImportedSession, string> {
  const parsed = parseJsonl(source);
  if (!parsed.ok) return err(formatAgentError(parsed.error).replace(/^Cannot import session /, ""));
  const events = parsed.value as TimedEvent[];
  const started = events[0];
  if (started?.type !== "session_started") {
    return err('line 1 is not the session_started event: give a whole "harness sessions export"');
  }
  const firstLine = source.split("\n").find((line) => line.trim() !== "") ?? "{}";
  const id = String(JSON.parse(firstLine).session_id ?? "");
  if (id === "") return err('line 1 has no "session_id": give a whole "harness sessions export"');
  const info = started.payload;
  const count = (type: TimedEvent["type"]) => events.filter((event) => event.type === type).length;
  return ok({
    source: info.importedFrom ?? { agent: "harness", id, file },
    keepId: id,
    ...(info.cwd ? { cwd: info.cwd } : {}),
    ...(info.model ? { model: info.model } : {}),
    startedAt: started.at,
    events,
    skipped: [],
    keptAsText: 0,
    interrupted: 0,
    messages: count("user_message") + count("assistant_message"),
    toolCalls: count("tool_call_requested"),
  });
}
