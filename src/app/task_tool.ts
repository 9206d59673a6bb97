// The `task` tool as the model sees it: two required strings (small models get them right),
// the agent and the whole task, and an optional task id that sends a finished child another
// message instead of starting a new one. Its description lists the agents the workspace has.
// A call runs in harness (subagents.ts starts the child); several in one reply run together.

import { err, ok, type Result } from "../errors.ts";
import { makeToolResult, type ToolResult } from "../messages.ts";
import type { AgentDefinition } from "../agents/agent_definition.ts";
import type { EntryCall, ToolEntry, ToolInfo, ToolRun } from "../tools/tool_entry.ts";
import { TASK_TOOL } from "../sandbox/grants/child_scope.ts";

/** A validated `task` call. */
export interface TaskArgs {
  agent: string;
  prompt: string;
  /** Continue this task's child (from an earlier result) instead of starting one. */
  task_id?: string;
}

/** At most this many agents are listed in the description; the rest are named only. */
const LISTED = 12;

/** An agent's description in one short line (the files' long examples left out). */
function shortDescription(text: string): string {
  const flat = text.replace(/<example>[^]*?<\/example>/gi, " ").replace(/\s+/g, " ").trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length > 140 ? `${sentence.slice(0, 137)}...` : sentence;
}

/**
 * What the model is told about `task`, with the agents it may start.
 *
 * @example
 * ```ts
 * import { taskDescription } from "./task_tool.ts";
 * const text = taskDescription([{ name: "general", description: "Does anything. Long part." }]);
 * if (!text.includes("- general: Does anything.") || text.includes("Long part")) throw new Error(text);
 * ```
 */
export function taskDescription(
  agents: readonly Pick<AgentDefinition, "name" | "description">[],
): string {
  const listed = agents.slice(0, LISTED).map((agent) =>
    `- ${agent.name}: ${shortDescription(agent.description)}`
  );
  const more = agents.slice(LISTED).map((agent) => agent.name);
  return [
    "Start a subagent: a new conversation that does one task with its own tools and answers " +
    "with a report. It sees nothing of this conversation: put everything it needs in the " +
    "prompt. Several task calls in one reply run at the same time. The result names a " +
    "task_id: pass it to send that subagent a follow-up message.",
    "Agents:",
    ...listed,
    ...(more.length > 0 ? [`Also: ${more.join(", ")}`] : []),
  ].join("\n");
}

const PARAMETERS: Record<string, unknown> = {
  type: "object",
  properties: {
    agent: { type: "string", description: "The agent to start, by its name above." },
    prompt: {
      type: "string",
      description: "The whole task, with every fact the subagent needs.",
    },
    task_id: {
      type: "string",
      description: "Optional: the task_id of an earlier task, to continue that subagent.",
    },
  },
  required: ["agent", "prompt"],
  additionalProperties: false,
};

/**
 * Checks a `task` call's arguments.
 *
 * @example
 * ```ts
 * import { parseTaskArgs } from "./task_tool.ts";
 * if (!parseTaskArgs({ agent: "general", prompt: "find x" }).ok) throw new Error();
 * const bad = parseTaskArgs({ agent: "general" });
 * if (bad.ok || !bad.error[0]?.includes('"prompt"')) throw new Error();
 * ```
 */
export function parseTaskArgs(args: unknown): Result<TaskArgs, string[]> {
  const given = typeof args === "object" && args !== null && !Array.isArray(args)
    ? args as Record<string, unknown>
    : {};
  const issues: string[] = [];
  for (const key of ["agent", "prompt"] as const) {
    const value = given[key];
    if (typeof value !== "string" || value.trim() === "") {
      issues.push(`"${key}" must be a non-empty string`);
    }
  }
  const taskId = given.task_id;
  if (taskId !== undefined && typeof taskId !== "string") issues.push(`"task_id" must be a string`);
  const unknown = Object.keys(given).filter((key) => !["agent", "prompt", "task_id"].includes(key));
  if (unknown.length > 0) issues.push(`unknown argument ${JSON.stringify(unknown[0])}`);
  if (issues.length > 0) return err(issues);
  return ok({
    agent: String(given.agent),
    prompt: String(given.prompt),
    ...(typeof taskId === "string" && taskId !== "" ? { task_id: taskId } : {}),
  });
}

/**
 * The `task` entry of one conversation. It declares reading the workspace: it runs in harness,
 * and what its child changes is checkpointed by the child's own turns (then added to the
 * parent's), so no command window is opened around it.
 *
 * @param agents The agents it may start (for its description).
 * @param run How a call runs.
 * @returns The entry.
 */
export function taskEntry(
  agents: readonly AgentDefinition[],
  run: (args: TaskArgs, call: EntryCall) => Promise<ToolRun>,
): ToolEntry {
  const info: ToolInfo = {
    name: TASK_TOOL,
    description: taskDescription(agents),
    risk: "safe",
    parameters: PARAMETERS,
    permissions: { read: ["."] },
    source: "subagents",
    origin: "builtin",
    concurrent: true,
  };
  return {
    info,
    validate: (args) => Promise.resolve(parseTaskArgs(args)),
    run: (args, call) => run(args as TaskArgs, call),
  };
}

/**
 * A failed `task` call's result.
 *
 * @param type The error type.
 * @param message What the model reads: what went wrong, and what to do instead.
 * @param state The conversation's state, unchanged.
 */
export function taskFailure(
  type: ToolResult["error_type"],
  message: string,
  state: Record<string, unknown>,
): ToolRun {
  return { result: makeToolResult({ errorType: type, errorMessage: message }), state };
}
