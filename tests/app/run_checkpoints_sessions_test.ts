// /undo never takes back someone else's work: with two sessions in one folder (or the user
// editing while the model works) a turn's record holds only what its own calls changed, a file
// someone changed since is asked about, and a second live session is named at its first turn.
// /undo never deletes what the turn did not create: files git ignores stay when the model
// rewrote .gitignore, and a removal is said before it happens.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { answer, callTools } from "../../src/providers/scripted.ts";
import { openUndoHost, writeCall } from "../helpers/undo_host.ts";
import { undoLastTurn } from "../../src/app/restore_files.ts";

const grants = ["--allow-read=.", "--allow-write=."];
const posix = Deno.build.os !== "windows";

Deno.test("two sessions in one folder: each /undo puts back only its own session's writes", async () => {
  await using host = await openUndoHost(grants, { files: { "a.txt": "a0", "b.txt": "b0" } });
  const other = host.session([callTools([writeCall("b.txt", "b1")]), answer("wrote b")]);
  const mine = host.session([
    callTools([writeCall("a.txt", "a1")]),
    // While this session's model thinks, the other session writes b.txt.
    async () => {
      await other.send("write b");
      return callTools([writeCall("c.txt", "c1")]);
    },
    answer("wrote a and c"),
  ]);
  await mine.send("write a and c");
  assertEquals(mine.ended().map((record) => record.files), [["a.txt", "c.txt"]]);
  assertEquals(other.ended().map((record) => record.files), [["b.txt"]]);
  const plan = await mine.conversation.planRestore("last");
  assert(!("error" in plan), JSON.stringify(plan));
  assertEquals(plan.paths, ["a.txt", "c.txt"]);
  const done = await mine.conversation.restore(plan, { overwrite: false }, () => {});
  assert(!("error" in done));
  assertEquals(
    [await host.read("a.txt"), await host.read("b.txt"), await host.read("c.txt")],
    ["a0", "b1", undefined],
  );
});

Deno.test("a file another session changed after the turn is asked about, never overwritten", async () => {
  await using host = await openUndoHost(grants, { files: { "a.txt": "a0" } });
  const mine = host.session([callTools([writeCall("a.txt", "mine")]), answer("ok")]);
  const other = host.session([callTools([writeCall("a.txt", "theirs")]), answer("ok")]);
  await mine.send("write a");
  await other.send("write a too");
  const plan = await mine.conversation.planRestore("last");
  assert(!("error" in plan));
  assertEquals(plan.conflicts, ["a.txt"]);
  const done = await mine.conversation.restore(plan, { overwrite: false }, () => {});
  assertEquals(done, { restored: [], kept: ["a.txt"] });
  assertEquals(await host.read("a.txt"), "theirs");
});

Deno.test("a second live session in the folder is named at its first turn", async () => {
  await using host = await openUndoHost(grants);
  const first = host.session([answer("hi")]);
  const second = host.session([answer("hi")]);
  const shown = await second.send("hello");
  const warnings = shown.of("warning").map((event) => event.message);
  assert(
    warnings.some((line) =>
      line.startsWith("Another harness session is working in this folder (session session-1")
    ),
    warnings.join("\n"),
  );
  const alone = await first.send("hello");
  assert(
    alone.of("warning").every((event) => !event.message.includes("Another harness session")),
    "the first session started alone",
  );
});

Deno.test({
  name: "a turn that ran a command says so in its record and before /undo",
  ignore: !posix,
  async fn() {
    await using host = await openUndoHost([...grants, "--allow-run"]);
    const session = host.session([
      callTools([{ name: "run_command", args: { command: "echo made > made.txt" } }]),
      answer("done"),
    ]);
    await session.send("make it");
    const [record] = session.ended();
    assertEquals(record?.files, ["made.txt"]);
    assertEquals((record as { commands?: string[] }).commands, [
      "run_command: echo made > made.txt",
    ]);
    const plan = await session.conversation.planRestore("last");
    assert(!("error" in plan));
    const notes = (plan as { notes?: string[] }).notes ?? [];
    assert(notes.some((note) => note.startsWith('A command ran in "make it"')), notes.join("\n"));
  },
});

Deno.test("the model rewrites .gitignore; /undo restores it and keeps the ignored files", async () => {
  await using host = await openUndoHost(grants, {
    files: { ".gitignore": "/.env\ndata/\n", ".env": "TOKEN=1\n", "data/rows.csv": "1,2\n" },
  });
  const session = host.session([
    callTools([writeCall(".gitignore", "node_modules/\n")]),
    answer("simplified"),
  ]);
  await session.send("simplify the ignore file");
  assertEquals(session.ended().map((record) => record.files), [[".gitignore"]]);
  const plan = await session.conversation.planRestore("last");
  assert(!("error" in plan));
  await session.conversation.restore(plan, { overwrite: false }, () => {});
  assertEquals(await host.read(".gitignore"), "/.env\ndata/\n");
  assertEquals(await host.read(".env"), "TOKEN=1\n");
  assertEquals(await host.read("data/rows.csv"), "1,2\n");
});

Deno.test({
  name: "a command rewrites .gitignore; /undo restores it and keeps the ignored files",
  ignore: !posix,
  async fn() {
    await using host = await openUndoHost([...grants, "--allow-run"], {
      files: { ".gitignore": "/.env\ndata/\n", ".env": "TOKEN=1\n", "data/rows.csv": "1,2\n" },
    });
    const session = host.session([
      callTools([{
        name: "run_command",
        args: { command: "printf 'node_modules/\\n' > .gitignore" },
      }]),
      answer("simplified"),
    ]);
    // A first turn reads the folder, as any session that ran a command before has.
    await session.send("simplify the ignore file");
    assertEquals(session.ended().map((record) => record.files), [[".gitignore"]]);
    const plan = await session.conversation.planRestore("last");
    assert(!("error" in plan));
    await session.conversation.restore(plan, { overwrite: false }, () => {});
    assertEquals(await host.read(".gitignore"), "/.env\ndata/\n");
    assertEquals(await host.read(".env"), "TOKEN=1\n");
    assertEquals(await host.read("data/rows.csv"), "1,2\n");
  },
});

Deno.test("/undo removes only the files the turn created, and says so before it does", async () => {
  await using host = await openUndoHost(grants, { files: { "a.txt": "a0" } });
  const session = host.session([
    callTools([writeCall("a.txt", "a1"), writeCall("gen/new.txt", "new")]),
    answer("ok"),
  ]);
  await session.send("write");
  const plan = await session.conversation.planRestore("last");
  assert(!("error" in plan));
  assertEquals((plan as { removals?: string[] }).removals, ["gen/new.txt"]);
  const said: { line: string; present: boolean }[] = [];
  const report = await undoLastTurn(session.conversation, {
    ask: () => Promise.resolve("keep"),
    display: () => {},
    say: (line) =>
      said.push({ line, present: Deno.statSync(`${host.workspace}/gen/new.txt`).isFile }),
  });
  assertEquals(said, [{ line: "Removing a file the turn created: gen/new.txt", present: true }]);
  assertEquals(report.lines, [
    'Undid the file changes of "write"',
    "Restored: a.txt",
    "Removed (the turn created them): gen/new.txt",
  ]);
  assertEquals([await host.read("a.txt"), await host.read("gen/new.txt")], ["a0", undefined]);
  // The folder the turn made went with its file.
  assertEquals(await Deno.stat(`${host.workspace}/gen`).then(() => true, () => false), false);
});

Deno.test({
  name: "a command run while another session works in the folder: its files are asked about",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using host = await openUndoHost([...grants, "--allow-run"], {
      files: { "b.txt": "b0" },
    });
    host.session([]); // the other session, live in the folder
    const mine = host.session([
      // What the command changes may be the other session's writes of the same moment.
      callTools([{ name: "run_command", args: { command: "echo a > a.txt; echo b1 > b.txt" } }]),
      answer("done"),
    ]);
    await mine.send("build");
    const plan = await mine.conversation.planRestore("last");
    assert(!("error" in plan));
    assertEquals(plan.conflicts, ["a.txt", "b.txt"]);
    const notes = (plan as { notes?: string[] }).notes ?? [];
    assert(notes.some((note) => note.includes("another session worked in the folder")));
    const done = await mine.conversation.restore(plan, { overwrite: false }, () => {});
    assert(!("error" in done));
    assertEquals(await host.read("b.txt"), "b1\n", "kept unless the user says overwrite");
  },
});
