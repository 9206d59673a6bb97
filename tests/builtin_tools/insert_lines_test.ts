import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/insert_lines.ts";
import {
  assertPathRules,
  expectToolError,
  makeToolContext,
  runTool,
} from "../helpers/tool_context.ts";

Deno.test("insert_lines inserts before a line and shows context", async () => {
  await using ctx = await makeToolContext({ "a.txt": "1\n2\n3\n4\n5\n" });
  const { output } = await runTool(tool, {
    path: "a.txt",
    line_start: 3,
    line_end: 3,
    new_content: "new\n",
  }, ctx);
  assertEquals(await ctx.read("a.txt"), "1\n2\nnew\n3\n4\n5\n");
  assert(output.includes("  2: 2\n+ 3: new\n  4: 3"), output);
});

Deno.test("insert_lines appends with the line count + 1", async () => {
  await using ctx = await makeToolContext({ "a.txt": "1\n2\n" });
  const { output } = await runTool(tool, { path: "a.txt", line_start: 3, new_content: "3" }, ctx);
  assertEquals(await ctx.read("a.txt"), "1\n2\n3\n");
  assert(output.includes("at the end"), output);
});

Deno.test("insert_lines writes into an empty file", async () => {
  await using ctx = await makeToolContext({ "e.txt": "" });
  await runTool(tool, { path: "e.txt", line_start: 1, new_content: "a\nb" }, ctx);
  assertEquals(await ctx.read("e.txt"), "a\nb\n");
});

Deno.test("insert_lines rejects bad line numbers with the valid range", async () => {
  await using ctx = await makeToolContext({ "a.txt": "1\n2\n" });
  for (const args of [{ line_start: 0 }, { line_start: 4 }, { line_start: 1, line_end: 2 }]) {
    const message = await expectToolError(
      tool,
      { path: "a.txt", new_content: "x", ...args },
      ctx,
      "validation_failed",
    );
    assert(message.includes("1-3"), message);
  }
});

Deno.test("insert_lines rejects absolute paths, .. escapes and symlinks out", async () => {
  await using ctx = await makeToolContext();
  await assertPathRules(tool, ctx, (path) => ({ path, line_start: 1, new_content: "x" }));
});
