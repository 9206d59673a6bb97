import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { makeToolResult, toolCallMessage, toolResultMessage } from "../../src/messages.ts";
import { openSessionStore } from "../../src/sessions/open_session_store.ts";
import { createNullSessionStore } from "../../src/sessions/null_session_store.ts";
import type { SessionStore } from "../../src/sessions/session_store_types.ts";
import {
  assertEveryCallAnswered,
  openTestStore,
  scriptedConversation,
  START_INFO,
  tempDir,
  unwrap,
} from "../helpers/session_store.ts";

Deno.test("loadSession() restores exactly the messages and tasks of a session with parallel calls and reasoning", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const writer = store.startSession(START_INFO);
  assert(writer.ok);
  const { events, messages } = scriptedConversation();
  for (const event of events) writer.value.record(event);
  writer.value.end();

  const loaded = store.loadSession(writer.value.id!);
  assert(loaded.ok);
  assertEquals(loaded.value.messages, messages);
  assertEquals(loaded.value.state, {
    tasks: [{ id: "task_1", content: "Split the loop", status: "pending" }],
    nextTaskId: 2,
  });
  assertEquals(loaded.value.interrupted, []);
  assertEquals(loaded.value.info.model, START_INFO.model);
  assertEquals(loaded.value.info.provider, "ollama");
  assertEveryCallAnswered(loaded.value.messages);
});

Deno.test("loadSession() continues the same session id when the writer it returns records", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const writer = store.startSession(START_INFO);
  assert(writer.ok);
  writer.value.record({ type: "message", message: { kind: "user", content: "one" } });
  writer.value.end();
  const loaded = store.loadSession(writer.value.id!);
  assert(loaded.ok);
  assertEquals(loaded.value.writer.id, writer.value.id);
  loaded.value.writer.record({ type: "message", message: { kind: "user", content: "two" } });
  const again = store.loadSession(writer.value.id!);
  assert(again.ok);
  assertEquals(again.value.messages.map((m) => m.content), ["one", "two"]);
  assertEquals(unwrap(store.listSessions()).length, 1);
});

/** A session whose model called `sleep 100` (call "c1"), its result not yet recorded. */
function sleepingCall(store: SessionStore) {
  const started = store.startSession(START_INFO);
  assert(started.ok);
  const writer = started.value;
  const call = { id: "c1", name: "run_command", arguments: '{"command":"sleep 100"}' };
  writer.record({ type: "message", message: { kind: "user", content: "wait" } });
  writer.record({ type: "message", message: { kind: "assistant", content: "", data: {} } });
  writer.record({ type: "message", message: toolCallMessage(call) });
  return { writer: started, call };
}

Deno.test("loadSession() answers a call cancelled by Ctrl-C with its cancelled result only", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const { writer, call } = sleepingCall(store);
  const cancelled = makeToolResult({ errorType: "cancelled", errorMessage: "Cancelled" });
  writer.value.record({ type: "message", message: toolResultMessage("c1", call.name, cancelled) });
  writer.value.record({ type: "done", stopReason: "interrupted", text: "" });
  const loaded = store.loadSession(writer.value.id!);
  assert(loaded.ok);
  assertEquals(loaded.value.interrupted, []);
  const last = loaded.value.messages.at(-1);
  assert(last?.kind === "tool_result" && last.data.result.error_type === "cancelled");
});

Deno.test("SessionLogWriter.end() answers a call still open before session_ended, once", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const { writer, call } = sleepingCall(store);
  writer.value.record({ type: "tool_started", callId: "c1", name: call.name, args: {} });
  writer.value.end();
  // The loop's own result for the call, arriving after the end, is not a second one.
  const cancelled = makeToolResult({ errorType: "cancelled", errorMessage: "Cancelled" });
  writer.value.record({ type: "message", message: toolResultMessage("c1", call.name, cancelled) });
  const db = new DatabaseSync(join(dir.path, "harness.db"), { readOnly: true });
  const rows = db.prepare("SELECT type, payload FROM events ORDER BY seq").all() as {
    type: string;
    payload: string;
  }[];
  db.close();
  const types = rows.map((row) => row.type);
  assertEquals(types.slice(-2), ["tool_call_finished", "session_ended"]);
  const result = JSON.parse(rows.at(-2)!.payload).result;
  assertEquals(result.error_type, "interrupted");
  assert(/may or may not have had effects/.test(result.error_message), result.error_message);
  const loaded = store.loadSession(writer.value.id!);
  assert(loaded.ok);
  assertEquals(loaded.value.interrupted, []);
});

Deno.test("loadSession() keeps only the system prompt after recordCleared()", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const writer = store.startSession(START_INFO);
  assert(writer.ok);
  for (const event of scriptedConversation().events) writer.value.record(event);
  writer.value.recordCleared();
  writer.value.record({ type: "message", message: { kind: "user", content: "fresh" } });
  const loaded = store.loadSession(writer.value.id!);
  assert(loaded.ok);
  assertEquals(loaded.value.messages.map((m) => m.kind), ["system", "user"]);
  assertEquals(loaded.value.state, {});
});

Deno.test("listSessions() and latestSession() report cwd, model, first message and user turns; latestSession() skips sessions without a message", async () => {
  await using dir = await tempDir();
  let n = 0;
  using store = openTestStore(dir.path, { newId: () => `id-${++n}` });
  const a = store.startSession(START_INFO);
  const b = store.startSession({ ...START_INFO, cwd: "/elsewhere" });
  const c = store.startSession(START_INFO);
  assert(a.ok && b.ok && c.ok);
  c.value.record({ type: "message", message: { kind: "user", content: "first" } });
  c.value.record({ type: "message", message: { kind: "user", content: "second" } });
  a.value.record({ type: "message", message: { kind: "user", content: "latest" } });

  const all = unwrap(store.listSessions());
  assertEquals(all.map((s) => s.id), ["id-1", "id-3", "id-2"]);
  const third = all.find((s) => s.id === "id-3")!;
  assertEquals([third.firstUserMessage, third.userTurns, third.cwd], ["first", 2, START_INFO.cwd]);
  assertEquals(all.find((s) => s.id === "id-2")?.firstUserMessage, null);
  assertEquals(unwrap(store.listSessions({ cwd: "/elsewhere" })).map((s) => s.id), ["id-2"]);
  assertEquals(unwrap(store.listSessions({ limit: 1 })).length, 1);
  assertEquals(unwrap(store.latestSession(START_INFO.cwd))?.id, "id-1");
  assertEquals(unwrap(store.latestSession("/nowhere")), undefined);
  // A REPL opened and closed without a message is newer, but not what --continue picks.
  const empty = store.startSession(START_INFO);
  assert(empty.ok);
  empty.value.end();
  assertEquals(unwrap(store.listSessions({ limit: 1 }))[0]?.id, "id-4");
  assertEquals(unwrap(store.latestSession(START_INFO.cwd))?.id, "id-1");
  assertEquals(unwrap(store.latestSession("/elsewhere")), undefined);
  const spoken = unwrap(store.listSessions({ cwd: START_INFO.cwd, withUserMessage: true }));
  assertEquals(spoken.map((s) => s.id), ["id-1", "id-3"]);
});

Deno.test("findSession() accepts unique id prefixes and rejects ambiguous and unknown ones", async () => {
  await using dir = await tempDir();
  const ids = ["abc-111", "abc-222", "abd_333"];
  using store = openTestStore(dir.path, { newId: () => ids.shift()! });
  for (let i = 0; i < 3; i++) assert(store.startSession(START_INFO).ok);
  const found = store.findSession("abc-1");
  assert(found.ok && found.value.id === "abc-111");
  const ambiguous = store.findSession("abc");
  assert(!ambiguous.ok && ambiguous.error.kind === "usage");
  assert(ambiguous.error.message.includes("ambiguous"));
  const unknown = store.findSession("zzz");
  assert(!unknown.ok && unknown.error.kind === "usage");
  assert(unknown.error.message.startsWith('No session matches "zzz"'));
  // "_" is literal, not a LIKE wildcard.
  assert(!store.findSession("ab_").ok);
  assert(store.findSession("abd_").ok);
});

Deno.test("searchSessions() finds messages by words with FTS5", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const writer = store.startSession(START_INFO);
  assert(writer.ok);
  for (const event of scriptedConversation().events) writer.value.record(event);
  const result = unwrap(store.searchSessions("refactor plan"));
  assertEquals(result.engine, "fts5");
  assertEquals(result.hits.length, 1);
  assertEquals(result.hits[0]?.type, "user_message");
  assert(result.hits[0]?.snippet.includes("[refactor]"));
  assertEquals(unwrap(store.searchSessions('"quoted" OR (syntax')).hits, []);
  assertEquals(unwrap(store.searchSessions("   ")).hits, []);
});

Deno.test("deleteSession() deletes one session only after confirm says yes", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const keep = store.startSession(START_INFO);
  const drop = store.startSession(START_INFO);
  assert(keep.ok && drop.ok);
  for (const event of scriptedConversation().events) drop.value.record(event);
  keep.value.record({ type: "message", message: { kind: "user", content: "keep me" } });

  const declined = await store.deleteSession(drop.value.id!, { confirm: () => false });
  assert(declined.ok && declined.value === false);
  assertEquals(unwrap(store.listSessions()).length, 2);
  let asked = "";
  const deleted = await store.deleteSession(drop.value.id!, {
    confirm: (session) => {
      asked = session.id;
      return Promise.resolve(true);
    },
  });
  assert(deleted.ok && deleted.value === true);
  assertEquals(asked, drop.value.id);
  assertEquals(unwrap(store.listSessions()).map((s) => s.id), [keep.value.id]);
  assertEquals(unwrap(store.searchSessions("refactor")).hits, []);
  assertEquals(unwrap(store.searchSessions("keep")).hits.length, 1);
});

Deno.test("SessionLogWriter.record() reports a failed write once and never throws", async () => {
  await using dir = await tempDir();
  const errors: string[] = [];
  const opened = openSessionStore({
    path: join(dir.path, "harness.db"),
    onWriteError: (error) => errors.push(error.kind),
  });
  assert(opened.ok);
  const writer = opened.value.startSession(START_INFO);
  assert(writer.ok);
  opened.value.close();
  writer.value.record({ type: "message", message: { kind: "user", content: "lost" } });
  writer.value.end();
  assertEquals(errors, ["session_store"]);
});

Deno.test("the events table is append-only: recording never updates rows", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const writer = store.startSession(START_INFO);
  assert(writer.ok);
  const { events } = scriptedConversation();
  for (const event of events) writer.value.record(event);
  const db = new DatabaseSync(join(dir.path, "harness.db"));
  const rows = db.prepare("SELECT seq, type FROM events ORDER BY seq").all();
  db.close();
  const seqs = rows.map((row) => Number(row.seq));
  assertEquals(seqs, [...seqs].sort((x, y) => x - y));
  assertEquals(rows[0]?.type, "session_started");
  assert(!rows.some((row) => row.type === "text_delta"));
});

Deno.test("createNullSessionStore() records nothing and says sessions are off", async () => {
  const store = createNullSessionStore();
  const writer = store.startSession(START_INFO);
  assert(writer.ok && writer.value.id === null);
  writer.value.record({ type: "message", message: { kind: "user", content: "x" } });
  assertEquals(unwrap(store.listSessions()), []);
  const loaded = store.loadSession("x");
  assert(!loaded.ok && loaded.error.kind === "usage");
  assert(!(await store.deleteSession("x", { confirm: () => true })).ok);
  assertEquals(unwrap(store.searchSessions("x")).engine, "none");
});

Deno.test("searchSessions() falls back to substring search without the FTS5 table", async () => {
  await using dir = await tempDir();
  using store = openTestStore(dir.path);
  const writer = unwrap(store.startSession(START_INFO));
  for (const event of scriptedConversation().events) writer.record(event);
  const db = new DatabaseSync(join(dir.path, "harness.db"));
  db.exec(`DROP TRIGGER message_text_insert; DROP TRIGGER message_text_delete;
    DROP TABLE message_text`);
  db.close();
  const result = unwrap(store.searchSessions("THE REFACTOR"));
  assertEquals(result.engine, "substring");
  assertEquals(result.hits.map((hit) => hit.type), ["user_message"]);
});
