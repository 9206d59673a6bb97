// A session open in one process is never written by another: resuming it elsewhere continues
// in a copy with a new id, its running calls are not marked interrupted, and it cannot be
// deleted until it ends. Two stores on one database stand for two processes (flock locks
// conflict between separate opens of the lock file, in one process as in two).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { toolCallMessage } from "../../src/messages.ts";
import { openTestStore, START_INFO, tempDir, unwrap } from "../helpers/session_store.ts";

Deno.test("loadSession() of a session open elsewhere forks it; after it ends, resume continues it", async () => {
  await using dir = await tempDir();
  using first = openTestStore(dir.path);
  using second = openTestStore(dir.path);
  const writer = unwrap(first.startSession(START_INFO));
  const id = writer.id!;
  writer.record({ type: "message", message: { kind: "user", content: "list the files" } });
  const call = { id: "call_1", name: "ls", arguments: "{}" };
  writer.record({ type: "message", message: toolCallMessage(call) });
  writer.record({ type: "tool_started", callId: "call_1", name: "ls", args: {} });

  // The first process is still running ls: the second continues in a copy.
  const forked = unwrap(second.loadSession(id));
  assertEquals(forked.forkedFrom, id);
  assert(forked.info.id !== id);
  assertEquals(forked.writer.id, forked.info.id);
  assertEquals(forked.messages.map((m) => m.kind), ["user", "tool_call", "tool_result"]);
  forked.writer.record({ type: "message", message: { kind: "user", content: "in the copy" } });
  forked.writer.end();

  // The original got nothing from the second process: no interrupted result, no message.
  writer.record({ type: "message", message: { kind: "assistant", content: "done", data: {} } });
  const exported: string[] = [];
  unwrap(second.exportSession(id, (line) => exported.push(line)));
  assert(!exported.some((line) => line.includes("interrupted")), exported.join("\n"));
  assert(!exported.some((line) => line.includes("in the copy")), exported.join("\n"));

  const refused = await second.deleteSession(id, { confirm: () => true });
  assert(!refused.ok && refused.error.kind === "usage");
  assert(!refused.ok && refused.error.message.includes("open in another harness process"));

  writer.end();
  const resumed = unwrap(second.loadSession(id));
  assertEquals(resumed.forkedFrom, undefined);
  assertEquals(resumed.writer.id, id);
  resumed.writer.end();
  assertEquals(unwrap(await second.deleteSession(id, { confirm: () => true })), true);
});

Deno.test("loadSession() of a session this store already has open continues it, not a copy", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const writer = unwrap(store.startSession(START_INFO));
  writer.record({ type: "message", message: { kind: "user", content: "hi" } });
  const again = unwrap(store.loadSession(writer.id!));
  assertEquals(again.forkedFrom, undefined);
  writer.end();
  // The lock stays while the second writer is open.
  using other = openTestStore(dir.path);
  assertEquals(unwrap(other.loadSession(writer.id!)).forkedFrom, writer.id);
  again.writer.end();
});
