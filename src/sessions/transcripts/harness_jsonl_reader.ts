// Reads harness's own JSONL export (`harness sessions export ID --format jsonl`): the session's
// events as logged, each checked against the shape harness logs (a line that is not an event
// stops the import with its line number). The session keeps its id, which must be one harness
// could have made. What belongs to the machine and run that recorded it is kept as an inert
// record, each line named: its system prompt (a resumed import gets this run's, as other
// agents' transcripts do) and its checkpoint records, which name snapshots of that machine's
// shadow repository. An inert record is exported again as it came (so export, import, export
// gives the same bytes) and never replayed: it never becomes the system prompt, never reaches
// /undo or a restore.

import type { Result } from "../../errors.ts";
import { err, formatAgentError, ok } from "../../errors.ts";
import { parseJsonl } from "../jsonl.ts";
import type { ImportedSession, SkippedLine, TimedEvent } from "./imported_session.ts";
import { type JsonLine, record } from "./transcript_lines.ts";
import { isSessionEventType } from "../session_events.ts";
import { isSessionId } from "../session_lock.ts";

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
  const all = parsed.value as TimedEvent[];
  const started = all[0];
  if (started?.type !== "session_started") {
    return err('line 1 is not the session_started event: give a whole "harness sessions export"');
  }
  const firstLine = source.split("\n").find((line) => line.trim() !== "") ?? "{}";
  const id = String(JSON.parse(firstLine).session_id ?? "");
  if (id === "") return err('line 1 has no "session_id": give a whole "harness sessions export"');
  if (!isSessionId(id)) {
    return err(
      `line 1's session_id ${JSON.stringify(id.slice(0, 80))} is not an id harness makes ` +
        '(letters, digits, "_", "." and "-"): give a whole "harness sessions export"',
    );
  }
  const { events, inert } = withLocalEventsInert(all, source);
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
    inert,
    keptAsText: 0,
    interrupted: 0,
    messages: count("user_message") + count("assistant_message"),
    toolCalls: count("tool_call_requested"),
  });
}

/** Why an event of the recording run is kept only as a record. */
const LOCAL_EVENTS: Partial<Record<TimedEvent["type"], string>> = {
  system_message: "its system prompt (this run's is used)",
  checkpoint_recorded: "checkpoint records (snapshots of the machine that exported it)",
  files_restored: "checkpoint records (snapshots of the machine that exported it)",
};

/** The events with those of the recording run marked inert, and their lines. */
function withLocalEventsInert(
  all: readonly TimedEvent[],
  source: string,
): { events: TimedEvent[]; inert: SkippedLine[] } {
  // parseJsonl skips blank lines: the events' own line numbers, for the report.
  const lines = source.split("\n").flatMap((line, index) => line.trim() === "" ? [] : [index + 1]);
  const inert: SkippedLine[] = [];
  const events = all.map((event, index): TimedEvent => {
    const reason = LOCAL_EVENTS[event.type];
    if (reason === undefined) return event;
    inert.push({ line: lines[index] ?? index + 1, reason });
    return { ...event, inert: true };
  });
  return { events, inert };
}
