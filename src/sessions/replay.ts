// Rebuilds a conversation from its logged events: the canonical messages, the conversation
// state (tasks) and the tool calls that never got a result. Used by loadSession (resume)
// and importJsonl; it reads events only, so it works the same on old and new rows.

import type { ImagePart, Message, ToolResult } from "../messages.ts";
import { makeToolResult } from "../messages.ts";
import { type ImageRef, type SessionEvent, subagentOf } from "./session_events.ts";
import { compactedMessages } from "../agent/compaction.ts";
import { addRecord, markUndone, type TurnCheckpoint } from "../checkpoints/turn_record.ts";

/** A tool call that has no result in the log (the harness stopped while it was pending). */
export interface UnansweredCall {
  callId: string;
  name: string;
  /** A `tool_started` event was logged: the tool was running and may have had effects. */
  started: boolean;
}

/** What replaying a session's events gives. */
export interface ReplayedSession {
  messages: Message[];
  state: Record<string, unknown>;
  unanswered: UnansweredCall[];
  /** The turns that changed files, for /undo and /rewind after a resume. */
  checkpoints: TurnCheckpoint[];
}

/** Finds an image's bytes by its reference (the session store's images table). */
export type ImageLookup = (ref: ImageRef) => ImagePart | undefined;

/**
 * Replays events into canonical messages. Results are placed right after their call's
 * block even when they were logged later (a recovered call), a second result for the same
 * call and a result for an unknown call are dropped, `conversation_cleared` keeps only
 * the system prompt, `conversation_compacted` continues from the summary, and
 * `conversation_rewound` keeps the messages before the turn rewound to, and inert records are
 * passed over. Images come back through `images`; one it cannot find is left out with a note
 * in the message.
 *
 * @param events The session's events in log order.
 * @param images Finds the bytes of the images messages name (none: images are left out).
 * @returns Messages, the last conversation state, calls without a result and checkpoints.
 *
 * @example
 * ```ts
 * import { replayEvents } from "./replay.ts";
 * const at = new Date(0).toISOString();
 * const r = replayEvents([
 *   { type: "user_message", at, payload: { content: "hi" } },
 *   { type: "tool_call_requested", at, payload: { callId: "c1", name: "ls", arguments: "{}" } },
 * ]);
 * if (r.messages.length !== 2 || r.unanswered[0]?.callId !== "c1") throw new Error();
 * ```
 */
export function replayEvents(
  events: Iterable<SessionEvent>,
  images: ImageLookup = () => undefined,
): ReplayedSession {
  let messages: Message[] = [];
  let state: Record<string, unknown> = {};
  let checkpoints: TurnCheckpoint[] = [];
  // Calls in request order; a call is removed once answered.
  const pending = new Map<string, UnansweredCall>();
  /** Calls the user changed at the prompt: the arguments they ran with (JSON). */
  const changed = new Map<string, string>();
  const answered = new Set<string>();
  // Calls of the trailing block of tool messages: their results can simply be pushed.
  let trailingCalls = new Set<string>();

  const pushNonTool = (message: Message) => {
    messages.push(message);
    trailingCalls = new Set();
  };

  for (const event of ownEvents(events)) {
    switch (event.type) {
      case "system_message":
        // An imported session's system prompt is logged at its first resume: it goes first.
        if (messages.length > 0 && !messages.some((message) => message.kind === "system")) {
          messages.unshift({ kind: "system", content: event.payload.content });
        } else pushNonTool({ kind: "system", content: event.payload.content });
        break;
      case "user_message": {
        const found = findImages(event.payload.images, images);
        pushNonTool({
          kind: "user",
          content: event.payload.content + found.note,
          ...(found.parts.length > 0 ? { data: { images: found.parts } } : {}),
        });
        break;
      }
      case "assistant_message": {
        const { content, reasoning, usage, thinkingBlocks } = event.payload;
        pushNonTool({
          kind: "assistant",
          content,
          data: {
            ...(reasoning === undefined ? {} : { reasoning }),
            ...(usage === undefined ? {} : { usage }),
            ...(thinkingBlocks === undefined ? {} : { thinkingBlocks }),
          },
        });
        break;
      }
      case "tool_call_requested": {
        const { callId, name, arguments: args, content } = event.payload;
        if (pending.has(callId) || answered.has(callId)) break; // a duplicate id: keep the first
        messages.push({
          kind: "tool_call",
          content: content ?? `${name} ${args}`,
          data: { id: callId, name, arguments: args },
        });
        trailingCalls.add(callId);
        pending.set(callId, { callId, name, started: false });
        break;
      }
      case "tool_started": {
        const call = pending.get(event.payload.callId);
        if (call) call.started = true;
        break;
      }
      case "tool_call_finished": {
        const { callId, name, content } = event.payload;
        const result = withEpochTimestamp(event.payload.result);
        if (!pending.has(callId)) break;
        pending.delete(callId);
        answered.add(callId);
        const found = findImages(event.payload.images, images);
        const message: Message = {
          kind: "tool_result",
          content: (content ?? JSON.stringify(result)) + found.note,
          data: {
            callId,
            name,
            result,
            ...(changed.has(callId) ? { changedArguments: changed.get(callId)! } : {}),
            ...(found.parts.length > 0 ? { images: found.parts } : {}),
          },
        };
        if (trailingCalls.has(callId)) messages.push(message);
        else messages.splice(endOfBlock(messages, callId), 0, message);
        break;
      }
      case "state_changed":
        state = event.payload.state;
        break;
      case "conversation_cleared":
        messages = messages.filter((message) => message.kind === "system");
        state = {};
        pending.clear();
        trailingCalls = new Set();
        checkpoints = detached(checkpoints);
        break;
      case "conversation_compacted":
        messages = compactedMessages(messages, event.payload.summary);
        pending.clear();
        trailingCalls = new Set();
        checkpoints = detached(checkpoints);
        break;
      case "checkpoint_recorded":
        // A turn is logged as it goes: its last record counts.
        addRecord(checkpoints, event.payload);
        break;
      case "files_restored":
        markUndone(checkpoints, event.payload.turns);
        break;
      case "conversation_rewound": {
        const keep = event.payload.messageCount;
        messages = messages.slice(0, keep);
        const kept = new Set(
          messages.flatMap((message) => message.kind === "tool_call" ? [message.data.id] : []),
        );
        for (const id of [...pending.keys()]) if (!kept.has(id)) pending.delete(id);
        trailingCalls = new Set();
        checkpoints = checkpoints.filter((record) => record.messageCount < keep);
        break;
      }
      case "permission_decided": {
        const { callId, changedArguments, decision } = event.payload;
        if (changedArguments !== undefined && decision === "allow") {
          changed.set(callId, changedArguments);
        }
        break;
      }
      case "session_started":
      case "limit_reached":
      case "turn_ended":
      case "side_request":
      case "session_ended":
        break;
      default: {
        const never: never = event;
        throw new Error(`unknown session event ${JSON.stringify(never)}`);
      }
    }
  }
  return { messages, state, unanswered: [...pending.values()], checkpoints };
}

/**
 * The session's own events: not its subagents' (the `task` tool's children are not its
 * messages), nor inert records, which belong to the run that recorded them (an imported
 * export's system prompt and checkpoints), exported as they came and never used.
 */
function* ownEvents(events: Iterable<SessionEvent>): Iterable<SessionEvent> {
  for (const event of events) {
    if (!event.inert && subagentOf(event) === undefined) yield event;
  }
}

/** Checkpoints after the messages they sat before are gone: their files can still be undone. */
function detached(records: readonly TurnCheckpoint[]): TurnCheckpoint[] {
  return records.map((record) => ({ ...record, messageCount: -1 }));
}

/** The images a message names, and a note for those the log no longer has. */
function findImages(
  refs: readonly ImageRef[] | undefined,
  lookup: ImageLookup,
): { parts: ImagePart[]; note: string } {
  const parts: ImagePart[] = [];
  const missing: string[] = [];
  for (const ref of refs ?? []) {
    const part = lookup(ref);
    if (part) parts.push(part);
    else missing.push(ref.name ?? ref.sha256.slice(0, 12));
  }
  const note = missing.length === 0
    ? ""
    : `\n[Image${missing.length > 1 ? "s" : ""} ${
      missing.map((name) => `"${name}"`).join(", ")
    } no longer in the session log]`;
  return { parts, note };
}

/**
 * Results logged before timestamps became epoch milliseconds carry an ISO string: read them
 * as the number they stand for, so old sessions resume and export in today's shape.
 */
function withEpochTimestamp(result: ToolResult): ToolResult {
  const stamp: unknown = result.metadata?.timestamp;
  if (typeof stamp !== "string") return result;
  const ms = Date.parse(stamp);
  return { ...result, metadata: { ...result.metadata, timestamp: Number.isNaN(ms) ? 0 : ms } };
}

/** Index just past the run of tool messages that holds the call `callId`. */
function endOfBlock(messages: readonly Message[], callId: string): number {
  let index = messages.findIndex((m) => m.kind === "tool_call" && m.data.id === callId);
  if (index < 0) return messages.length;
  while (index < messages.length) {
    const kind = messages[index]?.kind;
    if (kind !== "tool_call" && kind !== "tool_result") break;
    index++;
  }
  return index;
}

/**
 * The result recorded for a call the harness stopped during (crash, kill -9, power loss).
 * A call with a `tool_started` event may have had effects; one that was only requested
 * (validating or awaiting permission) never ran, so the model can simply call it again.
 *
 * @param call The unanswered call.
 * @param now The time to stamp.
 * @returns An `interrupted` ToolResult saying whether the call could have had effects.
 *
 * @example
 * ```ts
 * import { interruptedResult } from "./replay.ts";
 * const r = interruptedResult({ callId: "c1", name: "ls", started: false }, new Date(0));
 * if (r.error_type !== "interrupted" || !r.error_message?.includes("did not run")) {
 *   throw new Error();
 * }
 * ```
 */
export function interruptedResult(call: UnansweredCall, now: Date): ToolResult {
  const errorMessage = call.started
    ? `The harness stopped while this call was running, so it may or may not have had ` +
      `effects. Check the current state before calling "${call.name}" again`
    : `The harness stopped before this call started: it did not run. Call "${call.name}" ` +
      `again if it is still needed`;
  return makeToolResult({ errorType: "interrupted", errorMessage, now });
}
