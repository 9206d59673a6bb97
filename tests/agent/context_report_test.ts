// /context's numbers: the window and what each part of the next request takes.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  formatContextReport,
  measureContext,
  requestTokens,
  schemaTokens,
} from "../../src/agent/context_report.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
} from "../../src/messages.ts";

const TOOLS = [{
  name: "read_file",
  description: "Read a file.",
  parameters: { type: "object", properties: { path: { type: "string" } } },
}];

Deno.test("measureContext() splits the request into system, tools, history and last results", () => {
  const messages: Message[] = [
    { kind: "system", content: "s".repeat(400) },
    { kind: "user", content: "u".repeat(40) },
    { kind: "assistant", content: "a".repeat(40), data: {} },
    { kind: "user", content: "read it" },
    toolCallMessage({ id: "c1", name: "read_file", arguments: '{"path":"a"}' }),
    toolResultMessage("c1", "read_file", makeToolResult({ data: "x".repeat(4000) })),
  ];
  const report = measureContext(messages, TOOLS, { tokens: 8192, source: "--context-length" });
  assertEquals(report.system, 104);
  assertEquals(report.tools, schemaTokens(TOOLS));
  assert(report.lastResults > 1000, JSON.stringify(report));
  assert(report.history < 100, JSON.stringify(report));
  assertEquals(report.answerRoom, 2048);
  const text = formatContextReport(report);
  assert(text.startsWith("Context window: 8,192 tokens (--context-length)"), text);
  assert(text.includes("left before old tool results are shortened"), text);
  const full = formatContextReport({ ...report, window: { tokens: 1000, source: "x" } });
  assert(full.includes("over by") && full.includes("/compact"), full);
  assertEquals(requestTokens(report), 104 + report.tools + report.history + report.lastResults);
});
