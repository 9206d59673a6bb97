// The shape each session event's payload must have to enter the log from outside (a JSONL
// export someone hands the user): the fields replay, resume, export and the providers read, with
// their types. A line of another shape is refused at import, naming the field, instead of
// crashing a later `--resume` or `sessions export` far from the file that caused it.

import type { SessionEventPayloads, SessionEventType } from "./session_events.ts";
import type { ToolResult } from "../messages.ts";
import type { TurnCheckpoint } from "../checkpoints/turn_record.ts";

/** What a field must be ("text": a string or null); "?" after the kind makes it optional. */
type Kind = "string" | "text" | "number" | "boolean" | "object" | "strings" | "objects";
type Field = Kind | `${Kind}?`;

/**
 * Every field of `T`, each with its kind: the compiler keeps a shape the same as the type it
 * checks (a field added to a payload and not here, or one here the payload lost, is an error).
 */
type ShapeOf<T> = { [K in keyof Required<T>]: Field };

const TOOL_RESULT: ShapeOf<ToolResult> = {
  success: "boolean",
  error_type: "string",
  data: "text?",
  error_message: "text?",
  metadata: "object?",
};

const CHECKPOINT: ShapeOf<TurnCheckpoint> = {
  turn: "string?",
  messageCount: "number",
  prompt: "string",
  started: "number?",
  files: "strings",
  states: "object?",
  commands: "strings?",
  shared: "strings?",
  open: "boolean?",
  failed: "string?",
  before: "string?",
  after: "string?",
  undone: "boolean?",
};

const SHAPES: { [K in SessionEventType]: ShapeOf<SessionEventPayloads[K]> } = {
  session_started: {
    model: "string",
    baseUrl: "string",
    cwd: "string",
    grants: "string",
    provider: "string",
    importedFrom: "object?",
  },
  system_message: { content: "string" },
  user_message: { content: "string", images: "objects?" },
  assistant_message: {
    content: "string",
    reasoning: "string?",
    usage: "object?",
    thinkingBlocks: "objects?",
  },
  tool_call_requested: {
    callId: "string",
    name: "string",
    arguments: "string",
    content: "string?",
  },
  permission_decided: {
    callId: "string",
    name: "string",
    decision: "string",
    by: "string",
    rule: "string?",
    reason: "string?",
    abortTurn: "boolean?",
    changedArguments: "string?",
  },
  tool_started: { callId: "string", name: "string" },
  tool_call_finished: {
    callId: "string",
    name: "string",
    status: "string",
    result: "object",
    content: "string?",
    images: "objects?",
  },
  limit_reached: { limit: "string", max: "number" },
  state_changed: { state: "object" },
  turn_ended: { stopReason: "string", errorMessage: "string?" },
  conversation_cleared: {},
  conversation_compacted: { summary: "string" },
  checkpoint_recorded: CHECKPOINT,
  files_restored: {
    turns: "strings",
    saved: "string",
    restored: "strings",
    kept: "strings",
    removed: "strings?",
    left: "objects?",
  },
  conversation_rewound: { messageCount: "number" },
  side_request: { side: "string", usage: "object" },
  session_ended: {},
};

const WORDS: Record<Kind, string> = {
  string: "a string",
  text: "a string or null",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  strings: "a list of strings",
  objects: "a list of objects",
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fits(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "text":
      return typeof value === "string" || value === null;
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "object":
      return isObject(value);
    case "strings":
      return Array.isArray(value) && value.every((item) => typeof item === "string");
    case "objects":
      return Array.isArray(value) && value.every(isObject);
  }
}

function fieldsProblem(
  value: Record<string, unknown>,
  shape: Record<string, Field>,
  prefix: string,
): string | undefined {
  for (const [name, field] of Object.entries(shape)) {
    const optional = field.endsWith("?");
    const kind = (optional ? field.slice(0, -1) : field) as Kind;
    const given = Object.hasOwn(value, name) ? value[name] : undefined;
    if (given === undefined && optional) continue;
    if (!fits(given, kind)) {
      const what = WORDS[kind];
      return `"${prefix}${name}" ${given === undefined ? "is missing" : "is not"} ${what}`;
    }
  }
  return undefined;
}

/**
 * Why an event's payload is not the shape harness logs for its type, or undefined when it is.
 *
 * @param type The event's type (a known one).
 * @param payload The payload object.
 * @returns The first field that is missing or of the wrong type, in words.
 *
 * @example
 * ```ts
 * import { payloadProblem } from "./event_shapes.ts";
 * if (payloadProblem("user_message", { content: "hi" }) !== undefined) throw new Error();
 * const why = payloadProblem("tool_call_requested", { callId: "c", name: "ls", arguments: {} });
 * if (why !== '"arguments" is not a string') throw new Error(why);
 * ```
 */
export function payloadProblem(
  type: SessionEventType,
  payload: Record<string, unknown>,
): string | undefined {
  const problem = fieldsProblem(payload, SHAPES[type], "");
  if (problem !== undefined || type !== "tool_call_finished") return problem;
  return fieldsProblem(payload.result as Record<string, unknown>, TOOL_RESULT, "result.");
}
