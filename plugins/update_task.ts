// Built-in tool update_task: sets the status of one task in the conversation's task list.

import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import {
  formatTasks,
  nextTaskNumber,
  readTasks,
  taskStatus,
  writeTasks,
} from "../src/tools/builtin/task_list.ts";

export default defineTool({
  name: "update_task",
  description: "Set the status of a task: pending, in_progress or completed.",
  risk: "safe",
  parameters: z.object({
    task_id: z.string().describe("The task id, e.g. task_1."),
    status: taskStatus.describe("The new status: pending, in_progress or completed."),
  }),
  run({ task_id, status }, ctx) {
    const tasks = readTasks(ctx.state);
    const task = tasks.find((t) => t.id === task_id.trim());
    if (task === undefined) {
      const ids = tasks.map((t) => t.id).join(", ");
      throw new ToolError(
        "not_found",
        tasks.length === 0
          ? `No task "${task_id}": the task list is empty (add tasks with add_task)`
          : `No task "${task_id}": existing ids are ${ids}`,
      );
    }
    const previous = task.status;
    task.status = status;
    writeTasks(ctx.state, tasks, nextTaskNumber(ctx.state, tasks));
    return {
      output: `${task.id} is now ${status} (was ${previous}).\n\n${formatTasks(tasks)}`,
      display: `${task.id} -> ${status}`,
    };
  },
});
