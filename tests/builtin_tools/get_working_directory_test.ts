import { deepStrictEqual as assertEquals } from "node:assert/strict";
import tool from "../../plugins/get_working_directory.ts";
import { makeToolContext, runTool } from "../helpers/tool_context.ts";

Deno.test("get_working_directory returns the absolute workspace path", async () => {
  await using ctx = await makeToolContext();
  assertEquals((await runTool(tool, {}, ctx)).output, ctx.workspace);
});
