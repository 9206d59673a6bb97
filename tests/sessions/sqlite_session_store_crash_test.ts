import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEveryCallAnswered, openTestStore, tempDir } from "../helpers/session_store.ts";

const WRITER = new URL("../fixtures/sessions/crash_writer.ts", import.meta.url);

Deno.test("loadSession() answers calls left open by a writer killed with SIGKILL", async () => {
  await using dir = await tempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", fileURLToPath(WRITER), join(dir.path, "harness.db")],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // The writer prints the session id once everything up to the running call is recorded.
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes("\n")) {
    const chunk = await reader.read();
    if (chunk.done) break;
    output += chunk.value;
  }
  const sessionId = output.trim();
  assert(sessionId.length > 0, "the writer printed no session id");
  child.kill("SIGKILL");
  const status = await child.status;
  assertEquals(status.signal, "SIGKILL");
  await reader.cancel();

  using store = openTestStore(dir.path);
  const loaded = store.loadSession(sessionId);
  assert(loaded.ok);
  assertEquals(loaded.value.interrupted, [
    { callId: "call_a", name: "run_command" },
    { callId: "call_b", name: "run_command" },
  ]);
  const { messages } = loaded.value;
  assertEquals(messages.map((m) => m.kind), [
    "system",
    "user",
    "assistant",
    "tool_call",
    "tool_call",
    "tool_result",
    "tool_result",
  ]);
  assertEveryCallAnswered(messages);
  // call_a had started (tool_started was logged): it may have had effects. call_b was
  // only requested: it did not run.
  const expected = ["may or may not have had effects", "it did not run"];
  for (const [i, message] of messages.slice(-2).entries()) {
    assert(message.kind === "tool_result");
    assertEquals(message.data.result.error_type, "interrupted");
    assert(message.data.result.error_message?.includes(expected[i]!));
    assertEquals(JSON.parse(message.content), message.data.result);
  }

  // The recovery is recorded: loading again finds nothing new and the same messages.
  const again = store.loadSession(sessionId);
  assert(again.ok);
  assertEquals(again.value.interrupted, []);
  assertEquals(again.value.messages, messages);
});
