import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { toolCallUpdate, toolResultUpdate } from "../../src/acp/tool_updates.ts";
import { makeToolResult } from "../../src/messages.ts";

Deno.test("toolCallUpdate() shows a call as pending with its title, kind, input and file", () => {
  const call = { id: "c1", name: "edit_file", arguments: '{"path": "src/a.ts", "line": 4}' };
  assertEquals(toolCallUpdate(call, "/w"), {
    sessionUpdate: "tool_call",
    toolCallId: "c1",
    title: "edit_file: src/a.ts",
    kind: "edit",
    status: "pending",
    rawInput: { path: "src/a.ts", line: 4 },
    locations: [{ path: "/w/src/a.ts", line: 4 }],
  });
  // Arguments that are not JSON stay the text the model wrote.
  const broken = toolCallUpdate({ id: "c2", name: "mine", arguments: "{oops" }, "/w");
  if (broken.sessionUpdate !== "tool_call") throw new Error(broken.sessionUpdate);
  assertEquals([broken.rawInput, broken.kind, broken.locations], ["{oops", "other", []]);
});

Deno.test("toolResultUpdate() puts the call's diffs before its result and keeps the raw result", () => {
  const result = makeToolResult({ data: "Edited src/a.ts" });
  const diff = { type: "diff" as const, path: "/w/src/a.ts", oldText: "a", newText: "b" };
  assertEquals(toolResultUpdate("c1", result, [diff]), {
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    status: "completed",
    content: [diff, { type: "content", content: { type: "text", text: "Edited src/a.ts" } }],
    rawOutput: result,
  });
  const failed = makeToolResult({ errorType: "timeout", errorMessage: "Stopped after 2 s" });
  const update = toolResultUpdate("c2", failed);
  if (update.sessionUpdate !== "tool_call_update") throw new Error(update.sessionUpdate);
  assertEquals([update.status, update.content], [
    "failed",
    [{ type: "content", content: { type: "text", text: "Stopped after 2 s" } }],
  ]);
});
