import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { walkTree } from "../../src/tools/search/walk_tree.ts";
import { makeToolContext } from "../helpers/tool_context.ts";
import { hasCommand } from "../helpers/system_commands.ts";

/** Files the walk reports under `start`, hidden names included, .gitignore honoured. */
function walkFiles(workspace: string, start = ""): string[] {
  const files: string[] = [];
  walkTree(workspace, start, {
    includeHidden: true,
    respectGitignore: true,
    visit(entry) {
      if (entry.kind === "file" && entry.name !== ".gitignore") files.push(entry.path);
    },
  });
  return files;
}

const TRICKY = {
  ".gitignore": "*.log\n!keep.log\nbuild/\n/top.txt\ndocs/**/*.tmp\n**/cache\n",
  ".git/info/exclude": "excluded.txt\n",
  "a.log": "",
  "keep.log": "",
  "top.txt": "",
  "excluded.txt": "",
  "sub/top.txt": "",
  "sub/build": "a file named build is not a folder",
  "build/out.js": "",
  "docs/a.tmp": "",
  "docs/x/y/b.tmp": "",
  "docs/x/y/b.md": "",
  "deep/er/cache/c.js": "",
  "pkg/.gitignore": "/gen/\n!*.log\nlocal.txt\n",
  "pkg/gen/g.ts": "",
  "pkg/x/gen/g.ts": "",
  "pkg/local.txt": "",
  "pkg/debug.log": "",
  "pkg/build/re.js": "",
  "other/.gitignore": "!build/\n",
  "other/build/kept.js": "",
};

Deno.test("walkTree() honours negation, dir-only, anchored, ** and nested .gitignore files", async () => {
  await using ctx = await makeToolContext(TRICKY);
  assertEquals(walkFiles(ctx.workspace), [
    "docs/x/y/b.md",
    "keep.log",
    "other/build/kept.js", // a deeper `!build/` re-includes what the root excluded
    "pkg/debug.log",
    "pkg/x/gen/g.ts",
    "sub/build", // `build/` matches folders only
    "sub/top.txt", // `/top.txt` is anchored to the root
  ]);
});

Deno.test({
  name: "walkTree() lists the same files as `git ls-files --others --exclude-standard`",
  ignore: !hasCommand("git"),
}, async () => {
  await using ctx = await makeToolContext(TRICKY);
  const init = new Deno.Command("git", { args: ["init", "-q"], cwd: ctx.workspace }).outputSync();
  assert(init.success, "git init failed");
  await ctx.write({ ".git/info/exclude": "excluded.txt\n" });
  const git = new Deno.Command("git", {
    args: ["-c", "core.ignorecase=false", "ls-files", "--others", "--exclude-standard"],
    cwd: ctx.workspace,
    stdout: "piped",
  }).outputSync();
  const listed = new TextDecoder().decode(git.stdout).trim().split("\n")
    .filter((p) => !p.endsWith(".gitignore")).sort();
  assertEquals(walkFiles(ctx.workspace).sort(), listed);
});

Deno.test("walkTree() searches a named folder below an ignored one, without the ancestors' rules", async () => {
  await using ctx = await makeToolContext({
    ".gitignore": "vendor/\n*.gen\n",
    "vendor/lib/a.js": "",
    "vendor/lib/b.gen": "",
    "src/c.gen": "",
    "src/d.js": "",
  });
  assertEquals(walkFiles(ctx.workspace, "vendor/lib"), ["vendor/lib/a.js", "vendor/lib/b.gen"]);
  assertEquals(walkFiles(ctx.workspace, "src"), ["src/d.js"]);
});

Deno.test({
  name: "walkTree() reports FIFOs as `other` so readers can skip them",
  ignore: !hasCommand("mkfifo"),
}, async () => {
  await using ctx = await makeToolContext({ "a.txt": "" });
  const made = new Deno.Command("mkfifo", { args: [`${ctx.workspace}/pipe`] }).outputSync();
  assert(made.success, "mkfifo failed");
  const kinds: string[] = [];
  walkTree(ctx.workspace, "", {
    includeHidden: false,
    respectGitignore: true,
    visit: (e) => void kinds.push(`${e.path}:${e.kind}`),
  });
  assertEquals(kinds, ["a.txt:file", "pipe:other"]);
});

Deno.test("walkTree() matches .gitignore case as git does by default on this platform", async () => {
  await using ctx = await makeToolContext({
    ".gitignore": "*.log\nBuild/\n",
    "a.log": "",
    "B.LOG": "",
    "build/x.js": "",
  });
  // git's core.ignorecase defaults to false on Linux and true on macOS and Windows.
  const caseSensitive = Deno.build.os !== "darwin" && Deno.build.os !== "windows";
  assertEquals(walkFiles(ctx.workspace), caseSensitive ? ["B.LOG", "build/x.js"] : []);
});
