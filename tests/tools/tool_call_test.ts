import { deepStrictEqual as assertEquals } from "node:assert/strict";
import {
  advance,
  requestToolCall,
  type ToolCallEvent,
  type ToolCallState,
  type ToolCallStatus,
} from "../../src/tools/tool_call.ts";
import { makeToolResult } from "../../src/messages.ts";

const okResult = makeToolResult({ data: "ok" });
const failResult = makeToolResult({ errorType: "io_error", errorMessage: "disk" });

const events: Record<ToolCallEvent["type"], ToolCallEvent> = {
  validation_passed: { type: "validation_passed", args: { path: "a" } },
  validation_failed: { type: "validation_failed", issues: ['"path" is required'] },
  permission_needed: { type: "permission_needed" },
  allowed: { type: "allowed", at: 5 },
  denied: { type: "denied", by: "user", reason: "no" },
  finished: { type: "finished", output: okResult },
  cancelled: { type: "cancelled" },
  limit_reached: { type: "limit_reached" },
};

/** Reaches a state of the given status through legal transitions. */
function reach(status: ToolCallStatus): ToolCallState {
  const paths: Record<ToolCallStatus, ToolCallEvent[]> = {
    requested: [],
    validated: [events.validation_passed],
    awaiting_permission: [events.validation_passed, events.permission_needed],
    running: [events.validation_passed, events.allowed],
    succeeded: [events.validation_passed, events.allowed, events.finished],
    failed: [events.validation_passed, events.allowed, { type: "finished", output: failResult }],
    invalid: [events.validation_failed],
    denied: [events.validation_passed, events.denied],
    cancelled: [events.cancelled],
    limit_reached: [events.limit_reached],
  };
  let state = requestToolCall({ id: "c1", name: "read_file", arguments: '{"path":"a"}' });
  for (const event of paths[status]) {
    const next = advance(state, event);
    if (!next.ok) throw new Error(`cannot reach ${status}`);
    state = next.value;
  }
  return state;
}

// Every allowed transition, as [from, event, to]. Anything not listed is illegal.
const allowed: [ToolCallStatus, ToolCallEvent["type"], ToolCallStatus][] = [
  ["requested", "validation_passed", "validated"],
  ["requested", "validation_failed", "invalid"],
  ["requested", "cancelled", "cancelled"],
  ["requested", "limit_reached", "limit_reached"],
  ["validated", "permission_needed", "awaiting_permission"],
  ["validated", "allowed", "running"],
  ["validated", "denied", "denied"],
  ["validated", "cancelled", "cancelled"],
  ["awaiting_permission", "allowed", "running"],
  ["awaiting_permission", "denied", "denied"],
  ["awaiting_permission", "cancelled", "cancelled"],
  ["running", "finished", "succeeded"],
  ["running", "cancelled", "cancelled"],
];

const statuses: ToolCallStatus[] = [
  "requested",
  "validated",
  "awaiting_permission",
  "running",
  "succeeded",
  "failed",
  "invalid",
  "denied",
  "cancelled",
  "limit_reached",
];

Deno.test("advance() allows exactly the transitions in the table", () => {
  for (const from of statuses) {
    for (const [type, event] of Object.entries(events)) {
      const expected = allowed.find(([f, e]) => f === from && e === type);
      const next = advance(reach(from), event);
      if (expected) {
        assertEquals(next.ok, true, `${from} --${type}--> should be legal`);
        if (next.ok) assertEquals(next.value.status, expected[2]);
      } else {
        assertEquals(next.ok, false, `${from} --${type}--> should be illegal`);
        if (!next.ok) assertEquals(next.error, { kind: "illegal_transition", from, event: type });
      }
    }
  }
});

Deno.test("advance() sends a failed ToolResult to the failed state", () => {
  const next = advance(reach("running"), { type: "finished", output: failResult });
  assertEquals(next.ok && next.value.status, "failed");
});

Deno.test("advance() carries only each state's own fields", () => {
  const running = reach("running");
  assertEquals(running.status === "running" && running.startedAt, 5);
  const validated = reach("validated");
  assertEquals("startedAt" in validated, false);
  const denied = reach("denied");
  assertEquals(denied.status === "denied" && denied.reason, "no");
  assertEquals("output" in reach("running"), false);
});
