// Compaction makes room for what a turn adds (issue 40, item 10): a conversation whose text
// alone nearly fills the window, with old results already shortened, is compacted before the
// next turn when the turn's newest result would not fit beside it, so that result reaches the
// model whole instead of cut to its head and tail.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { Conversation } from "../../src/agent/conversation.ts";
import { roomForTurn } from "../../src/agent/compaction.ts";
import { makeToolResult, toolCallMessage, toolResultMessage } from "../../src/messages.ts";
import type { Message } from "../../src/messages.ts";
import { answer, callTools, ScriptedProvider } from "../../src/providers/scripted.ts";
import { COMPACT_INSTRUCTION } from "../../src/agent/compaction.ts";
import { TokenCounter } from "../../src/providers/token_counter.ts";
import { conversationParts, EventLog, openLoopHost } from "../helpers/loop_host.ts";

const signal = () => new AbortController().signal;

/** Two earlier turns that each read 20,000 characters and answered at length. */
function readingHistory(): Message[] {
  const messages: Message[] = [{ kind: "system", content: "sys" }];
  for (let i = 0; i < 2; i++) {
    messages.push(
      { kind: "user", content: `read part ${i}` },
      toolCallMessage({ id: `c${i}`, name: "big_output", arguments: '{"size":20000}' }),
      toolResultMessage(`c${i}`, "big_output", makeToolResult({ data: "z".repeat(20_000) })),
      { kind: "assistant", content: `${"notes ".repeat(1500)}`, data: {} },
    );
  }
  return messages;
}

Deno.test("Conversation.send() compacts first when the turn's newest result would be cut", async () => {
  await using h = await openLoopHost();
  const provider = new ScriptedProvider([
    answer("Summary: parts 0 and 1 read."),
    callTools([{ name: "big_output", args: { size: 20_000 }, id: "new" }]),
    answer("Done"),
  ]);
  const conversation = new Conversation(
    conversationParts(h.host, provider, { window: { contextLength: 8192 } }),
    { messages: readingHistory() },
  );
  const display = new EventLog();
  const outcome = await conversation.send("read part 2", display.sink, signal());
  assertEquals(outcome.text, "Done");
  // The summary came first, at the turn's start (a compaction point), not mid-turn.
  assertEquals(provider.requests[0]!.at(-1)?.content, COMPACT_INSTRUCTION);
  assertEquals(display.of("compacted").length, 1);
  // The newest result reached the model whole: 20,000 characters, nothing cut.
  const sent = provider.requests[2]!.find((m) =>
    m.kind === "tool_result" && m.data.callId === "new"
  );
  assert(sent?.kind === "tool_result");
  assertEquals(sent.data.result.data?.length, 20_000);
  const warnings = display.of("warning").map((w) => w.message);
  assert(!warnings.some((w) => w.includes("head and tail")), warnings.join("\n"));
});

Deno.test("Conversation.send() does not compact when the turn's results fit beside the rest", async () => {
  await using h = await openLoopHost();
  const provider = new ScriptedProvider([
    callTools([{ name: "big_output", args: { size: 20_000 }, id: "new" }]),
    answer("Done"),
  ]);
  // The same reads at a 32k window: shortening old results leaves plenty of room.
  const conversation = new Conversation(
    conversationParts(h.host, provider, { window: { contextLength: 32_768 } }),
    { messages: readingHistory() },
  );
  const outcome = await conversation.send("read part 2", () => {}, signal());
  assertEquals(outcome.text, "Done");
  assertEquals(provider.requests.length, 2);
  assert(!provider.requests[0]!.some((m) => m.content === COMPACT_INSTRUCTION));
});

Deno.test("roomForTurn() is the largest batch of results one model turn added, capped", () => {
  const counter = new TokenCounter();
  const messages = readingHistory();
  messages.push(
    { kind: "user", content: "two at once" },
    toolCallMessage({ id: "a", name: "big_output", arguments: "{}" }),
    toolCallMessage({ id: "b", name: "big_output", arguments: "{}" }),
    toolResultMessage("a", "big_output", makeToolResult({ data: "a".repeat(8_000) })),
    toolResultMessage("b", "big_output", makeToolResult({ data: "b".repeat(16_000) })),
  );
  const room = roomForTurn(messages, { counter, limit: 100_000 });
  // 24,000 characters of data (plus the JSON around it): about 6,000 tokens.
  assert(room > 6_000 && room < 6_300, String(room));
  assertEquals(roomForTurn(messages, { counter, limit: 4_000 }), 2_000);
  assertEquals(roomForTurn([{ kind: "user", content: "hi" }], { counter, limit: 4_000 }), 0);
});
