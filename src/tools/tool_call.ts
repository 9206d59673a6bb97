// The life of one tool call as a pure state machine. The agent loop performs the I/O
// (validation, the permission question, the sandboxed run) and feeds the outcome here as
// an event; `advance` says what state follows or that the transition is illegal.
//
//   requested -> validated -> (awaiting_permission) -> running -> succeeded | failed
//   side exits: invalid, denied, cancelled, limit_reached

import type { ToolResult } from "../messages.ts";
import { err, ok, type Result } from "../errors.ts";

interface Base {
  callId: string;
  name: string;
  /** Raw JSON text of the arguments as the model sent them. */
  rawArguments: string;
}

export type ToolCallState =
  | Base & { status: "requested" }
  | Base & { status: "validated"; args: unknown }
  | Base & { status: "awaiting_permission"; args: unknown }
  | Base & { status: "running"; args: unknown; startedAt: number }
  | Base & { status: "succeeded"; args: unknown; startedAt: number; output: ToolResult }
  | Base & { status: "failed"; args: unknown; startedAt: number; output: ToolResult }
  | Base & { status: "invalid"; issues: string[] }
  | Base & { status: "denied"; args: unknown; by: "policy" | "user" | "mode"; reason?: string }
  | Base & { status: "cancelled" }
  | Base & { status: "limit_reached" };

export type ToolCallStatus = ToolCallState["status"];

export type ToolCallEvent =
  | { type: "validation_passed"; args: unknown }
  | { type: "validation_failed"; issues: string[] }
  | { type: "permission_needed" }
  | { type: "allowed"; at: number }
  | { type: "denied"; by: "policy" | "user" | "mode"; reason?: string }
  | { type: "finished"; output: ToolResult }
  | { type: "cancelled" }
  | { type: "limit_reached" };

export interface IllegalTransition {
  kind: "illegal_transition";
  from: ToolCallStatus;
  event: ToolCallEvent["type"];
}

/** States after which nothing more happens to a call. */
export const TERMINAL_STATUSES: ReadonlySet<ToolCallStatus> = new Set([
  "succeeded",
  "failed",
  "invalid",
  "denied",
  "cancelled",
  "limit_reached",
]);

/**
 * Starts a call in the `requested` state.
 *
 * @example
 * ```ts
 * import { requestToolCall } from "./tool_call.ts";
 * const s = requestToolCall({ id: "c1", name: "ls", arguments: "{}" });
 * if (s.status !== "requested") throw new Error();
 * ```
 */
export function requestToolCall(
  call: { id: string; name: string; arguments: string },
): ToolCallState {
  return { status: "requested", callId: call.id, name: call.name, rawArguments: call.arguments };
}

/**
 * Returns the state that follows `event`, or an `illegal_transition` error.
 *
 * @param state The current state.
 * @param event What happened.
 * @returns The next state.
 *
 * @example
 * ```ts
 * import { advance, requestToolCall } from "./tool_call.ts";
 * const next = advance(requestToolCall({ id: "c1", name: "ls", arguments: "{}" }), {
 *   type: "validation_passed",
 *   args: {},
 * });
 * if (!next.ok || next.value.status !== "validated") throw new Error();
 * ```
 */
export function advance(
  state: ToolCallState,
  event: ToolCallEvent,
): Result<ToolCallState, IllegalTransition> {
  const base: Base = { callId: state.callId, name: state.name, rawArguments: state.rawArguments };
  const illegal = err<IllegalTransition>({
    kind: "illegal_transition",
    from: state.status,
    event: event.type,
  });
  switch (event.type) {
    case "validation_passed":
      return state.status === "requested"
        ? ok({ ...base, status: "validated", args: event.args })
        : illegal;
    case "validation_failed":
      return state.status === "requested"
        ? ok({ ...base, status: "invalid", issues: event.issues })
        : illegal;
    case "permission_needed":
      return state.status === "validated"
        ? ok({ ...base, status: "awaiting_permission", args: state.args })
        : illegal;
    case "allowed":
      return state.status === "validated" || state.status === "awaiting_permission"
        ? ok({ ...base, status: "running", args: state.args, startedAt: event.at })
        : illegal;
    case "denied":
      if (state.status !== "validated" && state.status !== "awaiting_permission") return illegal;
      return ok({
        ...base,
        status: "denied",
        args: state.args,
        by: event.by,
        ...(event.reason === undefined ? {} : { reason: event.reason }),
      });
    case "finished":
      if (state.status !== "running") return illegal;
      return ok({
        ...base,
        status: event.output.success ? "succeeded" : "failed",
        args: state.args,
        startedAt: state.startedAt,
        output: event.output,
      });
    case "cancelled":
      return TERMINAL_STATUSES.has(state.status) ? illegal : ok({ ...base, status: "cancelled" });
    case "limit_reached":
      return state.status === "requested" ? ok({ ...base, status: "limit_reached" }) : illegal;
    default: {
      const never: never = event;
      throw new Error(`unhandled event ${JSON.stringify(never)}`);
    }
  }
}
