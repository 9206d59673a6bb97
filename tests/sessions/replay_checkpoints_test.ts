// The session log keeps checkpoints: a resumed session can still undo what earlier turns
// changed (undone ones stay undone), and a rewind drops what came after it on replay.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { openSessionStore } from "../../src/sessions/open_session_store.ts";
import type { TurnCheckpoint } from "../../src/checkpoints/turn_checkpoints.ts";

const info = { model: "m", baseUrl: "u", cwd: "/w", grants: "", provider: "openai" };

Deno.test("checkpoints, undos and a rewind come back on resume as they were", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = openSessionStore({ path: join(dir, "h.db") });
    assert(store.ok);
    const writer = store.value.startSession(info);
    assert(writer.ok);
    const w = writer.value;
    const turn = (messageCount: number, before: string): TurnCheckpoint => ({
      messageCount,
      prompt: `p${messageCount}`,
      before,
      after: `${before}-after`,
      files: ["a.txt"],
    });
    const say = (content: string) =>
      w.record({ type: "message", message: { kind: "user", content } });
    const answer = () =>
      w.record({ type: "message", message: { kind: "assistant", content: "ok", data: {} } });
    w.record({ type: "message", message: { kind: "system", content: "sys" } });
    say("one");
    answer();
    w.record({ type: "checkpoint", checkpoint: turn(1, "s1") });
    say("two");
    answer();
    w.record({ type: "checkpoint", checkpoint: turn(3, "s3") });
    say("three");
    answer();
    w.record({ type: "checkpoint", checkpoint: turn(5, "s5") });
    w.record({
      type: "files_restored",
      turns: ["s5"],
      saved: "now",
      restored: ["a.txt"],
      kept: [],
    });
    w.record({ type: "rewound", messageCount: 3 });
    w.end();
    const loaded = store.value.loadSession(w.id!);
    assert(loaded.ok);
    assertEquals(loaded.value.messages.map((m) => m.content), ["sys", "one", "ok"]);
    assertEquals(loaded.value.checkpoints.map((c) => [c.before, c.undone ?? false]), [[
      "s1",
      false,
    ]]);
    store.value.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a turn's records logged as it goes come back as one: the last logged counts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = openSessionStore({ path: join(dir, "h.db") });
    assert(store.ok);
    const writer = store.value.startSession(info);
    assert(writer.ok);
    const w = writer.value;
    const a = "100644 1111111111111111111111111111111111111111";
    const b = "100644 2222222222222222222222222222222222222222";
    const record = (more: Partial<TurnCheckpoint>): TurnCheckpoint => ({
      turn: "t1",
      messageCount: 1,
      prompt: "p",
      files: ["a.txt"],
      states: { "a.txt": [a, "cut-short"] },
      open: true,
      ...more,
    });
    w.record({ type: "message", message: { kind: "system", content: "sys" } });
    w.record({ type: "message", message: { kind: "user", content: "p" } });
    w.record({ type: "checkpoint", checkpoint: record({}) });
    w.record({ type: "checkpoint", checkpoint: record({ states: { "a.txt": [a, b] } }) });
    // Killed here: the turn never ended; its last record says what it changed.
    const loaded = store.value.loadSession(w.id!);
    assert(loaded.ok);
    assertEquals(loaded.value.checkpoints.length, 1);
    assertEquals(loaded.value.checkpoints[0]!.states, { "a.txt": [a, b] });
    assertEquals(loaded.value.checkpoints[0]!.open, true);
    store.value.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
