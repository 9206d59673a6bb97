import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/replace_lines.ts";
import {
  assertPathRules,
  expectToolError,
  makeToolContext,
  runTool,
} from "../helpers/tool_context.ts";

Deno.test("replace_lines replaces an inclusive range and previews the change", async () => {
  await using ctx = await makeToolContext({ "a.txt": "1\n2\n3\n4\n" });
  const { output } = await runTool(tool, {
    path: "a.txt",
    line_start: 2,
    line_end: 3,
    new_content: "two\nthree\nmore\n",
  }, ctx);
  assertEquals(await ctx.read("a.txt"), "1\ntwo\nthree\nmore\n4\n");
  assert(output.includes("@@ -2,2 +2,3 @@") && output.includes("-2\n-3\n+two"), output);
});

Deno.test("replace_lines keeps CRLF line endings", async () => {
  await using ctx = await makeToolContext({ "a.txt": "1\r\n2\r\n" });
  await runTool(tool, { path: "a.txt", line_start: 1, line_end: 1, new_content: "one" }, ctx);
  assertEquals(await ctx.read("a.txt"), "one\r\n2\r\n");
});

Deno.test("replace_lines deletes lines when new_content is empty", async () => {
  await using ctx = await makeToolContext({ "a.txt": "1\n2\n3\n" });
  await runTool(tool, { path: "a.txt", line_start: 2, line_end: 2, new_content: "" }, ctx);
  assertEquals(await ctx.read("a.txt"), "1\n3\n");
});

Deno.test("replace_lines rejects bad line numbers with the valid range", async () => {
  await using ctx = await makeToolContext({ "a.txt": "1\n2\n3\n" });
  for (const [line_start, line_end] of [[0, 1], [3, 2], [2, 4], [5, 5]]) {
    const message = await expectToolError(
      tool,
      { path: "a.txt", line_start, line_end, new_content: "x" },
      ctx,
      "validation_failed",
    );
    assert(message.includes("1-3"), message);
  }
  assertEquals(await ctx.read("a.txt"), "1\n2\n3\n");
});

Deno.test("replace_lines rejects absolute paths, .. escapes and symlinks out", async () => {
  await using ctx = await makeToolContext();
  await assertPathRules(
    tool,
    ctx,
    (path) => ({ path, line_start: 1, line_end: 1, new_content: "x" }),
  );
});
