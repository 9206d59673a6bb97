// Instruction files (AGENTS.md and its fallbacks): which folders are read, in which order, and
// what a hostile repository cannot make harness read (a link out of the repository, a FIFO, a
// file --deny-read covers).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { instructionFolders, loadInstructions } from "../../src/config/project_instructions.ts";
import { tempDir } from "../helpers/temp_dir.ts";

async function repo(root: string): Promise<string> {
  await Deno.mkdir(join(root, ".git"), { recursive: true });
  const work = join(root, "pkg", "app");
  await Deno.mkdir(work, { recursive: true });
  return work;
}

Deno.test("loadInstructions() reads the user's file, then the repository root down to the workspace", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "repo");
  const work = await repo(root);
  const user = join(dir.path, "config");
  await Deno.mkdir(user);
  await Deno.writeTextFile(join(user, "AGENTS.md"), "user rules");
  await Deno.writeTextFile(join(root, "AGENTS.md"), "root rules");
  await Deno.writeTextFile(join(root, "pkg", "CLAUDE.md"), "pkg rules (Claude)");
  await Deno.writeTextFile(join(work, "AGENTS.md"), "app rules");
  await Deno.writeTextFile(join(work, "CLAUDE.md"), "not read: AGENTS.md is here");
  // Above the repository root: never read.
  await Deno.writeTextFile(join(dir.path, "AGENTS.md"), "outside");
  const { files, skipped } = loadInstructions(work, { userDir: user, home: dir.path });
  assertEquals(files.map((f) => [f.label, f.scope, f.text]), [
    ["~/config/AGENTS.md", "user", "user rules"],
    ["../../AGENTS.md", "project", "root rules"],
    ["../CLAUDE.md", "project", "pkg rules (Claude)"],
    ["AGENTS.md", "project", "app rules"],
  ]);
  assertEquals(skipped, []);
});

Deno.test("loadInstructions() outside a repository reads the workspace's file only", async () => {
  await using dir = await tempDir();
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  await Deno.writeTextFile(join(dir.path, "AGENTS.md"), "parent");
  await Deno.writeTextFile(join(work, "GEMINI.md"), "gemini rules");
  assertEquals(instructionFolders(work), [work]);
  const { files } = loadInstructions(work);
  assertEquals(files.map((f) => f.text), ["gemini rules"]);
});

Deno.test("loadInstructions() takes the names and their order from the option, and skips empty files", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "AGENTS.md"), "  \n");
  await Deno.writeTextFile(join(dir.path, "CLAUDE.md"), "claude");
  await Deno.writeTextFile(join(dir.path, "RULES.md"), "rules");
  assertEquals(loadInstructions(dir.path).files.map((f) => f.text), ["claude"]);
  assertEquals(
    loadInstructions(dir.path, { names: ["RULES.md", "CLAUDE.md"] }).files.map((f) => f.text),
    ["rules"],
  );
  assertEquals(loadInstructions(dir.path, { names: [] }).files, []);
});

Deno.test("loadInstructions() cuts a long file at the byte limit with a marker", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "AGENTS.md"), "x".repeat(5000));
  const [file] = loadInstructions(dir.path, { maxBytes: 1000 }).files;
  assert(file?.truncated);
  assert(file.text.startsWith("x".repeat(1000) + "\n[... cut here"), file.text.slice(990));
});

Deno.test({
  name:
    "loadInstructions() attack: a repository's AGENTS.md linking to a secret outside it is not read",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using dir = await tempDir();
    const root = join(dir.path, "repo");
    const work = await repo(root);
    const secret = join(dir.path, "id_rsa");
    await Deno.writeTextFile(secret, "PRIVATE KEY");
    await Deno.symlink(secret, join(work, "AGENTS.md"));
    // A link to a folder outside, with the file reached through it.
    await Deno.mkdir(join(dir.path, "elsewhere"));
    await Deno.writeTextFile(join(dir.path, "elsewhere", "CLAUDE.md"), "PRIVATE TOO");
    await Deno.symlink(join(dir.path, "elsewhere", "CLAUDE.md"), join(root, "CLAUDE.md"));
    const { files, skipped } = loadInstructions(work);
    assertEquals(files, []);
    assertEquals(skipped.length, 2);
    assert(
      skipped.every((s) => s.reason.startsWith("a link out of the repository")),
      JSON.stringify(skipped),
    );
    // A link inside the repository is fine.
    await Deno.remove(join(work, "AGENTS.md"));
    await Deno.writeTextFile(join(root, "docs.md"), "shared rules");
    await Deno.symlink(join(root, "docs.md"), join(work, "AGENTS.md"));
    assertEquals(loadInstructions(work).files.map((f) => f.text), ["shared rules"]);
  },
});

Deno.test({
  name: "loadInstructions() attack: an AGENTS.md that is a FIFO is skipped, not waited on",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using dir = await tempDir();
    const made = await new Deno.Command("mkfifo", { args: [join(dir.path, "AGENTS.md")] })
      .output();
    assert(made.success);
    await Deno.writeTextFile(join(dir.path, "CLAUDE.md"), "not a fallback: AGENTS.md is present");
    const { files, skipped } = loadInstructions(dir.path);
    assertEquals(files, []);
    assertEquals(skipped.map((s) => s.reason), ["not a regular file: not read"]);
  },
});

Deno.test("loadInstructions() does not read a file the gate refuses, and says why", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "AGENTS.md"), "secret plan");
  const refused = (path: string) => path.startsWith(dir.path) ? "--deny-read covers it" : undefined;
  const { files, skipped } = loadInstructions(dir.path, { refused });
  assertEquals(files, []);
  assertEquals(skipped.map((s) => s.reason), ["--deny-read covers it: not read"]);
});
