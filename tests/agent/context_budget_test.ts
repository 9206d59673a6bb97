// Tests for context warnings and for making room: old tool results shortened in one large
// step past the threshold, newest results cut to head and tail when they alone overflow.

import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { ContextBudget, estimateTokens } from "../../src/agent/context_budget.ts";
import { fit } from "../../src/agent/fit_request.ts";
import { TokenCounter } from "../../src/providers/token_counter.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  type ToolResult,
  toolResultMessage,
} from "../../src/messages.ts";

function conversation(sizes: number[]): Message[] {
  const messages: Message[] = [{ kind: "system", content: "sys" }, { kind: "user", content: "go" }];
  sizes.forEach((size, i) => {
    messages.push({ kind: "assistant", content: "", data: {} });
    messages.push(
      toolCallMessage({ id: `c${i}`, name: "read_file", arguments: `{"path":"f${i}"}` }),
    );
    messages.push(
      toolResultMessage(
        `c${i}`,
        "read_file",
        makeToolResult({ data: `line one of ${i}\n${"x".repeat(size)}` }),
      ),
    );
  });
  return messages;
}

function resultData(message: Message | undefined): string {
  if (message?.kind !== "tool_result") throw new Error("not a tool result");
  return (JSON.parse(message.content) as ToolResult).data ?? "";
}

Deno.test("ContextBudget.observe() warns once when the server read far fewer tokens than sent", () => {
  const budget = new ContextBudget(32768);
  const warnings = budget.observe({ promptTokens: 2048, completionTokens: 20 }, 9000);
  assertEquals(warnings.map((w) => w.kind), ["prompt_truncated"]);
  ok(warnings[0]!.message.includes("2048 prompt tokens but about 9000"));
  assertEquals(budget.observe({ promptTokens: 2048, completionTokens: 20 }, 9500), []);
});

Deno.test("ContextBudget.observe() stays quiet for small or roughly matching prompts", () => {
  const budget = new ContextBudget(32768);
  assertEquals(budget.observe({ promptTokens: 100, completionTokens: 5 }, 900), []);
  assertEquals(budget.observe({ promptTokens: 3000, completionTokens: 5 }, 5000), []);
  assertEquals(budget.observe(undefined, 50000), []);
});

Deno.test("ContextBudget.observe() warns once near the context length", () => {
  const budget = new ContextBudget(8192);
  assertEquals(budget.observe({ promptTokens: 6000, completionTokens: 200 }, 6000), []);
  const warnings = budget.observe({ promptTokens: 6500, completionTokens: 300 }, 6500);
  assertEquals(warnings.map((w) => w.kind), ["near_limit"]);
  ok(warnings[0]!.message.startsWith("The conversation uses 6800 of 8192 context tokens (83%)"));
  assertEquals(budget.observe({ promptTokens: 7000, completionTokens: 300 }, 7000), []);
  assertEquals(budget.usedTokens, 7300);
});

Deno.test("fit() leaves a conversation that fits unchanged", () => {
  const messages = conversation([100, 100]);
  const result = fit(messages, 8192);
  assertEquals(result.messages, messages);
  assertEquals(result.overflow, false);
  assertEquals(result.note, undefined);
  assertEquals(result.tokens, estimateTokens(messages));
});

Deno.test("fit() shortens this turn's older results in one step, down to half the threshold", () => {
  const messages = conversation([12000, 12000, 12000, 2000]);
  const before = estimateTokens(messages);
  const result = fit(messages, 8192);
  assertEquals(result.overflow, false);
  ok(estimateTokens(result.messages) < before);
  // One large step: not just enough to fit (two results would do) but down to half the
  // 6,144-token limit, so the next requests append for a while before the next step.
  ok(result.tokens <= 3072, String(result.tokens));
  assertEquals(result.messages.length, messages.length);
  assertEquals(result.messages.map((m) => m.kind), messages.map((m) => m.kind));
  const results = result.messages.filter((m) => m.kind === "tool_result");
  ok(resultData(results[0]).startsWith("[Shortened to save context:"));
  ok(resultData(results[0]).includes('Call read_file {"path":"f0"} again to see it'));
  ok(resultData(results[0]).includes('starting "line one of 0"'));
  ok(resultData(results[1]).startsWith("[Shortened to save context:"));
  ok(resultData(results[2]).startsWith("[Shortened to save context:"));
  // The latest model turn's result is never replaced: the model has not read it yet.
  ok(resultData(results[3]).startsWith("line one of 3"));
  for (const [i, m] of result.messages.entries()) {
    if (m.kind === "tool_result") {
      const call = result.messages[i - 1];
      assertEquals(call?.kind === "tool_call" ? call.data.id : undefined, m.data.callId);
    }
  }
  ok(result.note?.startsWith("Shortened 3 old tool results"), result.note);
});

Deno.test("fit() waits for the threshold, then shortens every earlier user turn's results at once", () => {
  const turn = (i: number, size: number): Message[] => [
    { kind: "user", content: `question ${i}` },
    { kind: "assistant", content: "", data: {} },
    toolCallMessage({ id: `c${i}`, name: "read_file", arguments: `{"path":"f${i}"}` }),
    toolResultMessage(`c${i}`, "read_file", makeToolResult({ data: "y".repeat(size) })),
    { kind: "assistant", content: `answer ${i}`, data: {} },
  ];
  const messages: Message[] = [
    { kind: "system", content: "sys" },
    ...turn(0, 4000),
    ...turn(1, 4000),
    ...turn(2, 4000),
    { kind: "user", content: "and now?" },
  ];
  const tokens = estimateTokens(messages);
  // Under the threshold nothing changes, though the limit is nearer.
  const under = fit(messages, 8192, { threshold: tokens });
  assertEquals(under.messages, messages);
  // Just over it, one step shortens all three results, though one would have done.
  const over = fit(messages, 8192, { threshold: tokens - 10 });
  const data = over.messages.filter((m) => m.kind === "tool_result").map(resultData);
  assertEquals(data.length, 3);
  ok(data.every((d) => d.startsWith("[Shortened to save context:")), data.join("\n"));
  ok(over.tokens < tokens / 3, String(over.tokens));
  // A step is stable: fitting its own output again changes nothing.
  assertEquals(fit(over.messages, 8192, { threshold: tokens - 10 }).messages, over.messages);
});

Deno.test("fit() counts with the model's calibrated ratio", () => {
  const messages = conversation([9000]);
  // At four characters per token the 9,000-character result fits 8,192 tokens; at one and a
  // half it is about 6,000 tokens, over the 6,144-token limit with the schemas.
  assertEquals(fit(messages, 8192, { fixedTokens: 500 }).note, undefined);
  const counter = new TokenCounter();
  counter.charsPerToken = 1.5;
  const result = fit(messages, 8192, { fixedTokens: 500, counter });
  ok(result.note?.startsWith("Cut 1 new one to head and tail"), result.note);
  ok(result.tokens <= 8192 - 2048, String(result.tokens));
});

Deno.test("fit() points at the saved full output when there is one", () => {
  const saved = (path: string) => {
    const big = makeToolResult({ data: "y".repeat(40000) });
    big.metadata.truncated = { cut: 90000, unit: "bytes", full_output_path: path };
    return big;
  };
  const messages: Message[] = [
    { kind: "user", content: "run it" },
    toolCallMessage({ id: "c1", name: "run_command", arguments: '{"command":"make"}' }),
    toolResultMessage("c1", "run_command", saved("/tmp/out-1.txt")),
    { kind: "assistant", content: "again", data: {} },
    toolCallMessage({ id: "c2", name: "run_command", arguments: '{"command":"make"}' }),
    toolResultMessage("c2", "run_command", saved("/tmp/out-2.txt")),
  ];
  const result = fit(messages, 8192);
  ok(resultData(result.messages[2]).startsWith("[Shortened"));
  ok(resultData(result.messages[2]).endsWith('The full output is in "/tmp/out-1.txt"'));
  // The newest result is cut, not replaced: the model has not read it yet.
  const newest = resultData(result.messages[5]);
  ok(newest.startsWith("yyyy") && newest.endsWith("yyyy"), newest.slice(0, 40));
  ok(newest.includes('the full output is in "/tmp/out-2.txt": read_file it'), newest);
  assertEquals(result.overflow, false);
  ok(result.note?.includes("cut 1 new one to head and tail"), result.note);
});

Deno.test("fit() keeps the newest results readable when they alone overflow", () => {
  // Ollama's default 8192-token context, 2,200 tokens of schemas and a 30,000-character read.
  const messages = conversation([30000]);
  const result = fit(messages, 8192, { fixedTokens: 2200 });
  assertEquals(result.overflow, false);
  const data = resultData(result.messages.at(-1));
  ok(data.startsWith("line one of 0\nxxx"), data.slice(0, 40));
  ok(data.length > 10000 && data.length < 16000, String(data.length));
  ok(data.includes('call read_file {"path":"f0"} again with narrower arguments'), data);
  ok(estimateTokens(result.messages) <= 8192 - 2048 - 2200);
});

Deno.test("fit() says so when even shortened results do not fit", () => {
  const messages: Message[] = [
    { kind: "system", content: "s".repeat(40000) },
    ...conversation([20000]).slice(1),
  ];
  const result = fit(messages, 8192);
  assertEquals(result.overflow, true);
  ok(result.note?.includes("still does not fit the 8192-token context"), result.note);
  ok(/The request \(about \d+ tokens, plus 2048 kept for the answer\)/.test(result.note!));
  const again = fit(result.messages, 8192);
  assertEquals(again.messages, result.messages);
});
