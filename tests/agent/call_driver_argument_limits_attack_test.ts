// Attacks with tool-call arguments built to overflow whatever recurses over them: nested
// 10,000 deep (as raw JSON, or hidden in a JSON string that argument repair decodes) or
// larger than any real call. The model gets a validation error; nothing throws a RangeError
// (issue 26, item 14). The end-to-end test is in tests/e2e/deep_arguments_attack_test.ts.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { driveToolCall } from "../../src/agent/call_driver.ts";
import { repairArguments } from "../../src/agent/repair_arguments.ts";
import { MAX_ARGUMENT_BYTES } from "../../src/tools/argument_limits.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";

const DEEP = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;

const CASES: [string, string][] = [
  ["nested 10,000 deep", `{"text": ${DEEP}}`],
  ["nested 10,000 deep in objects", `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`],
  ["larger than the cap", JSON.stringify({ text: "x".repeat(MAX_ARGUMENT_BYTES + 1) })],
];

for (const [what, raw] of CASES) {
  Deno.test(`driveToolCall() answers arguments ${what} with validation_failed`, async () => {
    await using h = await openLoopHost();
    const approver = new RecordingApprover();
    const log = new EventLog();
    const driven = await driveToolCall(
      { id: "c1", name: "echo", arguments: raw },
      { tools: toolScope(h.host), approver, sink: log.sink, state: {} },
      new AbortController().signal,
    );
    assertEquals(driven.state.status, "invalid");
    assertEquals(driven.result?.error_type, "validation_failed");
    assert(
      /Call "echo" again/.test(driven.result?.error_message ?? ""),
      String(driven.result?.error_message),
    );
    assertEquals(approver.requests.length, 0);
  });
}

Deno.test("driveToolCall() refuses nesting that argument repair decodes from a string", async () => {
  await using h = await openLoopHost();
  const approver = new RecordingApprover();
  const driven = await driveToolCall(
    { id: "c1", name: "echo", arguments: JSON.stringify({ text: "hi", tags: DEEP }) },
    {
      tools: toolScope(h.host),
      approver,
      sink: new EventLog().sink,
      state: {},
      // The schema says "tags" is an array: repair decodes the string into 10,000 levels.
      parseArguments: (text) =>
        repairArguments(text, {
          type: "object",
          properties: { text: { type: "string" }, tags: { type: "array" } },
        }),
    },
    new AbortController().signal,
  );
  assertEquals(driven.result?.error_type, "validation_failed");
  assert(driven.result?.error_message?.includes("nest"), String(driven.result?.error_message));
});

Deno.test("parsePythonLiteral() and parsePythonCalls() refuse text nested 10,000 deep", async () => {
  const { parsePythonCalls, parsePythonLiteral } = await import(
    "../../src/providers/text_tool_calls/python_literal.ts"
  );
  assertEquals(parsePythonLiteral(DEEP), undefined);
  const tuples = `${"(".repeat(10_000)}${")".repeat(10_000)}`;
  assertEquals(parsePythonCalls(`[read_file(path=${tuples})]`), undefined);
  // Within the limit they still read, and an inherited name is not a constant.
  assertEquals(parsePythonLiteral("[[1, (2,)], {'a': None}]"), { value: [[1, [2]], { a: null }] });
  assertEquals(parsePythonLiteral("constructor"), undefined);
});
