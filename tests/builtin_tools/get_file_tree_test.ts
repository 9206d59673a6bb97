import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/get_file_tree.ts";
import {
  assertPathRules,
  expectToolError,
  makeToolContext,
  runTool,
} from "../helpers/tool_context.ts";

const files = {
  ".gitignore": "*.log\ndist/\n",
  "README.md": "",
  "app.log": "",
  "dist/x.js": "",
  "src/main.ts": "",
  "src/lib/.gitignore": "secret.ts\n",
  "src/lib/secret.ts": "",
  "src/lib/util.ts": "",
  ".env": "",
  ".git/HEAD": "",
};

Deno.test("get_file_tree shows an indented tree honouring nested .gitignore files", async () => {
  await using ctx = await makeToolContext(files);
  const { output } = await runTool(tool, {}, ctx);
  const [header, ...lines] = output.split("\n");
  assert(header?.startsWith("./ (2 folders, 3 files"), header);
  assertEquals(lines, ["README.md", "src/", "  lib/", "    util.ts", "  main.ts"]);
});

Deno.test("get_file_tree shows hidden names but never VCS folders", async () => {
  await using ctx = await makeToolContext(files);
  const { output } = await runTool(tool, { show_hidden: true, max_depth: 1 }, ctx);
  assertEquals(output.split("\n").slice(1), [".env", ".gitignore", "README.md", "src/"]);
});

Deno.test("get_file_tree limits depth and starts at path", async () => {
  await using ctx = await makeToolContext(files);
  const { output } = await runTool(tool, { path: "src", max_depth: 1 }, ctx);
  assertEquals(output.split("\n").slice(1), ["lib/", "main.ts"]);
  assert(output.startsWith("src/ (1 folders, 1 files, max_depth 1"), output);
  const lib = await runTool(tool, { path: "src/lib" }, ctx);
  assertEquals(lib.output.split("\n").slice(1), ["util.ts"]);
});

Deno.test("get_file_tree marks symlinks and does not follow them", async () => {
  await using ctx = await makeToolContext({ "a/x.txt": "" });
  await Deno.symlink(ctx.outside, `${ctx.workspace}/out`);
  await Deno.writeTextFile(`${ctx.outside}/secret.txt`, "");
  const { output } = await runTool(tool, {}, ctx);
  assertEquals(output.split("\n").slice(1), ["a/", "  x.txt", "out@"]);
});

Deno.test("get_file_tree reports missing folders and files", async () => {
  await using ctx = await makeToolContext(files);
  await expectToolError(tool, { path: "nope" }, ctx, "not_found");
  await expectToolError(tool, { path: "README.md" }, ctx, "validation_failed");
  assert(!tool.parameters.safeParse({ max_depth: 0 }).success);
});

Deno.test("get_file_tree rejects absolute paths, .. escapes and symlinks out", async () => {
  await using ctx = await makeToolContext();
  await assertPathRules(tool, ctx, (path) => ({ path: path.replace(/\/secret\.txt$/, "") }));
});
