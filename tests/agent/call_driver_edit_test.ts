// driveToolCall (src/agent/call_driver.ts) with a call the user changed at the prompt: the
// approver's edited arguments are validated and run, the model's result says what changed,
// and the decision event carries them (the session log's changedArguments).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { driveToolCall } from "../../src/agent/call_driver.ts";
import type { ApprovalDecision, ApprovalRequest } from "../../src/permissions/approver.ts";
import { eventFromLoopEvent } from "../../src/sessions/session_events.ts";
import { EventLog, openLoopHost, RecordingApprover } from "../helpers/loop_host.ts";
import type { CallHooks } from "../../src/agent/turn_hooks.ts";

function options(
  host: Awaited<ReturnType<typeof openLoopHost>>["host"],
  decide: (
    request: ApprovalRequest,
  ) => ApprovalDecision | Promise<ApprovalDecision>,
) {
  const log = new EventLog();
  const approver = new RecordingApprover(decide);
  return { log, approver, options: { tools: host, approver, sink: log.sink, state: {} } };
}

const echoCall = { id: "c1", name: "echo", arguments: '{"text":"rm -rf build"}' };

Deno.test("driveToolCall() runs the arguments the user changed the call to, and tells the model", async () => {
  await using h = await openLoopHost();
  const { log, options: o } = options(h.host, () => ({
    decision: "allow",
    by: "user",
    editedArgs: { text: "rm -rf build/tmp" },
  }));
  const driven = await driveToolCall(echoCall, o, new AbortController().signal);
  assertEquals(driven.state.status, "succeeded");
  assertEquals(driven.args, { text: "rm -rf build/tmp" });
  assertEquals(driven.editedFrom, { text: "rm -rf build" });
  assertEquals(
    driven.result.data,
    'The user changed this call before running it: text was "rm -rf build", ran ' +
      '"rm -rf build/tmp"\n\nrm -rf build/tmp',
  );
  assertEquals(log.events[1], {
    type: "tool_started",
    callId: "c1",
    name: "echo",
    args: { text: "rm -rf build/tmp" },
  });
  // The log keeps the user's version beside the model's (in the tool_call event).
  const decided = eventFromLoopEvent(log.events[0]!);
  assert(decided?.type === "permission_decided");
  assertEquals(decided.payload.changedArguments, '{"text":"rm -rf build/tmp"}');
});

Deno.test("driveToolCall() offers the edit seam: the arguments as sent and the schema check", async () => {
  await using h = await openLoopHost();
  const { approver, options: o } = options(h.host, () => ({ decision: "deny", by: "user" }));
  await driveToolCall(echoCall, o, new AbortController().signal);
  const edit = approver.requests[0]?.edit;
  assert(edit);
  assertEquals(edit.sent, { text: "rm -rf build" });
  assertEquals(await edit.validate({ text: "ok", limit: 2 }), {
    ok: true,
    value: { text: "ok", limit: 2 },
  });
  const wrong = await edit.validate({ text: 5 });
  assert(!wrong.ok && wrong.issues.join().includes("text"), JSON.stringify(wrong));
  assertEquals(await edit.validate([1]), {
    ok: false,
    issues: ["the arguments must be one JSON object"],
  });
});

Deno.test("driveToolCall() refuses edited arguments that fail the schema, whoever allowed them", async () => {
  await using h = await openLoopHost();
  const { log, options: o } = options(h.host, () => ({
    decision: "allow",
    by: "user",
    editedArgs: { text: 5 },
  }));
  const driven = await driveToolCall(echoCall, o, new AbortController().signal);
  assertEquals(driven.state.status, "denied");
  assertEquals(driven.result.error_type, "permission_denied");
  assert(driven.result.error_message?.startsWith("The user changed this call into invalid"));
  assertEquals(log.types(), ["permission_decided"]);
});

Deno.test("driveToolCall() tells a failed edited call's change before its error", async () => {
  await using h = await openLoopHost();
  const { options: o } = options(h.host, () => ({
    decision: "allow",
    by: "user",
    editedArgs: { how: "not_found" },
  }));
  const driven = await driveToolCall(
    { id: "c2", name: "fail", arguments: '{"how":"error"}' },
    o,
    new AbortController().signal,
  );
  assertEquals(driven.result.success, false);
  assert(
    driven.result.error_message?.startsWith(
      'The user changed this call before running it: how was "error", ran "not_found"\n\n',
    ),
    driven.result.error_message ?? "",
  );
});

/** Hooks that block a call whose text names "secret", and rewrite one that names "tmp". */
function screeningHooks(seen: unknown[]): CallHooks {
  return {
    screens: () => true,
    beforeCall(call) {
      seen.push(call.args);
      const text = (call.args as { text?: string }).text ?? "";
      if (text.includes("secret")) return Promise.resolve({ deny: "no secrets", notices: [] });
      if (text.includes("tmp")) {
        return Promise.resolve({ args: { text: text.replace("tmp", "cache") }, notices: [] });
      }
      return Promise.resolve({ notices: [] });
    },
    beforeRun: () => Promise.resolve(),
    afterCall: () => Promise.resolve({ notices: [] }),
  };
}

Deno.test("driveToolCall() lets PreToolUse hooks screen the changed call: a block denies it, a rewrite is not run", async () => {
  await using h = await openLoopHost();
  for (
    const [edited, reason] of [
      [{ text: "cat secret" }, "no secrets"],
      [{ text: "rm -rf build/tmp" }, "changed the arguments the user approved"],
    ] as const
  ) {
    const seen: unknown[] = [];
    const { options: o } = options(h.host, () => ({
      decision: "allow",
      by: "user",
      editedArgs: edited,
    }));
    const driven = await driveToolCall(
      echoCall,
      { ...o, hooks: screeningHooks(seen) },
      new AbortController().signal,
    );
    assertEquals(seen, [{ text: "rm -rf build" }, edited]);
    assertEquals(driven.state.status, "denied");
    assertEquals(driven.result.error_type, "permission_denied");
    const said = driven.result.error_message ?? "";
    assert(said.startsWith("Blocked by a PreToolUse hook: ") && said.includes(reason), said);
  }
  // A changed call the hooks pass runs as the user wrote it.
  const seen: unknown[] = [];
  const { options: o } = options(h.host, () => ({
    decision: "allow",
    by: "user",
    editedArgs: { text: "ls build" },
  }));
  const driven = await driveToolCall(
    echoCall,
    { ...o, hooks: screeningHooks(seen) },
    new AbortController().signal,
  );
  assertEquals(driven.state.status, "succeeded");
  assertEquals(driven.args, { text: "ls build" });
});
