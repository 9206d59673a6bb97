// The typed events of the session log: what one row of the `events` table holds. The
// writer turns loop events into these (eventsFromLoopEvent); replay and export read them
// back. Payloads are JSON; fields added later are optional so old rows stay readable.

import type { LoopEvent } from "../agent/loop_events.ts";
import type { ImagePart, Message, ThinkingBlock, ToolResult, Usage } from "../messages.ts";
import type { ApprovalDecision } from "../permissions/approver.ts";
import type { CheckpointEvent, TurnCheckpoint } from "../checkpoints/turn_checkpoints.ts";

/** An image as a logged message names it; its bytes are in the `images` table (image_store.ts). */
export type ImageRef = Omit<ImagePart, "data">;

/** The agents whose transcripts `harness sessions import` reads (src/sessions/transcripts/). */
export type TranscriptAgent = "claude-code" | "codex" | "gemini-cli" | "opencode" | "harness";

/** Where an imported session came from. */
export interface ImportSource {
  agent: TranscriptAgent;
  /** The agent's own id of the session (its file name when it records none). */
  id: string;
  /** The file it was read from. */
  file: string;
  /** The agent's version, when the transcript names it. */
  version?: string;
}

/** What a session was started with (the `session_started` payload). */
export interface SessionStartInfo {
  model: string;
  baseUrl: string;
  cwd: string;
  /** The Deno permission grants in effect, as flags (e.g. "--allow-read=. --allow-write"). */
  grants: string;
  provider: string;
  /** Set for a session `harness sessions import` read from another agent's transcript. */
  importedFrom?: ImportSource;
}

/** Every event type and its payload. */
export interface SessionEventPayloads {
  session_started: SessionStartInfo;
  system_message: { content: string };
  user_message: { content: string; images?: ImageRef[] };
  assistant_message: {
    content: string;
    reasoning?: string;
    usage?: Usage;
    thinkingBlocks?: ThinkingBlock[];
  };
  /** `content` is stored only when it differs from `name arguments`. */
  tool_call_requested: { callId: string; name: string; arguments: string; content?: string };
  permission_decided: {
    callId: string;
    name: string;
    decision: ApprovalDecision["decision"];
    by: ApprovalDecision["by"];
    rule?: string;
    reason?: string;
    abortTurn?: boolean;
    /**
     * The arguments the user approved instead of the model's (an edit before approving);
     * absent when the call ran as the model made it. `harness stats` counts these as changed.
     */
    changedArguments?: string;
  };
  tool_started: { callId: string; name: string };
  /** `status` is "succeeded" or the error type; `content` only when it is not the result JSON. */
  tool_call_finished: {
    callId: string;
    name: string;
    status: string;
    result: ToolResult;
    content?: string;
    /** Images the result showed the model (read_file of an image). */
    images?: ImageRef[];
  };
  limit_reached: { limit: "iterations" | "tool_calls"; max: number };
  state_changed: { state: Record<string, unknown> };
  turn_ended: { stopReason: string; errorMessage?: string };
  /** The user cleared the conversation (/clear): replay keeps only the system prompt. */
  conversation_cleared: Record<string, never>;
  /** The conversation was compacted: replay continues from the summary (compaction.ts). */
  conversation_compacted: { summary: string };
  /** A turn changed files: its snapshots before and after, for /undo and /rewind. */
  checkpoint_recorded: TurnCheckpoint;
  /** Files were put back to a snapshot (/undo, /rewind); the turns named are undone. */
  files_restored: Omit<Extract<CheckpointEvent, { type: "files_restored" }>, "type">;
  /** /rewind: replay keeps the first `messageCount` messages. */
  conversation_rewound: { messageCount: number };
  /**
   * A request to the model besides the conversation's own turns (a tool's, such as the
   * read_file curator's, or the /compact summary): `side` names it. Replay skips it.
   */
  side_request: { side: string; usage: Usage };
  session_ended: Record<string, never>;
}

export type SessionEventType = keyof SessionEventPayloads;

/** One event of a session as stored and exported. */
export type SessionEvent = {
  [K in SessionEventType]: {
    type: K;
    at: string;
    payload: SessionEventPayloads[K];
    /**
     * Kept only as a record (an imported export's system prompt and checkpoints, which belong
     * to the run that recorded them): exported as it came, never replayed (schema 7).
     */
    inert?: true;
  };
}[SessionEventType];

/** An event not yet stamped with a time. */
export type UnstampedEvent = {
  [K in SessionEventType]: { type: K; payload: SessionEventPayloads[K] };
}[SessionEventType];

const EVENT_TYPES: ReadonlySet<string> = new Set<SessionEventType>([
  "session_started",
  "system_message",
  "user_message",
  "assistant_message",
  "tool_call_requested",
  "permission_decided",
  "tool_started",
  "tool_call_finished",
  "limit_reached",
  "state_changed",
  "turn_ended",
  "conversation_cleared",
  "conversation_compacted",
  "checkpoint_recorded",
  "files_restored",
  "conversation_rewound",
  "side_request",
  "session_ended",
]);

/**
 * Tells whether a string names a known event type.
 *
 * @param type A type read from a row or a JSONL line.
 * @returns True for the types this version writes.
 *
 * @example
 * ```ts
 * import { isSessionEventType } from "./session_events.ts";
 * if (!isSessionEventType("user_message") || isSessionEventType("x")) throw new Error();
 * ```
 */
export function isSessionEventType(type: string): type is SessionEventType {
  return EVENT_TYPES.has(type);
}

/**
 * The log event for a canonical message.
 *
 * @param message A message appended to the conversation.
 * @returns The event that records it.
 *
 * @example
 * ```ts
 * import { eventFromMessage } from "./session_events.ts";
 * const e = eventFromMessage({ kind: "user", content: "hi" });
 * if (e.type !== "user_message") throw new Error(e.type);
 * ```
 */
export function eventFromMessage(message: Message): UnstampedEvent {
  switch (message.kind) {
    case "system":
      return { type: "system_message", payload: { content: message.content } };
    case "user": {
      const images = message.data?.images;
      return {
        type: "user_message",
        payload: { content: message.content, ...(images?.length ? { images: refs(images) } : {}) },
      };
    }
    case "assistant": {
      const { reasoning, usage, thinkingBlocks } = message.data;
      return {
        type: "assistant_message",
        payload: {
          content: message.content,
          ...(reasoning === undefined ? {} : { reasoning }),
          ...(usage === undefined ? {} : { usage }),
          ...(thinkingBlocks === undefined ? {} : { thinkingBlocks }),
        },
      };
    }
    case "tool_call": {
      const { id, name, arguments: args } = message.data;
      const content = message.content === `${name} ${args}` ? {} : { content: message.content };
      return {
        type: "tool_call_requested",
        payload: { callId: id, name, arguments: args, ...content },
      };
    }
    case "tool_result": {
      const { callId, name, result } = message.data;
      const content = message.content === JSON.stringify(result)
        ? {}
        : { content: message.content };
      const status = result.error_type === "none" ? "succeeded" : result.error_type;
      const images = message.data.images?.length ? { images: refs(message.data.images) } : {};
      return {
        type: "tool_call_finished",
        payload: { callId, name, status, result, ...content, ...images },
      };
    }
    default: {
      const never: never = message;
      throw new Error(`unknown message kind ${JSON.stringify(never)}`);
    }
  }
}

/** The references the log keeps for images (their bytes go to the images table). */
function refs(images: readonly ImagePart[]): ImageRef[] {
  return images.map(({ data: _data, ...ref }) => ref);
}

/** What marks a subagent's event in the log: its task and agent (every event type may have it). */
export interface SubagentMark {
  /** The task id of the child conversation whose event this is (the parent's have none). */
  task: string;
  agent: string;
}

/**
 * A subagent's event as the log keeps it: the child's own event with its task and agent, so
 * the statistics count its calls and replay leaves it out of the parent's conversation.
 */
function subagentEvent(
  event: Extract<LoopEvent, { type: "subagent" }>,
): UnstampedEvent | undefined {
  const inner = eventFromLoopEvent(event.event);
  // A grandchild's event already names its own task.
  if (inner === undefined || subagentOf(inner) !== undefined) return inner;
  const mark: SubagentMark = { task: event.taskId, agent: event.agent };
  return { ...inner, payload: { ...inner.payload, ...mark } } as UnstampedEvent;
}

/**
 * The task an event belongs to, when a subagent's conversation logged it.
 *
 * @param event A logged event.
 * @returns Its mark, or undefined for the session's own events.
 *
 * @example
 * ```ts
 * import { subagentOf } from "./session_events.ts";
 * const e = { type: "user_message" as const, payload: { content: "go", task: "t1", agent: "a" } };
 * if (subagentOf(e)?.task !== "t1" || subagentOf({ ...e, payload: { content: "x" } })) throw new Error();
 * ```
 */
export function subagentOf(event: Pick<UnstampedEvent, "payload">): SubagentMark | undefined {
  const payload = event.payload as Partial<SubagentMark>;
  return typeof payload.task === "string" && typeof payload.agent === "string"
    ? { task: payload.task, agent: payload.agent }
    : undefined;
}

/**
 * The log event for a loop event, or undefined for events the log does not keep (text and
 * reasoning deltas, which the assistant message repeats; turn starts; usage, which the
 * assistant message carries; warnings; tool_finished, whose result the tool_result message
 * carries).
 *
 * @param event An event from the agent loop.
 * @returns The event to append, if any.
 *
 * @example
 * ```ts
 * import { eventFromLoopEvent } from "./session_events.ts";
 * if (eventFromLoopEvent({ type: "text_delta", text: "x" }) !== undefined) throw new Error();
 * ```
 */
export function eventFromLoopEvent(event: LoopEvent): UnstampedEvent | undefined {
  switch (event.type) {
    case "message":
      return eventFromMessage(event.message);
    case "permission_decided": {
      const { decision, by, rule, reason, abortTurn, editedArgs } = event.decision;
      return {
        type: "permission_decided",
        payload: {
          callId: event.callId,
          name: event.name,
          decision,
          by,
          ...(rule === undefined ? {} : { rule }),
          ...(reason === undefined ? {} : { reason }),
          ...(abortTurn === undefined ? {} : { abortTurn }),
          // The user's version; the model's stays in the tool_call_requested event.
          ...(editedArgs === undefined ? {} : { changedArguments: JSON.stringify(editedArgs) }),
        },
      };
    }
    case "tool_started":
      return { type: "tool_started", payload: { callId: event.callId, name: event.name } };
    case "limit_reached":
      return { type: "limit_reached", payload: { limit: event.limit, max: event.max } };
    case "state_changed":
      return { type: "state_changed", payload: { state: event.state } };
    case "done":
      return {
        type: "turn_ended",
        payload: {
          stopReason: event.stopReason,
          ...(event.errorMessage === undefined ? {} : { errorMessage: event.errorMessage }),
        },
      };
    case "compacted":
      return { type: "conversation_compacted", payload: { summary: event.summary } };
    case "checkpoint":
      return { type: "checkpoint_recorded", payload: event.checkpoint };
    case "files_restored": {
      const { type: _type, ...payload } = event;
      return { type: "files_restored", payload };
    }
    case "rewound":
      return { type: "conversation_rewound", payload: { messageCount: event.messageCount } };
    case "usage":
      // A turn's own usage is on its assistant message; a side request's is logged apart.
      return event.side === undefined
        ? undefined
        : { type: "side_request", payload: { side: event.side, usage: event.usage } };
    case "subagent":
      return subagentEvent(event);
    case "turn_started":
    case "text_delta":
    case "reasoning_delta":
    case "tool_finished":
    case "tool_output":
    case "warning":
    case "waiting":
      return undefined;
    default: {
      const never: never = event;
      throw new Error(`unknown loop event ${JSON.stringify(never)}`);
    }
  }
}
