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

// ---- old_string not found exactly (loose_edit.ts) -------------------------------------------

const PYTHON =
  "class A:\n    def f(self):\n        if x:\n            return 1\n        return 0\n";

Deno.test("edit_file replaces a unique match that differs only in indentation, in the file's indentation", async () => {
  await using ctx = await makeToolContext({ "a.py": PYTHON });
  const { output } = await runTool(tool, {
    path: "a.py",
    old_string: "if x:\n    return 1\n",
    new_string: "if x:\n    log(x)\n    return 2\n",
  }, ctx);
  assertEquals(
    await ctx.read("a.py"),
    "class A:\n    def f(self):\n        if x:\n            log(x)\n            return 2\n        return 0\n",
  );
  assert(output.includes("lines 3-4") && output.includes("indentation"), output);
});

Deno.test("edit_file keeps a tab-indented file's tabs when the model wrote spaces", async () => {
  await using ctx = await makeToolContext({
    "m.go": "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
  });
  await runTool(tool, {
    path: "m.go",
    old_string: "    if x {\n        return 1\n    }",
    new_string: "    if x {\n        y()\n            // deeper\n        return 2\n    }",
  }, ctx);
  assertEquals(
    await ctx.read("m.go"),
    "func f() {\n\tif x {\n\t\ty()\n\t\t    // deeper\n\t\treturn 2\n\t}\n}\n",
  );
});

Deno.test("edit_file matches across spaces at line ends and keeps CRLF", async () => {
  await using ctx = await makeToolContext({ "w.txt": "a = 1;   \r\n  b = 2;\t\r\nc\r\n" });
  await runTool(
    tool,
    { path: "w.txt", old_string: "a = 1;\nb = 2;", new_string: "a = 3;\nb = 4;" },
    ctx,
  );
  assertEquals(await ctx.read("w.txt"), "a = 3;\r\n  b = 4;\r\nc\r\n");
});

Deno.test("edit_file refuses a loose match found in several places and names their lines", async () => {
  const file = "def a():\n    x = 1\n    return x\n\ndef b():\n  x = 1\n  return x\n";
  await using ctx = await makeToolContext({ "d.py": file });
  const message = await expectToolError(
    tool,
    { path: "d.py", old_string: "x = 1\nreturn x", new_string: "x = 2\nreturn x" },
    ctx,
    "validation_failed",
  );
  assert(message.includes("2 places") && message.includes("lines 2, 6"), message);
  assertEquals(await ctx.read("d.py"), file);
});

Deno.test("edit_file shows the closest lines with numbers and a replace_lines call that works", async () => {
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1} of filler text`);
  lines.splice(20, 2, "function total(items) {", "  return items.reduce((a, b) => a + b, 0);");
  const file = `${lines.join("\n")}\n`;
  await using ctx = await makeToolContext({ "t.js": file });
  const message = await expectToolError(
    tool,
    {
      path: "t.js",
      old_string: "function totl(items) {\n  return items.reduce((a, b) => a + b);",
      new_string: "const total = (items) =>\n  items.reduce((a, b) => a + b, 0);",
    },
    ctx,
    "validation_failed",
  );
  assertEquals(await ctx.read("t.js"), file);
  assert(message.includes("lines 21-22"), message);
  assert(message.includes("21: function total(items) {"), message);
  assert(message.includes("22:   return items.reduce((a, b) => a + b, 0);"), message);
  assert(message.includes('"line_start": 21, "line_end": 22'), message);
  // The call the message names does the edit.
  const { default: replaceLines } = await import("../../plugins/replace_lines.ts");
  await runTool(replaceLines, {
    path: "t.js",
    line_start: 21,
    line_end: 22,
    new_content: "const total = (items) =>\n  items.reduce((a, b) => a + b, 0);",
  }, ctx);
  assert((await ctx.read("t.js")).includes("line 20 of filler text\nconst total = (items) =>\n"));
});

Deno.test("edit_file keeps the plain message when nothing in the file is alike", async () => {
  await using ctx = await makeToolContext({ "a.txt": "alpha\nbeta\n" });
  const message = await expectToolError(
    tool,
    { path: "a.txt", old_string: "zzz qqq", new_string: "x" },
    ctx,
    "validation_failed",
  );
  assert(message.includes("not found") && !message.includes("closest"), message);
});
