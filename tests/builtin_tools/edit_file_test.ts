import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/edit_file.ts";
import {
  assertPathRules,
  expectToolError,
  makeToolContext,
  runTool,
} from "../helpers/tool_context.ts";

Deno.test("edit_file replaces a unique occurrence", async () => {
  await using ctx = await makeToolContext({ "a.ts": "const a = 1;\nconst b = 2;\n" });
  const { output } = await runTool(tool, {
    path: "a.ts",
    old_string: "b = 2",
    new_string: "b = $&3",
  }, ctx);
  assertEquals(await ctx.read("a.ts"), "const a = 1;\nconst b = $&3;\n");
  assert(output.includes("1 occurrence") && output.includes("line 2"), output);
});

Deno.test("edit_file refuses a missing old_string", async () => {
  await using ctx = await makeToolContext({ "a.ts": "x\n" });
  const message = await expectToolError(
    tool,
    { path: "a.ts", old_string: "y", new_string: "z" },
    ctx,
    "validation_failed",
  );
  assert(message.includes("not found"), message);
});

Deno.test("edit_file refuses a non-unique old_string and says how many", async () => {
  await using ctx = await makeToolContext({ "a.ts": "x\ny\nx\n" });
  const message = await expectToolError(
    tool,
    { path: "a.ts", old_string: "x", new_string: "z" },
    ctx,
    "validation_failed",
  );
  assert(message.includes("2 times") && message.includes("lines 1, 3"), message);
  assertEquals(await ctx.read("a.ts"), "x\ny\nx\n");
});

Deno.test("edit_file replaces every occurrence with replace_all", async () => {
  await using ctx = await makeToolContext({ "a.ts": "x\ny\nx\n" });
  const { output } = await runTool(tool, {
    path: "a.ts",
    old_string: "x",
    new_string: "z",
    replace_all: true,
  }, ctx);
  assertEquals(await ctx.read("a.ts"), "z\ny\nz\n");
  assert(output.includes("2 occurrences"), output);
});

Deno.test("edit_file matches multi-line text in a CRLF file", async () => {
  await using ctx = await makeToolContext({ "w.txt": "a\r\nb\r\nc\r\n" });
  await runTool(tool, { path: "w.txt", old_string: "a\nb", new_string: "A\nB" }, ctx);
  assertEquals(await ctx.read("w.txt"), "A\r\nB\r\nc\r\n");
});

Deno.test("edit_file refuses empty and identical strings and missing files", async () => {
  await using ctx = await makeToolContext({ "a.ts": "x\n" });
  await expectToolError(
    tool,
    { path: "a.ts", old_string: "", new_string: "z" },
    ctx,
    "validation_failed",
  );
  await expectToolError(
    tool,
    { path: "a.ts", old_string: "x", new_string: "x" },
    ctx,
    "validation_failed",
  );
  await expectToolError(tool, { path: "b.ts", old_string: "x", new_string: "y" }, ctx, "not_found");
});

Deno.test("edit_file rejects absolute paths, .. escapes and symlinks out", async () => {
  await using ctx = await makeToolContext();
  await assertPathRules(tool, ctx, (path) => ({ path, old_string: "secret", new_string: "x" }));
});
