// Checkpoints through a real conversation: the built-in tools change files in their sandbox
// (write_file, run_command), the conversation records each turn's changes, /undo puts the
// last turn's files back and tells the model, /rewind restores files and conversation, and
// the user's own edits are shown as conflicts and kept unless they say overwrite.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { Conversation } from "../../src/agent/conversation.ts";
import { answer, callTools, ScriptedProvider } from "../../src/providers/scripted.ts";
import {
  checkpointedStages,
  checkpointScope,
  openCheckpoints,
} from "../../src/app/run_checkpoints.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import type { LoopEvent } from "../../src/agent/loop_events.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";

const signal = () => new AbortController().signal;

async function setup(steps: ConstructorParameters<typeof ScriptedProvider>[0], grants: string[]) {
  const h = await openLoopHost({ builtins: true, grants });
  const parsed = parseGrantFlags(grants, { cwd: h.workspace });
  assert(parsed.ok);
  const data = await Deno.makeTempDir();
  const checkpoints = openCheckpoints(
    { checkpoints: true, checkpointMaxFileSize: 1024 * 1024 },
    { cwd: h.workspace, grants: parsed.value.grants, dataDir: data },
  );
  assert(checkpoints);
  const logged: LoopEvent[] = [];
  const provider = new ScriptedProvider(steps);
  const conversation = new Conversation({
    provider,
    tools: toolScope(h.host),
    approver: new RecordingApprover(),
    recorder: { id: "s", record: (event) => void logged.push(event), end: () => {} },
    limits: { maxIterations: 6, maxToolCalls: 5 },
    window: {},
    stages: checkpointedStages(checkpoints),
  }, { messages: [{ kind: "system", content: "sys" }] });
  const file = (path: string) => join(h.workspace, path);
  return {
    h,
    conversation,
    provider,
    logged,
    read: (path: string) => Deno.readTextFile(file(path)).catch(() => undefined),
    write: (path: string, text: string) => Deno.writeTextFile(file(path), text),
    async [Symbol.asyncDispose]() {
      await checkpoints.close();
      await h[Symbol.asyncDispose]();
      await Deno.remove(data, { recursive: true });
    },
  };
}

const write = (path: string, content: string) =>
  callTools([{ name: "write_file", args: { path, content } }]);

Deno.test("/undo puts back the files the last turn changed and the model is told", async () => {
  await using t = await setup([
    write("a.txt", "turn one"),
    answer("wrote"),
    write("a.txt", "turn two"),
    answer("rewrote"),
    answer("noted"),
  ], ["--allow-read=.", "--allow-write=."]);
  await t.write("a.txt", "original");
  const display = new EventLog();
  await t.conversation.send("first", display.sink, signal());
  await t.conversation.send("second", display.sink, signal());
  const ended = display.of("checkpoint").filter((e) => !e.checkpoint.open);
  assertEquals(ended.map((e) => e.checkpoint.files), [["a.txt"], ["a.txt"]]);
  const plan = await t.conversation.planRestore("last");
  assert(!("error" in plan));
  assertEquals([plan.paths, plan.conflicts], [["a.txt"], []]);
  const done = await t.conversation.restore(plan, { overwrite: false }, display.sink);
  assertEquals(done, { restored: ["a.txt"], kept: [] });
  assertEquals(await t.read("a.txt"), "turn one");
  await t.conversation.send("and now?", display.sink, signal());
  const said = t.provider.requests.at(-1)!.at(-1)!.content;
  assert(
    said.startsWith('and now?\n\n[The user undid the file changes of the turn "second"'),
    said,
  );
  // Each turn's record is logged before its call, after it, and when the turn ends.
  assertEquals(
    t.logged.flatMap((e) =>
      e.type === "checkpoint"
        ? [e.checkpoint.open ? "open" : "ended"]
        : e.type === "files_restored"
        ? [e.type]
        : []
    ),
    ["open", "open", "ended", "open", "open", "ended", "files_restored"],
  );
});

Deno.test({
  name: "/undo restores what a command changed, and keeps a file the user edited since",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using t = await setup([
      callTools([{
        name: "run_command",
        args: { command: "echo new > b.txt; rm a.txt; echo x > c.txt" },
      }]),
      answer("done"),
    ], ["--allow-read=.", "--allow-write=.", "--allow-run"]);
    await t.write("a.txt", "keep me");
    await t.conversation.send("clean up", new EventLog().sink, signal());
    assertEquals(await t.read("a.txt"), undefined);
    await t.write("c.txt", "my own edit");
    const plan = await t.conversation.planRestore("last");
    assert(!("error" in plan));
    assertEquals(plan.paths, ["a.txt", "b.txt", "c.txt"]);
    assertEquals(plan.conflicts, ["c.txt"]);
    const done = await t.conversation.restore(plan, { overwrite: false }, new EventLog().sink);
    assertEquals(done, { restored: ["a.txt", "b.txt"], kept: ["c.txt"], removed: ["b.txt"] });
    assertEquals(await t.read("a.txt"), "keep me");
    assertEquals(await t.read("b.txt"), undefined);
    assertEquals(await t.read("c.txt"), "my own edit");
  },
});

Deno.test("/rewind restores files and takes the conversation back before the turn", async () => {
  await using t = await setup([
    answer("hello"),
    write("a.txt", "one"),
    answer("wrote"),
    write("b.txt", "two"),
    answer("wrote more"),
    answer("fresh start"),
  ], ["--allow-read=.", "--allow-write=."]);
  const display = new EventLog();
  await t.conversation.send("hi", display.sink, signal());
  await t.conversation.send("write a", display.sink, signal());
  await t.conversation.send("write b", display.sink, signal());
  const turns = t.conversation.turns();
  assertEquals(turns.map((turn) => [turn.prompt, turn.files]), [
    ["hi", ["a.txt", "b.txt"]],
    ["write a", ["a.txt", "b.txt"]],
    ["write b", ["b.txt"]],
  ]);
  const to = turns[1]!.messageCount;
  const plan = await t.conversation.planRestore(to);
  assert(!("error" in plan));
  await t.conversation.restore(plan, { overwrite: false, rewindTo: to }, display.sink);
  assertEquals([await t.read("a.txt"), await t.read("b.txt")], [undefined, undefined]);
  assertEquals(t.conversation.messages.map((m) => m.content), ["sys", "hi", "hello"]);
  await t.conversation.send("something else", display.sink, signal());
  assertEquals(t.provider.requests.at(-1)!.map((m) => m.content), [
    "sys",
    "hi",
    "hello",
    "something else",
  ]);
  assertEquals(t.logged.filter((e) => e.type === "rewound"), [{
    type: "rewound",
    messageCount: to,
  }]);
});

Deno.test("read-only turns take no snapshot at all", async () => {
  await using t = await setup([
    callTools([{ name: "read_file", args: { path: "a.txt" } }]),
    answer("read"),
  ], ["--allow-read=.", "--allow-write=."]);
  await t.write("a.txt", "x");
  const display = new EventLog();
  await t.conversation.send("read a", display.sink, signal());
  assertEquals(display.of("checkpoint"), []);
  assert("error" in await t.conversation.planRestore("last"));
});

Deno.test("checkpointScope(): the write grant inside the workspace; commands that write anywhere", () => {
  const grants = (flags: string[]) => {
    const parsed = parseGrantFlags(flags, { cwd: "/w" });
    assert(parsed.ok);
    return parsed.value.grants;
  };
  assertEquals(checkpointScope(grants(["--allow-write=."]), "/w", false), undefined);
  assertEquals(checkpointScope(grants(["--allow-write=src,docs"]), "/w", false), ["src", "docs"]);
  assertEquals(checkpointScope(grants(["--allow-read"]), "/w", false), "none");
  assertEquals(checkpointScope(grants(["--allow-read"]), "/w", true), undefined);
  assertEquals(checkpointScope(grants(["--allow-write=/tmp/x"]), "/w", false), "none");
});
