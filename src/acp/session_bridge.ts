// One ACP session's view of a running turn: turns the agent loop's events into streamed
// session/update notifications (message and thought chunks, tool calls with their kind,
// locations, status, result and diff, the plan) and maps how the turn ended to a stop reason.

import type { SessionUpdate, StopReason, ToolCallContent } from "@agentclientprotocol/sdk";
import type { LoopEvent, StopReasonOut } from "../agent/loop_events.ts";
import type { FileDiff } from "./editor_files.ts";
import { planUpdate } from "./session_updates.ts";
import { rawInput, resultContent, toolKind, toolLocations, toolTitle } from "./tool_updates.ts";

/** Receives the updates of one session, in order. */
export type UpdateSender = (update: SessionUpdate) => void;

/**
 * Creates the loop event sink of one turn.
 *
 * @param options `send` posts an update; `cwd` resolves paths; `takeDiffs` returns (and
 *   forgets) the file changes the finished call made.
 * @returns The sink to pass to `Conversation.send`.
 *
 * @example
 * ```ts
 * import { turnSink } from "./session_bridge.ts";
 * const sent: string[] = [];
 * const sink = turnSink({ send: (u) => sent.push(u.sessionUpdate), cwd: "/w", takeDiffs: () => [] });
 * sink({ type: "text_delta", text: "Hi" });
 * if (sent[0] !== "agent_message_chunk") throw new Error();
 * ```
 */
export function turnSink(options: {
  send: UpdateSender;
  cwd: string;
  takeDiffs(): FileDiff[];
}): (event: LoopEvent) => void {
  const { send, cwd } = options;
  const text = (t: string) => ({ type: "text" as const, text: t });
  return (event) => {
    switch (event.type) {
      case "text_delta":
        send({ sessionUpdate: "agent_message_chunk", content: text(event.text) });
        break;
      case "reasoning_delta":
        send({ sessionUpdate: "agent_thought_chunk", content: text(event.text) });
        break;
      case "message": {
        const message = event.message;
        if (message.kind !== "tool_call") break;
        const args = rawInput(message.data.arguments);
        send({
          sessionUpdate: "tool_call",
          toolCallId: message.data.id,
          title: toolTitle(message.data.name, args),
          kind: toolKind(message.data.name),
          status: "pending",
          rawInput: args,
          locations: toolLocations(args, cwd),
        });
        break;
      }
      case "tool_started":
        send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: "in_progress",
          rawInput: event.args,
          locations: toolLocations(event.args, cwd),
        });
        break;
      case "tool_finished": {
        const diffs: ToolCallContent[] = event.result.success
          ? options.takeDiffs().map((d) => ({ type: "diff", ...d }))
          : [];
        send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: event.result.success ? "completed" : "failed",
          content: [...diffs, ...resultContent(event.result)],
          rawOutput: event.result,
        });
        break;
      }
      case "state_changed": {
        const plan = planUpdate(event.state);
        if (plan) send(plan);
        break;
      }
      case "warning":
        send({ sessionUpdate: "agent_thought_chunk", content: text(`\n${event.message}\n`) });
        break;
      case "limit_reached":
      case "permission_decided":
      case "tool_output":
      case "waiting":
      case "compacted":
      case "turn_started":
      case "usage":
      case "done":
      case "checkpoint":
      case "files_restored":
      case "rewound":
        break;
      default: {
        const never: never = event;
        throw new Error(`unhandled event ${JSON.stringify(never)}`);
      }
    }
  };
}

/**
 * The ACP stop reason of a finished turn; errors are reported as JSON-RPC errors instead.
 *
 * @example
 * ```ts
 * import { acpStopReason } from "./session_bridge.ts";
 * if (acpStopReason("interrupted") !== "cancelled") throw new Error();
 * ```
 */
export function acpStopReason(stop: Exclude<StopReasonOut, "error">): StopReason {
  switch (stop) {
    case "answered":
    case "task_complete":
      return "end_turn";
    case "iteration_limit":
      return "max_turn_requests";
    case "interrupted":
      return "cancelled";
    default: {
      const never: never = stop;
      throw new Error(`unhandled stop ${String(never)}`);
    }
  }
}
