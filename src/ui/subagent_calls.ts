// The calls of `-p`'s subagents, for its JSON output: each `task` call's entry in `tool_calls`
// gets a `subagent` object with the child's task id, agent and its own calls (each with its
// result, and a grandchild's under its own `task` call), gathered from the subagent events as
// they pass.

import type { LoopEvent } from "../agent/loop_events.ts";
import type { ToolResult } from "../messages.ts";
import { parseShallowJson } from "../platform/json_depth.ts";

/** One call a subagent made, as the JSON output lists it. */
export interface SubagentCallJson {
  id: string;
  name: string;
  arguments: unknown;
  result: ToolResult;
  subagent?: SubagentJson;
}

/** A subagent under the `task` call that started it. */
export interface SubagentJson {
  task_id: string;
  agent: string;
  tool_calls: SubagentCallJson[];
}

/** One task's calls, and the tasks its own calls started. */
interface TaskNode {
  json: SubagentJson;
  /** Arguments of calls made, by id, until their results come. */
  asked: Map<string, unknown>;
  /** The tasks its `task` calls started, by call id. */
  started: Map<string, TaskNode>;
}

function argumentsValue(text: string): unknown {
  const parsed = parseShallowJson(text);
  return parsed === undefined ? text : parsed.value;
}

/** Gathers subagents' calls from loop events. */
export class SubagentCalls {
  /** The tasks the conversation's own `task` calls started, by call id. */
  readonly #started = new Map<string, TaskNode>();
  readonly #tasks = new Map<string, TaskNode>();

  /** Takes one loop event (others than subagents' pass by). */
  record(event: LoopEvent): void {
    if (event.type === "subagent") this.#take(event, this.#started);
  }

  #take(event: Extract<LoopEvent, { type: "subagent" }>, under: Map<string, TaskNode>): void {
    let node = this.#tasks.get(event.taskId);
    if (node === undefined) {
      node = {
        json: { task_id: event.taskId, agent: event.agent, tool_calls: [] },
        asked: new Map(),
        started: new Map(),
      };
      this.#tasks.set(event.taskId, node);
    }
    under.set(event.callId, node);
    const inner = event.event;
    if (inner.type === "subagent") return this.#take(inner, node.started);
    if (inner.type !== "message") return;
    const { message } = inner;
    if (message.kind === "tool_call") {
      node.asked.set(message.data.id, argumentsValue(message.data.arguments));
    } else if (message.kind === "tool_result") {
      const { callId, name, result } = message.data;
      const child = node.started.get(callId);
      node.json.tool_calls.push({
        id: callId,
        name,
        arguments: node.asked.get(callId) ?? null,
        result,
        ...(child ? { subagent: child.json } : {}),
      });
    }
  }

  /**
   * The subagent a `task` call of the conversation started, if it did.
   *
   * @param callId The call's id.
   * @returns Its calls, for the JSON output.
   */
  of(callId: string): SubagentJson | undefined {
    return this.#started.get(callId)?.json;
  }
}
