import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/glob.ts";
import {
  assertPathRules,
  expectToolError,
  makeToolContext,
  runTool,
} from "../helpers/tool_context.ts";

const files = {
  ".gitignore": "node_modules/\nbuild/\n",
  "main.ts": "",
  "README.md": "",
  "src/a.ts": "",
  "src/b.js": "",
  "src/deep/c.ts": "",
  "src/deep/.gitignore": "*.gen.ts\n",
  "src/deep/x.gen.ts": "",
  "node_modules/pkg/index.ts": "",
  "build/out.ts": "",
  ".github/workflows/ci.yml": "",
  ".hidden.ts": "",
};

function paths(output: string): string[] {
  return output.split("\n").slice(1).filter((l) => !l.startsWith("["));
}

Deno.test("glob lists matching files with the count, honouring .gitignore", async () => {
  await using ctx = await makeToolContext(files);
  const { output } = await runTool(tool, { pattern: "**/*.ts" }, ctx);
  assert(output.startsWith('3 files match "**/*.ts"'), output);
  assertEquals(paths(output), ["main.ts", "src/a.ts", "src/deep/c.ts"]);
});

Deno.test("glob matches file names in any folder when the pattern has no slash", async () => {
  await using ctx = await makeToolContext(files);
  assertEquals(paths((await runTool(tool, { pattern: "*.js" }, ctx)).output), ["src/b.js"]);
});

Deno.test("glob searches under path and prints workspace-relative paths", async () => {
  await using ctx = await makeToolContext(files);
  assertEquals(paths((await runTool(tool, { pattern: "*.ts", path: "src/deep" }, ctx)).output), [
    "src/deep/c.ts",
  ]);
  assertEquals(paths((await runTool(tool, { pattern: "deep/*.ts", path: "src" }, ctx)).output), [
    "src/deep/c.ts",
  ]);
  assertEquals(paths((await runTool(tool, { pattern: "src/**" }, ctx)).output), [
    "src/a.ts",
    "src/b.js",
    "src/deep/c.ts",
  ]);
});

Deno.test("glob finds hidden files only when the pattern names them", async () => {
  await using ctx = await makeToolContext(files);
  assertEquals(paths((await runTool(tool, { pattern: ".github/**/*.yml" }, ctx)).output), [
    ".github/workflows/ci.yml",
  ]);
  assertEquals(paths((await runTool(tool, { pattern: ".hidden.ts" }, ctx)).output), [".hidden.ts"]);
});

Deno.test("glob lists an explicitly named ignored folder", async () => {
  await using ctx = await makeToolContext(files);
  assertEquals(
    paths((await runTool(tool, { pattern: "**/*.ts", path: "node_modules" }, ctx)).output),
    [
      "node_modules/pkg/index.ts",
    ],
  );
});

Deno.test("glob reports no matches, missing folders and files as path", async () => {
  await using ctx = await makeToolContext(files);
  assert((await runTool(tool, { pattern: "**/*.rs" }, ctx)).output.startsWith("0 files match"));
  assert(
    (await runTool(tool, { pattern: "nope/**/*.rs" }, ctx)).output.startsWith("0 files match"),
  );
  await expectToolError(tool, { pattern: "*", path: "nope" }, ctx, "not_found");
  await expectToolError(tool, { pattern: "*", path: "main.ts" }, ctx, "validation_failed");
});

Deno.test("glob rejects absolute paths, .. escapes and symlinks out", async () => {
  await using ctx = await makeToolContext();
  await assertPathRules(
    tool,
    ctx,
    (path) => ({ pattern: "*", path: path.replace(/\/secret\.txt$/, "") }),
  );
});
