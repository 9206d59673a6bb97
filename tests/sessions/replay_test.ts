import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { makeToolResult } from "../../src/messages.ts";
import { interruptedResult, replayEvents } from "../../src/sessions/replay.ts";
import type { SessionEvent } from "../../src/sessions/session_events.ts";
import { assertEveryCallAnswered } from "../helpers/session_store.ts";

const at = "2025-01-01T00:00:00.000Z";
const result = makeToolResult({ data: "ok", now: new Date(at) });
const call = (id: string): SessionEvent => ({
  type: "tool_call_requested",
  at,
  payload: { callId: id, name: "ls", arguments: "{}" },
});
const finished = (id: string): SessionEvent => ({
  type: "tool_call_finished",
  at,
  payload: { callId: id, name: "ls", status: "succeeded", result },
});

Deno.test("replayEvents() places a late result right after its call's block", () => {
  const replayed = replayEvents([
    { type: "user_message", at, payload: { content: "go" } },
    call("a"),
    call("b"),
    finished("a"),
    { type: "user_message", at, payload: { content: "next" } },
    finished("b"),
  ]);
  assertEquals(replayed.messages.map((m) => m.kind === "tool_result" ? m.data.callId : m.kind), [
    "user",
    "tool_call",
    "tool_call",
    "a",
    "b",
    "user",
  ]);
  assertEveryCallAnswered(replayed.messages);
  assertEquals(replayed.unanswered, []);
});

Deno.test("replayEvents() drops a second result and a result without a call", () => {
  const replayed = replayEvents([call("a"), finished("a"), finished("a"), finished("ghost")]);
  assertEquals(replayed.messages.length, 2);
  assertEveryCallAnswered(replayed.messages);
});

Deno.test("replayEvents() reports unanswered calls in request order with whether they started", () => {
  const replayed = replayEvents([
    call("a"),
    call("b"),
    { type: "tool_started", at, payload: { callId: "a", name: "ls" } },
  ]);
  assertEquals(replayed.unanswered, [
    { callId: "a", name: "ls", started: true },
    { callId: "b", name: "ls", started: false },
  ]);
});

Deno.test("interruptedResult() says a call that never started did not run", () => {
  const r = interruptedResult({ callId: "b", name: "run_command", started: false }, new Date(at));
  assertEquals(r.success, false);
  assertEquals(r.error_type, "interrupted");
  assertEquals(
    r.error_message,
    'The harness stopped before this call started: it did not run. Call "run_command" again ' +
      "if it is still needed",
  );
});

Deno.test("interruptedResult() says a started call may or may not have had effects", () => {
  const r = interruptedResult({ callId: "a", name: "run_command", started: true }, new Date(at));
  assertEquals(r.error_type, "interrupted");
  assertEquals(
    r.error_message,
    "The harness stopped while this call was running, so it may or may not have had effects. " +
      'Check the current state before calling "run_command" again',
  );
});

Deno.test("replayEvents() passes over inert records: no system prompt, no checkpoint", () => {
  const record = { messageCount: 1, prompt: "p", files: ["../x"], turn: "t1" };
  const replayed = replayEvents([
    { type: "system_message", at, payload: { content: "theirs" }, inert: true },
    { type: "user_message", at, payload: { content: "hi" } },
    { type: "checkpoint_recorded", at, payload: record, inert: true },
    { type: "system_message", at, payload: { content: "ours" } },
  ]);
  assertEquals(replayed.messages.map((m) => m.content), ["ours", "hi"]);
  assertEquals(replayed.checkpoints, []);
});
