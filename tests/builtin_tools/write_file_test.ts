import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/write_file.ts";
import {
  assertPathRules,
  expectToolError,
  makeToolContext,
  runTool,
} from "../helpers/tool_context.ts";

Deno.test("write_file creates parent folders and says bytes written", async () => {
  await using ctx = await makeToolContext();
  const { output } = await runTool(tool, { path: "a/b/c.txt", content: "héllo" }, ctx);
  assertEquals(await ctx.read("a/b/c.txt"), "héllo");
  assert(output.includes("6 bytes") && output.includes("Created"), output);
});

Deno.test("write_file overwrites and leaves no temp files", async () => {
  await using ctx = await makeToolContext({ "f.txt": "old content" });
  const { output } = await runTool(tool, { path: "f.txt", content: "new" }, ctx);
  assertEquals(await ctx.read("f.txt"), "new");
  assert(output.includes("Overwrote"), output);
  const names = [...Deno.readDirSync(ctx.workspace)].map((e) => e.name);
  assertEquals(names, ["f.txt"]);
});

Deno.test({
  name: "write_file keeps the mode of the file it replaces",
  ignore: Deno.build.os === "windows",
}, async () => {
  await using ctx = await makeToolContext({ "run.sh": "echo 1" });
  await Deno.chmod(`${ctx.workspace}/run.sh`, 0o755);
  await runTool(tool, { path: "run.sh", content: "echo 2" }, ctx);
  assertEquals((await Deno.stat(`${ctx.workspace}/run.sh`)).mode! & 0o777, 0o755);
});

Deno.test("write_file refuses to replace a directory", async () => {
  await using ctx = await makeToolContext({ "d/x": "" });
  await expectToolError(tool, { path: "d", content: "x" }, ctx, "validation_failed");
});

Deno.test("write_file rejects absolute paths, .. escapes and symlinks out", async () => {
  await using ctx = await makeToolContext();
  await assertPathRules(tool, ctx, (path) => ({ path, content: "pwned" }));
  assertEquals(await Deno.readTextFile(`${ctx.outside}/secret.txt`), "secret\n");
});

Deno.test("write_file gives a hard-linked file a new content without changing the other link", async () => {
  await using ctx = await makeToolContext();
  await Deno.writeTextFile(`${ctx.outside}/shared.txt`, "outside\n");
  await Deno.link(`${ctx.outside}/shared.txt`, `${ctx.workspace}/shared.txt`);
  const { output } = await runTool(tool, { path: "shared.txt", content: "inside\n" }, ctx);
  assertEquals(await ctx.read("shared.txt"), "inside\n");
  assertEquals(await Deno.readTextFile(`${ctx.outside}/shared.txt`), "outside\n");
  assert(output.includes("1 other hard link"), output);
});

Deno.test("write_file writes through a link inside the workspace to its target", async () => {
  await using ctx = await makeToolContext({ "real.txt": "old\n" });
  await Deno.symlink("real.txt", `${ctx.workspace}/alias.txt`);
  await runTool(tool, { path: "alias.txt", content: "new\n" }, ctx);
  assertEquals(await ctx.read("real.txt"), "new\n");
  assert((await Deno.lstat(`${ctx.workspace}/alias.txt`)).isSymlink);
});
