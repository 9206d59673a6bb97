import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import tool from "../../plugins/grep_search.ts";
import { makeToolContext, runTool } from "../helpers/tool_context.ts";

function matchLines(output: string): string[] {
  return output.split("\n").slice(1).filter((l) => !l.startsWith("["));
}

Deno.test("grep_search returns path:line: text, case-insensitive by default", async () => {
  await using ctx = await makeToolContext({
    "src/a.ts": "const Foo = 1;\nconst bar = 2;\nfoo();\n",
    "b.md": "no match\r\nFOO in crlf\r\n",
  });
  const { output } = await runTool(tool, { pattern: "foo" }, ctx);
  assertEquals(matchLines(output), [
    "b.md:2: FOO in crlf",
    "src/a.ts:1: const Foo = 1;",
    "src/a.ts:3: foo();",
  ]);
  assert(output.startsWith("3 matching lines in 2 files"), output);
});

Deno.test("grep_search honours case_sensitive and `*` wildcards", async () => {
  await using ctx = await makeToolContext({
    "a.ts": "function runTool() {}\nfunction other() {}\nFunction x\n",
  });
  const exact = await runTool(tool, { pattern: "Function", case_sensitive: true }, ctx);
  assertEquals(matchLines(exact.output), ["a.ts:3: Function x"]);
  assert(exact.output.includes("[case-sensitive]"));
  const wild = await runTool(tool, { pattern: "function*tool(" }, ctx);
  assertEquals(matchLines(wild.output), ["a.ts:1: function runTool() {}"]);
  // Wildcards stay within one line; regex characters are literal.
  assertEquals(matchLines((await runTool(tool, { pattern: "runTool*other" }, ctx)).output), []);
  assertEquals(matchLines((await runTool(tool, { pattern: "x.*" }, ctx)).output), []);
});

Deno.test("grep_search filters files with a glob", async () => {
  await using ctx = await makeToolContext({
    "a.ts": "hit",
    "a.js": "hit",
    "docs/x.md": "hit",
    "y.md": "hit",
  });
  assertEquals(
    matchLines((await runTool(tool, { pattern: "hit", file_filter: "*.ts" }, ctx)).output),
    ["a.ts:1: hit"],
  );
  assertEquals(
    matchLines((await runTool(tool, { pattern: "hit", file_filter: "**/*.md" }, ctx)).output),
    [
      "docs/x.md:1: hit",
      "y.md:1: hit",
    ],
  );
  assertEquals(
    matchLines((await runTool(tool, { pattern: "hit", file_filter: "docs/*.md" }, ctx)).output),
    ["docs/x.md:1: hit"],
  );
});

Deno.test("grep_search skips hidden, gitignored, VCS and binary files unless asked", async () => {
  await using ctx = await makeToolContext({
    ".gitignore": "dist/\n*.log\n!keep.log\n",
    "src/.gitignore": "gen.ts\n",
    "src/gen.ts": "needle",
    "src/main.ts": "needle",
    "dist/out.js": "needle",
    "x.log": "needle",
    "keep.log": "needle",
    ".env": "needle",
    ".git/config": "needle",
    ".hg/store": "needle",
  });
  await Deno.writeFile(`${ctx.workspace}/bin.dat`, new TextEncoder().encode("needle\0\x01"));
  const plain = await runTool(tool, { pattern: "needle" }, ctx);
  assertEquals(matchLines(plain.output), ["keep.log:1: needle", "src/main.ts:1: needle"]);
  const all = await runTool(tool, {
    pattern: "needle",
    include_hidden: true,
    ignore_gitignore: true,
  }, ctx);
  assertEquals(matchLines(all.output), [
    ".env:1: needle",
    "dist/out.js:1: needle",
    "keep.log:1: needle",
    "src/gen.ts:1: needle",
    "src/main.ts:1: needle",
    "x.log:1: needle",
  ]);
  assert(all.output.includes("[+hidden] [+gitignored]"), all.output);
});

Deno.test("grep_search stops at max_results and says so", async () => {
  await using ctx = await makeToolContext({ "a.txt": "x\n".repeat(10), "b.txt": "x\n" });
  const { output } = await runTool(tool, { pattern: "x", max_results: 4 }, ctx);
  assertEquals(matchLines(output).length, 4);
  assert(output.includes("Stopped at 4 matches"), output);
  const exact = await runTool(tool, { pattern: "x", max_results: 11 }, ctx);
  assert(!exact.output.includes("Stopped"), exact.output);
  assert(!tool.parameters.safeParse({ pattern: "x", max_results: 1001 }).success);
});

Deno.test("grep_search reports one entry per line and cuts long lines", async () => {
  await using ctx = await makeToolContext({
    "a.txt": "ab ab ab\n",
    "min.js": `${"q".repeat(1000)}needle${"q".repeat(1000)}`,
  });
  assertEquals(matchLines((await runTool(tool, { pattern: "ab" }, ctx)).output), [
    "a.txt:1: ab ab ab",
  ]);
  const long = matchLines((await runTool(tool, { pattern: "needle" }, ctx)).output)[0] ?? "";
  assert(long.includes("needle") && long.length < 340, long);
});

Deno.test("grep_search says when nothing matched", async () => {
  await using ctx = await makeToolContext({ "a.txt": "x" });
  const { output } = await runTool(tool, { pattern: "zzz" }, ctx);
  assert(output.startsWith('No matches for "zzz" in 1 files searched'), output);
});

Deno.test("grep_search's zero-match hint names only what was skipped", async () => {
  await using ctx = await makeToolContext({ "a.txt": "x" });
  const hint = async (args: Record<string, unknown>) =>
    /\((.*)\)\.$/.exec((await runTool(tool, { pattern: "zzz", ...args }, ctx)).output)?.[1];
  assertEquals(
    await hint({}),
    "hidden and .gitignored files were skipped; see include_hidden and ignore_gitignore",
  );
  assertEquals(
    await hint({ include_hidden: true }),
    ".gitignored files were skipped; see ignore_gitignore",
  );
  assertEquals(
    await hint({ ignore_gitignore: true }),
    "hidden files were skipped; see include_hidden",
  );
  assertEquals(await hint({ include_hidden: true, ignore_gitignore: true }), undefined);
});

Deno.test("grep_search does not follow symlinks out of the workspace", async () => {
  await using ctx = await makeToolContext({ "a.txt": "x" });
  await Deno.writeTextFile(`${ctx.outside}/secret.txt`, "needle");
  await Deno.symlink(ctx.outside, `${ctx.workspace}/out`);
  await Deno.symlink(`${ctx.outside}/secret.txt`, `${ctx.workspace}/secret.txt`);
  const { output } = await runTool(tool, {
    pattern: "needle",
    include_hidden: true,
    ignore_gitignore: true,
  }, ctx);
  assert(output.startsWith("No matches"), output);
});
