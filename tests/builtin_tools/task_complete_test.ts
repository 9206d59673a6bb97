import { deepStrictEqual as assertEquals } from "node:assert/strict";
import tool from "../../plugins/task_complete.ts";
import { makeToolContext, runTool } from "../helpers/tool_context.ts";

Deno.test("task_complete returns the summary and ends the run", async () => {
  await using ctx = await makeToolContext();
  const result = await runTool(tool, { summary: "Fixed the bug in a.ts." }, ctx);
  assertEquals(result.output, "Fixed the bug in a.ts.");
  assertEquals(result.final, true);
});
