// Typed events the agent loop emits to an injected sink. The REPL and the -p printers
// render them; the session log records them. The loop knows nothing about either.

import type { Message, ToolResult, Usage } from "../messages.ts";
import type { ApprovalDecision } from "../permissions/approver.ts";
import type { CheckpointEvent } from "../checkpoints/turn_checkpoints.ts";

export type StopReasonOut =
  | "answered"
  | "task_complete"
  | "iteration_limit"
  | "error"
  | "interrupted";

export type LoopEvent =
  /** A model turn is about to be requested (1-based within the user message). */
  | { type: "turn_started"; iteration: number }
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  /** A canonical message was appended to the conversation (persist it before going on). */
  | { type: "message"; message: Message }
  | {
    type: "permission_decided";
    callId: string;
    name: string;
    decision: ApprovalDecision;
    /** The validated arguments the decision was about (schema defaults filled in). */
    args?: unknown;
  }
  | { type: "tool_started"; callId: string; name: string; args: unknown }
  /** Output a running tool reported before finishing (run_command's stdout and stderr). */
  | { type: "tool_output"; callId: string; name: string; text: string }
  | {
    type: "tool_finished";
    callId: string;
    name: string;
    args: unknown;
    result: ToolResult;
    display: string;
  }
  | { type: "limit_reached"; limit: "iterations" | "tool_calls"; max: number }
  /** One request's usage; `side` names a side request (the read_file curator, a summary). */
  | { type: "usage"; usage: Usage; side?: string }
  | { type: "warning"; message: string }
  /** Waiting for the model's first output; `progress` when the server reports its prompt work. */
  | {
    type: "waiting";
    elapsedMs: number;
    progress?: { processed: number; total: number };
  }
  /** The conversation was replaced by the model's summary of it (/compact or automatic). */
  | { type: "compacted"; summary: string; tokensBefore: number; tokensAfter: number }
  | { type: "state_changed"; state: Record<string, unknown> }
  /** A turn's file changes were recorded (checkpoint), or files were put back (/undo, /rewind). */
  | CheckpointEvent
  /**
   * An event of a subagent's conversation (the `task` tool's child), under the call that
   * started it: `taskId` names the child (a later `task` call may continue it).
   */
  | { type: "subagent"; callId: string; taskId: string; agent: string; event: LoopEvent }
  /** The conversation went back to before a user message (/rewind): it keeps `messageCount`. */
  | { type: "rewound"; messageCount: number }
  | { type: "done"; stopReason: StopReasonOut; text: string; errorMessage?: string };

export type LoopEventSink = (event: LoopEvent) => void;

/**
 * How a subagent's call is named outside its own conversation (the editor's tool calls, its
 * permission requests): its task's id and its own call id, so two children's calls never
 * share a name.
 *
 * @example
 * ```ts
 * import { childCallId } from "./loop_events.ts";
 * if (childCallId("2", "call_1") !== "2/call_1") throw new Error();
 * ```
 */
export function childCallId(taskId: string, callId: string): string {
  return `${taskId}/${callId}`;
}
