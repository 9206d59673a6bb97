import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/ls.ts";
import {
  assertPathRules,
  expectToolError,
  makeToolContext,
  runTool,
} from "../helpers/tool_context.ts";

Deno.test("ls lists types, sizes, names and totals", async () => {
  await using ctx = await makeToolContext({
    "b.txt": "x".repeat(2048),
    "a.txt": "hi",
    "src/m.ts": "",
    ".env": "S",
  });
  await Deno.symlink("a.txt", `${ctx.workspace}/link`);
  const { output } = await runTool(tool, {}, ctx);
  const lines = output.split("\n");
  assert(lines[0]?.startsWith("TYPE"), output);
  assert(/^FILE\s+2 B\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+a\.txt$/.test(lines[1] ?? ""), lines[1]);
  assert(/^FILE\s+2 KB .* b\.txt$/.test(lines[2] ?? ""), lines[2]);
  assert(/^LINK .* link -> a\.txt$/.test(lines[3] ?? ""), lines[3]);
  assert(/^DIR\s+- .* src\/$/.test(lines[4] ?? ""), lines[4]);
  assert(!output.includes(".env"), "hidden skipped");
  assert(output.includes("2 files, 1 dirs, 1 links, 2 KB (2050 bytes)"), output);
});

Deno.test("ls shows hidden entries, sorts and limits", async () => {
  await using ctx = await makeToolContext({ "small": "1", "big": "1234567", ".hidden": "12" });
  const bySize = (await runTool(tool, { sort_by: "size", show_hidden: true }, ctx)).output;
  const names = bySize.split("\n").slice(1, 4).map((l) => l.split(/\s+/).pop());
  assertEquals(names, ["big", ".hidden", "small"]);
  const reversed = (await runTool(tool, { reverse: true, max_entries: 1 }, ctx)).output;
  assert(reversed.split("\n")[1]?.endsWith("small"), reversed);
  assert(reversed.includes("1 more entries not shown"), reversed);
});

Deno.test("ls sorts by modified time, newest first", async () => {
  await using ctx = await makeToolContext({ "old": "", "new": "" });
  await Deno.utime(`${ctx.workspace}/old`, 1000, 1000);
  const { output } = await runTool(tool, { sort_by: "modified" }, ctx);
  assert(output.split("\n")[1]?.endsWith("new"), output);
});

Deno.test("ls rejects max_entries over 1000", () => {
  assert(!tool.parameters.safeParse({ max_entries: 1001 }).success);
});

Deno.test("ls reports missing folders and files", async () => {
  await using ctx = await makeToolContext({ "f.txt": "" });
  await expectToolError(tool, { path: "nope" }, ctx, "not_found");
  await expectToolError(tool, { path: "f.txt" }, ctx, "validation_failed");
});

Deno.test("ls rejects absolute paths, .. escapes and symlinks out", async () => {
  await using ctx = await makeToolContext();
  await Deno.symlink(ctx.outside, `${ctx.workspace}/out`);
  await expectToolError(tool, { path: "out" }, ctx, "validation_failed");
  await Deno.remove(`${ctx.workspace}/out`);
  await assertPathRules(tool, ctx, (path) => ({ path }));
});

Deno.test("ls counts links apart from files and dirs, whatever they point to", async () => {
  await using ctx = await makeToolContext({ "a.txt": "abc", "src/m.ts": "" });
  await Deno.symlink("a.txt", `${ctx.workspace}/to_file`);
  await Deno.symlink("src", `${ctx.workspace}/to_dir`);
  await Deno.symlink("gone.txt", `${ctx.workspace}/dangling`);
  const { output, display } = await runTool(tool, {}, ctx);
  assert(
    output.endsWith("1 files, 1 dirs, 3 links, 3 B (3 bytes) (hidden entries skipped)"),
    output,
  );
  assertEquals(display, "Listed . (1 files, 1 dirs, 3 links)");
});
