// Checkpoints under faults and at scale, through real conversations: a failed snapshot (a full
// disk) spoils only its own turn; a one-file turn never reads the rest of the tree; a slow
// first reading says so; what dead processes left is removed at the next start and a closing
// one removes its own. And what the session may not see stays out: a --deny-read file never
// enters the shadow repository, and a restore refuses paths that leave the workspace,
// whatever the session log says.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { answer, callTools } from "../../src/providers/scripted.ts";
import { gitWrapper, openUndoHost, writeCall } from "../helpers/undo_host.ts";
import { workspaceDataDir } from "../../src/config/folders.ts";
import type { TurnCheckpoint } from "../../src/checkpoints/turn_checkpoints.ts";

const grants = ["--allow-read=.", "--allow-write=."];
const posix = Deno.build.os !== "windows";
const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

async function tempDir(): Promise<string & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_undo_faults_" }));
  return Object.assign(path, {
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  }) as string & AsyncDisposable;
}

Deno.test({
  name: "a failed snapshot (full disk) spoils only its own turn; earlier and later ones undo",
  ignore: !posix,
  async fn() {
    await using dir = await tempDir();
    const git = gitWrapper(`${dir}`);
    await using host = await openUndoHost(grants, { files: { "a.txt": "a0" }, path: git.path });
    const session = host.session([
      callTools([writeCall("a.txt", "a1")]),
      answer("one"),
      callTools([writeCall("b.txt", "b1")]),
      answer("two"),
      callTools([writeCall("c.txt", "c1")]),
      answer("three"),
    ]);
    await session.send("first");
    Deno.writeTextFileSync(git.fail, "");
    const failed = await session.send("second");
    Deno.removeSync(git.fail);
    assert(
      failed.of("warning").some((e) => e.message.startsWith("The checkpoint of this turn failed")),
      failed.of("warning").map((e) => e.message).join("\n"),
    );
    await session.send("third");
    const undo = async () => {
      const plan = await session.conversation.planRestore("last");
      assert(!("error" in plan), JSON.stringify(plan));
      await session.conversation.restore(plan, { overwrite: false }, () => {});
      return plan;
    };
    await undo();
    assertEquals(await host.read("c.txt"), undefined, "the third turn undone");
    const second = await undo();
    assertEquals(second.turns.map((turn) => turn.prompt), ["first"]);
    assert(
      ((second as { notes?: string[] }).notes ?? []).some((note) =>
        note.startsWith('The checkpoint of "second" failed')
      ),
    );
    assertEquals([await host.read("a.txt"), await host.read("b.txt")], ["a0", "b1"]);
  },
});

Deno.test({
  name: "a repository that cannot be opened (full disk) fails that turn; the next one opens it",
  ignore: !posix,
  async fn() {
    await using dir = await tempDir();
    const git = gitWrapper(`${dir}`);
    await using host = await openUndoHost(grants, { files: { "a.txt": "a0" }, path: git.path });
    const session = host.session([
      callTools([writeCall("a.txt", "a1")]),
      answer("one"),
      callTools([writeCall("a.txt", "a2")]),
      answer("two"),
    ]);
    Deno.writeTextFileSync(git.fail, "");
    const first = await session.send("first");
    Deno.removeSync(git.fail);
    assert(
      first.of("warning").some((e) => e.message.startsWith("The checkpoint of this turn failed")),
    );
    await session.send("second");
    assertEquals(session.ended().map((record) => [record.files, record.failed === undefined]), [
      [[], false],
      [["a.txt"], true],
    ]);
    const plan = await session.conversation.planRestore("last");
    assert(!("error" in plan), JSON.stringify(plan));
    await session.conversation.restore(plan, { overwrite: false }, () => {});
    assertEquals(await host.read("a.txt"), "a1");
  },
});

Deno.test({
  name: "a one-file turn reads that file, not the tree",
  ignore: !posix,
  async fn() {
    await using dir = await tempDir();
    const git = gitWrapper(`${dir}`);
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`src/m${i}.ts`] = `export const x = ${i};\n`;
    await using host = await openUndoHost(grants, { files, path: git.path });
    const session = host.session([callTools([writeCall("src/m7.ts", "changed")]), answer("ok")]);
    await session.send("change one");
    assertEquals(session.ended().map((record) => record.files), [["src/m7.ts"]]);
    const runs = Deno.readTextFileSync(git.log).trim().split("\n");
    assert(runs.every((run) => !run.includes("--others")), runs.join("\n"));
    const plan = await session.conversation.planRestore("last");
    assert(!("error" in plan));
    await session.conversation.restore(plan, { overwrite: false }, () => {});
    assertEquals(await host.read("src/m7.ts"), "export const x = 7;\n");
  },
});

Deno.test({
  name: "a slow first reading of the folder before a command says so",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using dir = await tempDir();
    const git = gitWrapper(`${dir}`, { slowScan: true });
    await using host = await openUndoHost([...grants, "--allow-run"], { path: git.path });
    const session = host.session([
      callTools([{ name: "run_command", args: { command: "echo x > x.txt" } }]),
      answer("ok"),
    ]);
    const shown = await session.send("run it");
    const lines = shown.of("warning").map((e) => e.message);
    assert(
      lines.some((line) => line.startsWith("Checkpoints: reading the folder's files")),
      lines.join("\n"),
    );
    assertEquals(session.ended().map((record) => record.files), [["x.txt"]]);
  },
});

Deno.test("what dead processes left in the shadow repository goes at the next start", async () => {
  await using host = await openUndoHost(grants);
  const gitDir = workspaceDataDir(join(host.data, "checkpoints"), host.workspace);
  const dead = "deadbeef-0001";
  const left = [
    `index-${dead}`,
    `index-${dead}.lock`,
    `index-${dead}.read-3`,
    `watch-${dead}/flush-1`,
    `refs/harness/${dead}.lock`,
    `live/${dead}.lock`,
    "index-oldharness",
  ];
  for (const path of left) {
    Deno.mkdirSync(join(gitDir, path, ".."), { recursive: true });
    Deno.writeTextFileSync(join(gitDir, path), "x".repeat(1000));
  }
  // An older harness took no live lock: its index counts as stale once it is an hour old.
  const old = new Date(Date.now() - 2 * 3600_000);
  Deno.utimeSync(join(gitDir, "index-oldharness"), old, old);
  const session = host.session([callTools([writeCall("a.txt", "1")]), answer("ok")]);
  for (const path of left) assertEquals(await exists(join(gitDir, path)), false, path);
  await session.send("write");
  assertEquals(session.ended().length, 1);
});

Deno.test("a session that can change no file takes no live claim in the shadow repository", async () => {
  // Read only: nothing to checkpoint, nothing for another session to be told.
  {
    await using host = await openUndoHost(["--allow-read=."], { files: { "a.txt": "a" } });
    const session = host.session([answer("ok")]);
    await session.send("read");
    assertEquals(await exists(join(host.data, "checkpoints")), false, "not even the folder");
  }
  // With a write grant the claim is there while the session is.
  await using host = await openUndoHost(grants, { files: { "a.txt": "a" } });
  const session = host.session([answer("ok")]);
  await session.send("read");
  assertEquals([...Deno.readDirSync(join(host.gitDir(), "live"))].length, 1);
});

Deno.test({
  name: "a closing session removes its own index files; the shared index stays",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using host = await openUndoHost([...grants, "--allow-run"], { files: { "a.txt": "a" } });
    const session = host.session([
      callTools([{ name: "run_command", args: { command: "echo x > x.txt" } }]),
      answer("ok"),
    ]);
    await session.send("run");
    const gitDir = host.gitDir();
    const names = () => [...Deno.readDirSync(gitDir)].map((entry) => entry.name);
    assert(names().some((name) => name.startsWith("index-")), names().join(" "));
    await host.closeSessions();
    assertEquals(
      names().filter((name) => name.startsWith("index-") || name.startsWith("watch-")),
      [],
    );
    const live = names().includes("live") ? [...Deno.readDirSync(join(gitDir, "live"))] : [];
    assertEquals(live, [], "its live lock is gone");
    assert(names().includes("index"), "the next process starts from the shared index");
  },
});

/** Every blob's text in a shadow repository. */
function blobs(gitDir: string): string {
  const out = new Deno.Command("git", {
    args: [`--git-dir=${gitDir}`, "cat-file", "--batch-all-objects", "--batch"],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  return new TextDecoder().decode(out.stdout);
}

Deno.test({
  name: "attack: a --deny-read file never enters the shadow repository",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using host = await openUndoHost([...grants, "--deny-read=secret.txt", "--allow-run"], {
      files: { "secret.txt": "TOP-SECRET-42\n", "a.txt": "a0" },
    });
    const session = host.session([
      callTools([writeCall("a.txt", "a1")]),
      answer("one"),
      callTools([{ name: "run_command", args: { command: "echo b > b.txt" } }]),
      answer("two"),
    ]);
    await session.send("write a");
    await session.send("make b");
    assertEquals(session.ended().map((record) => record.files), [["a.txt"], ["b.txt"]]);
    assert(!blobs(host.gitDir()).includes("TOP-SECRET-42"), "the secret is in the repository");
  },
});

Deno.test({
  name: "attack: a restore refuses paths that leave the workspace, whatever the log says",
  ignore: !posix,
  async fn() {
    await using outside = await tempDir();
    const victims = ["v1.txt", "v2.txt", "v3.txt"].map((name) => join(`${outside}`, name));
    for (const victim of victims) Deno.writeTextFileSync(victim, "keep me");
    await using host = await openUndoHost(grants, { files: { "a.txt": "a0" } });
    Deno.symlinkSync(`${outside}`, join(host.workspace, "link"));
    const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    const pwned = "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
    const records: TurnCheckpoint[] = [
      // As an older harness logged it: whole-workspace snapshots that lack the paths.
      {
        messageCount: 1,
        prompt: "old",
        before: emptyTree,
        after: emptyTree,
        files: ["../" + victims[0]!.split("/").slice(-2).join("/"), "link/v2.txt"],
      },
      // As this one logs it, with states saying the files were created.
      {
        turn: "t2",
        messageCount: 3,
        prompt: "new",
        files: [`../${outside.split("/").at(-1)}/v3.txt`, victims[2]!, "link/v3.txt", ".git/x"],
        states: {
          [`../${outside.split("/").at(-1)}/v3.txt`]: ["absent", pwned],
          [victims[2]!]: ["absent", pwned],
          "link/v3.txt": [pwned, "absent"],
          ".git/x": [pwned, "absent"],
        },
      } as TurnCheckpoint,
    ];
    const session = host.session([], { records });
    for (const target of [3, 1]) {
      const plan = await session.conversation.planRestore(target);
      if ("error" in plan) continue;
      await session.conversation.restore(plan, { overwrite: true }, () => {});
    }
    for (const victim of victims) assertEquals(Deno.readTextFileSync(victim), "keep me", victim);
    assertEquals(await exists(join(host.workspace, ".git")), false);
  },
});
