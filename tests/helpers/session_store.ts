// Test helpers for the session store: a temp folder disposed with `await using`, a store
// opened in it, a scripted conversation (parallel tool calls, reasoning, tasks) fed through
// a writer as loop events, and the request invariant check (every call answered in order).

import { join } from "node:path";
import { ok as assert } from "node:assert/strict";
import type { AgentError, Result } from "../../src/errors.ts";
import type { LoopEvent } from "../../src/agent/loop_events.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
} from "../../src/messages.ts";
import { openSessionStore } from "../../src/sessions/open_session_store.ts";
import type { SessionStore } from "../../src/sessions/session_store_types.ts";

/** A temp folder removed on dispose. */
export interface TempDir extends AsyncDisposable {
  path: string;
}

export async function tempDir(): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix: "harness_sessions_test_" });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.chmod(path, 0o700).catch(() => {});
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** A store at `<dir>/harness.db` that closes on dispose (asserts it opened). */
export function openTestStore(
  dir: string,
  options: { newId?: () => string } = {},
): SessionStore & Disposable {
  const opened = openSessionStore({ path: join(dir, "harness.db"), ...options });
  if (!opened.ok) throw new Error(`store did not open: ${JSON.stringify(opened.error)}`);
  const store = opened.value;
  return Object.assign(store, { [Symbol.dispose]: () => store.close() });
}

export const START_INFO = {
  model: "qwen3:8b",
  baseUrl: "http://127.0.0.1:11434/v1",
  cwd: "/work/project",
  grants: "--allow-read=. --allow-write=.",
  provider: "ollama",
};

const NOW = new Date("2025-01-02T03:04:05.000Z");

/**
 * The loop events of a two-turn conversation: a system prompt, a user message, an
 * assistant turn with reasoning and three parallel tool calls (one adds a task), then an
 * answer. Returns the events and the message list the conversation ends with.
 */
export function scriptedConversation(): { events: LoopEvent[]; messages: Message[] } {
  const events: LoopEvent[] = [];
  const messages: Message[] = [];
  const message = (m: Message) => {
    messages.push(m);
    events.push({ type: "message", message: m });
  };
  message({ kind: "system", content: "You are a coding agent." });
  message({ kind: "user", content: "Plan the refactor and list the files" });
  events.push({ type: "turn_started", iteration: 1 });
  events.push({ type: "reasoning_delta", text: "I should" });
  events.push({ type: "text_delta", text: "Looking." });
  events.push({ type: "usage", usage: { promptTokens: 120, completionTokens: 30 } });
  message({
    kind: "assistant",
    content: "Looking.",
    data: {
      reasoning: "I should add a task and look around.",
      usage: { promptTokens: 120, completionTokens: 30 },
    },
  });
  const calls = [
    { id: "call_1", name: "add_task", arguments: '{"content":"Split the loop"}' },
    { id: "call_2", name: "ls", arguments: '{"path":"."}' },
    { id: "call_3", name: "read_file", arguments: '{"path":"missing.ts"}' },
  ];
  for (const call of calls) message(toolCallMessage(call));
  const results = [
    makeToolResult({ data: "Added task_1", now: NOW }),
    makeToolResult({ data: "src/\nmain.ts", now: NOW }),
    makeToolResult({ errorType: "not_found", errorMessage: "No such file", now: NOW }),
  ];
  for (const [index, call] of calls.entries()) {
    const result = results[index]!;
    const decision = { decision: "allow" as const, by: "policy" as const, rule: "policies#1" };
    events.push({ type: "permission_decided", callId: call.id, name: call.name, decision });
    events.push({ type: "tool_started", callId: call.id, name: call.name, args: {} });
    if (index === 0) {
      events.push({
        type: "state_changed",
        state: {
          tasks: [{ id: "task_1", content: "Split the loop", status: "pending" }],
          nextTaskId: 2,
        },
      });
    }
    events.push({
      type: "tool_finished",
      callId: call.id,
      name: call.name,
      args: {},
      result,
      display: "",
    });
    message(toolResultMessage(call.id, call.name, result));
  }
  events.push({ type: "turn_started", iteration: 2 });
  message({ kind: "assistant", content: "Done: two files.", data: {} });
  events.push({ type: "done", stopReason: "answered", text: "Done: two files." });
  return { events, messages };
}

/**
 * Asserts the request invariant: every tool_call is answered exactly once, results follow
 * their calls' block directly and in call order, and no result lacks a call.
 */
export function assertEveryCallAnswered(messages: readonly Message[]): void {
  let index = 0;
  while (index < messages.length) {
    const message = messages[index]!;
    assert(message.kind !== "tool_result", `tool_result without a call at ${index}`);
    if (message.kind !== "tool_call") {
      index++;
      continue;
    }
    const calls: string[] = [];
    while (messages[index]?.kind === "tool_call") {
      const call = messages[index]! as Extract<Message, { kind: "tool_call" }>;
      calls.push(call.data.id);
      index++;
    }
    for (const id of calls) {
      const result = messages[index];
      assert(
        result?.kind === "tool_result" && result.data.callId === id,
        `call ${id} is not answered in order (at ${index}: ${JSON.stringify(result)})`,
      );
      index++;
    }
  }
}

/** The value of a successful Result; fails the test with the error otherwise. */
export function unwrap<T>(result: Result<T, AgentError>): T {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.value;
}
