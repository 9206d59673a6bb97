// driveToolCall (src/agent/call_driver.ts) with a call the user changed at the prompt: the
// approver's edited arguments are validated and run, the model's result says what changed (the
// edit note's stage), the decision event carries them (the session log's changedArguments),
// and the PreToolUse hooks' stage screens the changed call again.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { driveToolCall } from "../../src/agent/call_driver.ts";
import type { ApprovalDecision, ApprovalRequest } from "../../src/permissions/approver.ts";
import { eventFromLoopEvent } from "../../src/sessions/session_events.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";
import { EDIT_NOTE_STAGE } from "../../src/agent/argument_edit.ts";
import { openRunHooks } from "../../src/app/run_hooks.ts";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";

function options(
  host: Awaited<ReturnType<typeof openLoopHost>>["host"],
  decide: (
    request: ApprovalRequest,
  ) => ApprovalDecision | Promise<ApprovalDecision>,
) {
  const log = new EventLog();
  const approver = new RecordingApprover(decide);
  return {
    log,
    approver,
    options: {
      tools: toolScope(host),
      approver,
      sink: log.sink,
      state: {},
      stages: [EDIT_NOTE_STAGE],
    },
  };
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
    driven.result?.data,
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
  assertEquals(driven.result?.error_type, "permission_denied");
  assert(driven.result?.error_message?.startsWith("The user changed this call into invalid"));
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
  assertEquals(driven.result?.success, false);
  assert(
    driven.result?.error_message?.startsWith(
      'The user changed this call before running it: how was "error", ran "not_found"\n\n',
    ),
    driven.result?.error_message ?? "",
  );
});

/**
 * PreToolUse hooks (a real shell command) that block a call whose text names "secret" and
 * rewrite one that names "tmp"; each call's input is logged to `log`.
 */
function screeningHooks(workspace: string, log: string) {
  const rewrite = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      updatedInput: { text: "rm -rf build/cache" },
    },
  });
  const hooks = openRunHooks({
    hooks: {
      PreToolUse: [{
        matcher: "echo",
        hooks: [{
          type: "command",
          command: `input=$(cat); echo "$input" >> ${log}; case "$input" in ` +
            `*"cat secret"*) echo "no secrets" >&2; exit 2;; *build/tmp*) printf '%s' '${rewrite}';; esac`,
        }],
      }],
    },
  }, { cwd: workspace, grants: emptyGrants(), yes: false, model: "m", sessionId: () => "s1" });
  assert(hooks);
  return hooks.call;
}

async function screened(log: string): Promise<unknown[]> {
  const text = await Deno.readTextFile(log);
  return text.trim().split("\n").map((line) => JSON.parse(line).tool_input);
}

Deno.test({
  name:
    "driveToolCall() lets PreToolUse hooks screen the changed call: a block denies it, a rewrite is not run",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using h = await openLoopHost();
    for (
      const [edited, reason] of [
        [{ text: "cat secret" }, "no secrets"],
        [{ text: "rm -rf build/tmp" }, "changed the arguments the user approved"],
      ] as const
    ) {
      const log = await Deno.makeTempFile({ dir: h.workspace });
      const { options: o } = options(h.host, () => ({
        decision: "allow",
        by: "user",
        editedArgs: edited,
      }));
      const driven = await driveToolCall(
        echoCall,
        { ...o, stages: [...o.stages, ...screeningHooks(h.workspace, log)] },
        new AbortController().signal,
      );
      assertEquals(await screened(log), [{ text: "rm -rf build" }, edited]);
      assertEquals(driven.state.status, "denied");
      assertEquals(driven.result?.error_type, "permission_denied");
      const said = driven.result?.error_message ?? "";
      assert(said.startsWith("Blocked by a PreToolUse hook: ") && said.includes(reason), said);
    }
    // A changed call the hooks pass runs as the user wrote it.
    const log = await Deno.makeTempFile({ dir: h.workspace });
    const { options: o } = options(h.host, () => ({
      decision: "allow",
      by: "user",
      editedArgs: { text: "ls build" },
    }));
    const driven = await driveToolCall(
      echoCall,
      { ...o, stages: [...o.stages, ...screeningHooks(h.workspace, log)] },
      new AbortController().signal,
    );
    assertEquals(driven.state.status, "succeeded");
    assertEquals(driven.args, { text: "ls build" });
  },
});
