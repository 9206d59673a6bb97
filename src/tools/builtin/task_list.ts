// The task list kept in conversation state by add_task, list_tasks and update_task.
// State is plain JSON passed between host and worker: `state.tasks` is an array of
// { id, content, status } and `state.nextTaskId` the number of the next id (task_N).

import { z } from "zod";
import { ToolError } from "../define_tool.ts";

/** Status of one task. */
export const taskStatus = z.enum(["pending", "in_progress", "completed"]);

const taskSchema = z.object({ id: z.string(), content: z.string(), status: taskStatus });

/** One task in the list. */
export type Task = z.infer<typeof taskSchema>;

/**
 * Reads the task list from state (an empty list when there is none).
 *
 * @param state The conversation state (ctx.state).
 * @returns A copy of the tasks.
 * @throws {ToolError} internal_error when state.tasks is not a valid task list.
 *
 * @example
 * ```ts
 * import { readTasks } from "./task_list.ts";
 * if (readTasks({}).length !== 0) throw new Error();
 * ```
 */
export function readTasks(state: Record<string, unknown>): Task[] {
  if (state.tasks === undefined) return [];
  const parsed = z.array(taskSchema).safeParse(state.tasks);
  if (!parsed.success) {
    throw new ToolError("internal_error", "The task list in the conversation state is malformed");
  }
  return parsed.data;
}

/**
 * Stores the task list and the next id number in state.
 *
 * @param state The conversation state (ctx.state), changed in place.
 * @param tasks The new list.
 * @param nextTaskId Number for the next task id.
 *
 * @example
 * ```ts
 * import { writeTasks } from "./task_list.ts";
 * const state: Record<string, unknown> = {};
 * writeTasks(state, [], 1);
 * if (state.nextTaskId !== 1) throw new Error();
 * ```
 */
export function writeTasks(
  state: Record<string, unknown>,
  tasks: Task[],
  nextTaskId: number,
): void {
  state.tasks = tasks;
  state.nextTaskId = nextTaskId;
}

/**
 * The number for the next task id: state.nextTaskId, or one past the highest id in use.
 *
 * @param state The conversation state.
 * @param tasks The current tasks.
 * @returns A positive integer.
 *
 * @example
 * ```ts
 * import { nextTaskNumber } from "./task_list.ts";
 * if (nextTaskNumber({}, [{ id: "task_4", content: "x", status: "pending" }]) !== 5) throw new Error();
 * ```
 */
export function nextTaskNumber(state: Record<string, unknown>, tasks: Task[]): number {
  const highest = Math.max(0, ...tasks.map((t) => Number(/^task_(\d+)$/.exec(t.id)?.[1] ?? 0)));
  const stored = typeof state.nextTaskId === "number" && Number.isInteger(state.nextTaskId)
    ? state.nextTaskId
    : 1;
  return Math.max(stored, highest + 1);
}

/**
 * Formats the task list for the model, one task a line, then counts.
 *
 * @param tasks The tasks.
 * @returns Text such as "task_1 [pending] Write tests".
 *
 * @example
 * ```ts
 * import { formatTasks } from "./task_list.ts";
 * if (!formatTasks([]).includes("No tasks")) throw new Error();
 * ```
 */
export function formatTasks(tasks: Task[]): string {
  if (tasks.length === 0) return "No tasks yet: add one with add_task.";
  const count = (status: Task["status"]) => tasks.filter((t) => t.status === status).length;
  return [
    ...tasks.map((t) => `${t.id} [${t.status}] ${t.content}`),
    `${tasks.length} tasks: ${count("pending")} pending, ${count("in_progress")} in progress, ${
      count("completed")
    } completed`,
  ].join("\n");
}
