// How a subagent (the `task` tool's child conversation) shows in the editor: each call the
// child makes is a tool call of its own, titled with the agent's name, with its own updates as
// it starts and finishes; the `task` call that started the child stays in progress until the
// child's report comes back. Ids are the task's and the child's call id together, so two
// children's calls never share one.

import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import { childCallId, type LoopEvent } from "../agent/loop_events.ts";
import { toolCallUpdate, toolLocations, toolResultUpdate } from "./tool_updates.ts";

/** A subagent's event as the loop reports it. */
export type SubagentEvent = Extract<LoopEvent, { type: "subagent" }>;

/**
 * The update a subagent's event sends, if any: its calls as tool calls of their own.
 *
 * @param event The subagent's event (a grandchild's is its own child's, by its own task).
 * @param cwd The session's folder, for the calls' locations.
 * @param takeDiffs The file changes of the call that just finished (a finished call's).
 * @returns The update, or undefined for an event the editor is not shown.
 *
 * @example
 * ```ts
 * import { subagentUpdate } from "./subagent_updates.ts";
 * const update = subagentUpdate({
 *   type: "subagent", callId: "c1", taskId: "t1", agent: "explorer",
 *   event: { type: "tool_started", callId: "x", name: "ls", args: { path: "." } },
 * }, "/w");
 * if (update?.sessionUpdate !== "tool_call_update" || update.toolCallId !== "t1/x") throw new Error();
 * ```
 */
export function subagentUpdate(
  event: SubagentEvent,
  cwd: string,
  takeDiffs: () => readonly ToolCallContent[] = () => [],
): SessionUpdate | undefined {
  const inner = event.event;
  const id = (callId: string) => childCallId(event.taskId, callId);
  switch (inner.type) {
    case "subagent":
      return subagentUpdate(inner, cwd, takeDiffs);
    case "message": {
      if (inner.message.kind !== "tool_call") return undefined;
      const call = inner.message.data;
      const update = toolCallUpdate({ ...call, id: id(call.id) }, cwd);
      return update.sessionUpdate === "tool_call"
        ? { ...update, title: `${event.agent}: ${update.title}` }
        : update;
    }
    case "tool_started":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: id(inner.callId),
        status: "in_progress",
        rawInput: inner.args,
        locations: toolLocations(inner.args, cwd),
      };
    case "tool_finished":
      // The file changes it made, on its own call (the editor's diffs of the child's edits).
      return toolResultUpdate(
        id(inner.callId),
        inner.result,
        inner.result.success ? takeDiffs() : [],
      );
    default:
      return undefined;
  }
}
