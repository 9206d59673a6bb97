// Differential tests: grep_search's search (grepTree) against ripgrep, and the glob tool
// against fd, on one generated git repository with nested .gitignore files (negations,
// folder-only and anchored rules), hidden files, binaries, CRLF lines, non-ASCII text and
// files across the reader's 64 KiB first chunk. Same files, same lines. CI installs rg and
// fd-find; without them these tests are skipped by name.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import glob from "../../plugins/glob.ts";
import { grepTree } from "../../src/tools/search/grep_files.ts";
import { buildSearchTree as buildTree } from "../helpers/search_tree.ts";
import { makeToolContext, runTool } from "../helpers/tool_context.ts";

function installed(name: string): boolean {
  try {
    return new Deno.Command(name, { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

const RG = installed("rg");
const FD = installed("fdfind") ? "fdfind" : installed("fd") ? "fd" : null;

/** The grep_search pattern as a ripgrep regex: pieces literal, `*` as `.*`. */
function rgRegex(pattern: string): string {
  return pattern.split("*").map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
}

function rgLines(root: string, pattern: string, caseSensitive: boolean): string[] {
  const { stdout, code } = new Deno.Command("rg", {
    args: [caseSensitive ? "-s" : "-i", "-n", "--no-heading", "-e", rgRegex(pattern), "."],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  assert(code === 0 || code === 1, `rg exited with ${code}`);
  const out = new TextDecoder().decode(stdout);
  // "PATH: WARNING: stopped searching binary file after match ..." is not a matching line.
  return out.split("\n").filter((l) => l !== "" && !l.includes(": WARNING: ")).map((line) => {
    const [path, number] = line.replace(/^\.\//, "").split(":", 2);
    return `${path}:${number}`;
  }).sort();
}

Deno.test({
  name: "grepTree() finds the same lines in the same files as ripgrep (rg -i -n / -s -n)",
  ignore: !RG,
  async fn() {
    await using ctx = await makeToolContext();
    await buildTree(ctx.workspace);
    const cases: [string, boolean][] = [
      ["needle", false],
      ["needle", true],
      ["NEEDLE", true],
      ["return", false],
      ["foo*bar", false],
      ["FooBar", true],
      ["deprecated*since", false],
      ["a.b", false],
      ["(x)", false],
      ["_id", false],
      ["déjà", false],
      ["日本*needle", false],
      ["x", false],
      ["zzz_absent", false],
    ];
    for (const [pattern, caseSensitive] of cases) {
      const ours = grepTree(ctx.workspace, "", {
        pattern,
        caseSensitive,
        maxResults: 100_000,
        includeHidden: false,
        respectGitignore: true,
      });
      const lines = ours.matches.map((m) => `${m.path}:${m.line}`).sort();
      assertEquals(lines, rgLines(ctx.workspace, pattern, caseSensitive), `pattern ${pattern}`);
    }
    // The fixture exercises what it claims to.
    const needles = rgLines(ctx.workspace, "needle", false);
    assert(needles.includes("keep.log:1") && needles.includes("src/nested/important.tmp:1"));
    assert(needles.includes("big/chunked.txt:1") && needles.includes("big/chunked.txt:40004"));
    assert(!needles.some((l) => /^(build|bin|src\/gen|\.hidden)\/|drop\.log|x\.tmp/.test(l)));
  },
});

Deno.test({
  name: "glob lists the same files as fd --glob",
  ignore: FD === null,
  async fn() {
    await using ctx = await makeToolContext();
    await buildTree(ctx.workspace);
    for (const [ours, theirs] of [["**/*.ts", "*.ts"], ["*.tmp", "*.tmp"], ["*", "*"]]) {
      const result = await runTool(glob, { pattern: ours }, ctx);
      const listed = result.output.split("\n").slice(1).filter((l) => l !== "").sort();
      const { stdout } = new Deno.Command(FD!, {
        args: ["--type", "f", "--glob", theirs!],
        cwd: ctx.workspace,
        stdout: "piped",
      }).outputSync();
      const expected = new TextDecoder().decode(stdout).split("\n").filter((l) => l !== "")
        .map((l) => l.replace(/^\.\//, "")).sort();
      assert(expected.length > 0);
      assertEquals(listed, expected, `pattern ${ours}`);
    }
  },
});
