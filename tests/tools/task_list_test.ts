import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import addTask from "../../plugins/add_task.ts";
import listTasks from "../../plugins/list_tasks.ts";
import updateTask from "../../plugins/update_task.ts";
import { expectToolError, makeToolContext, runTool } from "../helpers/tool_context.ts";

Deno.test("add_task numbers tasks task_1, task_2 and keeps them in state", async () => {
  await using ctx = await makeToolContext();
  const first = await runTool(addTask, { content: "Write tests" }, ctx);
  assert(first.output.startsWith("Added task_1: Write tests"), first.output);
  await runTool(addTask, { content: "Fix bug" }, ctx);
  assertEquals(ctx.state.tasks, [
    { id: "task_1", content: "Write tests", status: "pending" },
    { id: "task_2", content: "Fix bug", status: "pending" },
  ]);
  assertEquals(ctx.state.nextTaskId, 3);
  // State is serialised between host and worker: it must survive a JSON round trip.
  assertEquals(JSON.parse(JSON.stringify(ctx.state)), ctx.state);
});

Deno.test("add_task rejects empty content", () => {
  assert(!addTask.parameters.safeParse({ content: "  " }).success);
});

Deno.test("list_tasks shows ids, statuses and counts", async () => {
  await using ctx = await makeToolContext();
  assert((await runTool(listTasks, {}, ctx)).output.includes("No tasks"));
  await runTool(addTask, { content: "A" }, ctx);
  await runTool(addTask, { content: "B" }, ctx);
  await runTool(updateTask, { task_id: "task_2", status: "in_progress" }, ctx);
  const { output } = await runTool(listTasks, {}, ctx);
  assertEquals(
    output,
    "task_1 [pending] A\ntask_2 [in_progress] B\n2 tasks: 1 pending, 1 in progress, 0 completed",
  );
});

Deno.test("update_task changes a status and rejects unknown ids and statuses", async () => {
  await using ctx = await makeToolContext();
  await expectToolError(updateTask, { task_id: "task_1", status: "completed" }, ctx, "not_found");
  await runTool(addTask, { content: "A" }, ctx);
  const { output } = await runTool(updateTask, { task_id: "task_1", status: "completed" }, ctx);
  assert(output.startsWith("task_1 is now completed (was pending)"), output);
  const message = await expectToolError(
    updateTask,
    { task_id: "task_9", status: "completed" },
    ctx,
    "not_found",
  );
  assert(message.includes("task_1"), message);
  assert(!updateTask.parameters.safeParse({ task_id: "task_1", status: "done" }).success);
});

Deno.test("add_task continues numbering from tasks restored without nextTaskId", async () => {
  await using ctx = await makeToolContext();
  ctx.state.tasks = [{ id: "task_7", content: "old", status: "completed" }];
  const { output } = await runTool(addTask, { content: "new" }, ctx);
  assert(output.startsWith("Added task_8"), output);
});

Deno.test("list_tasks reports a malformed task list as internal_error", async () => {
  await using ctx = await makeToolContext();
  ctx.state.tasks = [{ id: 1 }];
  await expectToolError(listTasks, {}, ctx, "internal_error");
});
