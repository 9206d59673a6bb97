// Built-in tool list_tasks: shows the task list kept in conversation state with each
// task's id and status.

import { z } from "zod";
import { defineTool } from "../src/tools/define_tool.ts";
import { formatTasks, readTasks } from "../src/tools/builtin/task_list.ts";

export default defineTool({
  name: "list_tasks",
  description: "List your tasks for this conversation with their ids and statuses.",
  risk: "safe",
  parameters: z.object({}),
  run(_args, ctx) {
    const tasks = readTasks(ctx.state);
    return { output: formatTasks(tasks), display: `${tasks.length} tasks` };
  },
});
