// The task list (task_list.ts) as the user sees it: the REPL's and the editor's /tasks show
// one task a line with a check box. A file of its own, so showing it never loads zod.

import type { Task } from "./task_list.ts";

/**
 * Formats the task list held in the conversation state, one task a line with a check box.
 *
 * @param state The conversation state (`state.tasks`, as add_task keeps it).
 * @returns The lines, or "No tasks yet".
 *
 * @example
 * ```ts
 * import { formatTaskChecklist } from "./task_checklist.ts";
 * const text = formatTaskChecklist({ tasks: [{ id: "task_1", content: "x", status: "pending" }] });
 * if (text !== "[ ] task_1  x") throw new Error(text);
 * ```
 */
export function formatTaskChecklist(state: Record<string, unknown>): string {
  const tasks = Array.isArray(state.tasks) ? state.tasks as Task[] : [];
  if (tasks.length === 0) return "No tasks yet";
  const mark: Record<string, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };
  return tasks.map((task) => `${mark[task.status] ?? "[?]"} ${task.id}  ${task.content}`).join(
    "\n",
  );
}
