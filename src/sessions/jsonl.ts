// JSONL export and import of a session: one event a line, `{ "type", "at", "payload" }`
// (plus `session_id` and `seq`), for people who want to grep or keep a session. Import
// replays the lines back into canonical messages.

import { type AgentError, err, ok, type Result } from "../errors.ts";
import type { Message } from "../messages.ts";
import { replayEvents } from "./replay.ts";
import { isSessionEventType, type SessionEvent } from "./session_events.ts";
import { payloadProblem } from "./event_shapes.ts";

/**
 * One export line (no trailing newline).
 *
 * @param sessionId The session the event belongs to.
 * @param event The event, with its sequence number.
 * @returns The JSON line.
 *
 * @example
 * ```ts
 * import { eventToJsonl } from "./jsonl.ts";
 * const line = eventToJsonl("s1", { seq: 1, type: "user_message", at: "t", payload: { content: "hi" } });
 * if (JSON.parse(line).payload.content !== "hi") throw new Error(line);
 * ```
 */
export function eventToJsonl(sessionId: string, event: SessionEvent & { seq: number }): string {
  return JSON.stringify({
    type: event.type,
    at: event.at,
    payload: event.payload,
    session_id: sessionId,
    seq: event.seq,
  });
}

/**
 * Parses exported JSONL back into events. Blank lines are skipped; a line that is not an
 * event is an error naming its line number.
 *
 * @param text The JSONL text.
 * @returns The events in order.
 *
 * @example
 * ```ts
 * import { parseJsonl } from "./jsonl.ts";
 * const r = parseJsonl('{"type":"user_message","at":"t","payload":{"content":"hi"}}\n');
 * if (!r.ok || r.value.length !== 1) throw new Error();
 * ```
 */
export function parseJsonl(text: string): Result<SessionEvent[], AgentError> {
  const events: SessionEvent[] = [];
  const lines = text.split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const bad = (why: string) =>
      err<AgentError>({
        kind: "usage",
        message: `Cannot import session line ${index + 1}: ${why}: give a file made by ` +
          `"harness sessions export"`,
      });
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      return bad(`not JSON (${(error as Error).message})`);
    }
    if (typeof value !== "object" || value === null) return bad("not an object");
    const { type, at, payload } = value as Record<string, unknown>;
    if (typeof type !== "string" || !isSessionEventType(type)) {
      return bad(`unknown event type ${JSON.stringify(type)}`);
    }
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
      return bad("no payload object");
    }
    // Replay, resume and export read these fields: a file cannot hand them another shape.
    const problem = payloadProblem(type, payload as Record<string, unknown>);
    if (problem !== undefined) {
      return bad(`its ${type} payload is not one harness logs: ${problem}`);
    }
    events.push({ type, at: typeof at === "string" ? at : "", payload } as SessionEvent);
  }
  return ok(events);
}

/**
 * Imports exported JSONL as the canonical messages it records (tool calls left without a
 * result stay unanswered; resume a stored session to recover those).
 *
 * @param text The JSONL text.
 * @returns The messages, or a usage error naming the bad line.
 *
 * @example
 * ```ts
 * import { importJsonl } from "./jsonl.ts";
 * const r = importJsonl('{"type":"user_message","at":"t","payload":{"content":"hi"}}');
 * if (!r.ok || r.value[0]?.content !== "hi") throw new Error();
 * ```
 */
export function importJsonl(text: string): Result<Message[], AgentError> {
  const events = parseJsonl(text);
  if (!events.ok) return events;
  return ok(replayEvents(events.value).messages);
}
