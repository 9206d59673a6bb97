// Built-in tool add_task: appends a pending task (ids task_1, task_2, ...) to the task list
// kept in conversation state, so the model can plan multi-step work.

import { z } from "zod";
import { defineTool } from "../src/tools/define_tool.ts";
import {
  formatTasks,
  nextTaskNumber,
  readTasks,
  writeTasks,
} from "../src/tools/builtin/task_list.ts";

export default defineTool({
  name: "add_task",
  description:
    "Add a pending task to your task list for this conversation. Returns its id (task_N).",
  risk: "safe",
  parameters: z.object({
    content: z.string().trim().min(1).describe("What the task is, in one short sentence."),
  }),
  run({ content }, ctx) {
    const tasks = readTasks(ctx.state);
    const number = nextTaskNumber(ctx.state, tasks);
    const task = { id: `task_${number}`, content, status: "pending" as const };
    tasks.push(task);
    writeTasks(ctx.state, tasks, number + 1);
    return {
      output: `Added ${task.id}: ${content}\n\n${formatTasks(tasks)}`,
      display: `Added ${task.id}: ${content}`,
    };
  },
});
