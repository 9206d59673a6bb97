// Unit tests of driveToolCall (src/agent/call_driver.ts): one call through the kernel's stages
// and its state machine with a real ToolHost over fixture plugins, a recording approver, an
// event log and a fixed clock.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { type CallDriverOptions, driveToolCall as drive } from "../../src/agent/call_driver.ts";
import { parseJsonArguments } from "../../src/agent/call_stages.ts";
import type { ToolCall, ToolResult } from "../../src/messages.ts";
import type { ApprovalDecision } from "../../src/permissions/approver.ts";
import type { ToolHost } from "../../src/sandbox/workers/tool_host.ts";
import type { ToolCallState } from "../../src/tools/tool_call.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";

interface Driver {
  log: EventLog;
  approver: RecordingApprover;
  options: CallDriverOptions;
}

function driver(
  host: ToolHost,
  extra: Partial<CallDriverOptions> & { decide?: () => ApprovalDecision } = {},
): Driver {
  const log = new EventLog();
  const { decide, ...rest } = extra;
  const approver = new RecordingApprover(decide);
  return {
    log,
    approver,
    options: {
      tools: toolScope(host),
      approver,
      sink: log.sink,
      state: {},
      clock: () => 42,
      ...rest,
    },
  };
}

function call(name: string, args: unknown, id = "c1"): ToolCall {
  return { id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) };
}

/** A driven call as the loop reads it. */
interface DrivenCall {
  state: ToolCallState;
  args: unknown;
  result: ToolResult;
  final: boolean;
  abortTurn: boolean;
  display: string;
  conversationState: Record<string, unknown>;
}

/** Drives a call and reads its flight as the loop does. */
async function driveToolCall(
  call: ToolCall,
  options: CallDriverOptions,
  signal: AbortSignal,
): Promise<DrivenCall> {
  const flight = await drive(call, options, signal);
  return {
    state: flight.state,
    args: flight.args,
    result: flight.result!,
    final: flight.run?.final === true && flight.run.result.success,
    abortTurn: flight.abortTurn === true,
    display: flight.run?.display ?? "",
    conversationState: flight.run?.state ?? options.state,
  };
}

/** The parts of a DrivenCall that do not vary between runs (no timestamps or timings). */
function summary(driven: DrivenCall) {
  return {
    status: driven.state.status,
    args: driven.args,
    success: driven.result.success,
    errorType: driven.result.error_type,
    text: driven.result.success ? driven.result.data : driven.result.error_message,
    final: driven.final,
    abortTurn: driven.abortTurn,
    display: driven.display,
  };
}

const signal = () => new AbortController().signal;

Deno.test("parseJsonArguments() accepts objects and explains everything else", () => {
  assertEquals(parseJsonArguments('{"a":1}', {}), { value: { a: 1 } });
  assertEquals(parseJsonArguments("  ", {}), { value: {} });
  assertEquals(parseJsonArguments("null", {}), {
    error: "Arguments must be a JSON object, got null",
  });
  assertEquals(parseJsonArguments('"x"', {}), {
    error: 'Arguments must be a JSON object, got "x"',
  });
  assertEquals(parseJsonArguments("{a:1}", {}), {
    error: "Arguments are not valid JSON: Expected property name or '}' in JSON at position 1 " +
      "(line 1 column 2). Send one JSON object",
  });
});

Deno.test("driveToolCall() runs an approved call to succeeded with the clock's start time", async () => {
  await using h = await openLoopHost();
  const { log, approver, options } = driver(h.host);
  const controller = new AbortController();
  const driven = await driveToolCall(call("echo", { text: "hi" }), options, controller.signal);

  assertEquals(summary(driven), {
    status: "succeeded",
    args: { text: "hi" },
    success: true,
    errorType: "none",
    text: "hi",
    final: false,
    abortTurn: false,
    display: "echo hi",
  });
  assert(driven.state.status === "succeeded");
  assertEquals(driven.state.startedAt, 42);
  assertEquals(driven.state.output, driven.result);
  assertEquals(driven.state.rawArguments, '{"text":"hi"}');
  // The preview asks the tool's sandbox what the call would change (echo: nothing); the edit
  // seam carries the arguments as sent (the prompt's Edit answer starts from them).
  assertEquals(approver.requests.map(({ preview: _p, edit: _e, ...request }) => request), [{
    callId: "c1",
    tool: "echo",
    args: { text: "hi" },
    risk: "safe",
  }]);
  assertEquals(await approver.requests[0]?.preview?.(), undefined);
  assertEquals(approver.requests[0]?.edit?.sent, { text: "hi" });
  assertEquals(approver.signals, [controller.signal]);
  assertEquals(log.events, [
    {
      type: "permission_decided",
      callId: "c1",
      name: "echo",
      decision: { decision: "allow", by: "mode" },
      args: { text: "hi" },
    },
    { type: "tool_started", callId: "c1", name: "echo", args: { text: "hi" } },
  ]);
});

Deno.test("driveToolCall() answers an unknown tool as invalid without asking", async () => {
  await using h = await openLoopHost();
  const { log, approver, options } = driver(h.host);
  const driven = await driveToolCall(call("nope", {}), options, signal());

  const message = `Unknown tool "nope": call one of ${h.host.list().map((t) => t.name).join(", ")}`;
  assertEquals(summary(driven), {
    status: "invalid",
    args: undefined,
    success: false,
    errorType: "validation_failed",
    text: message,
    final: false,
    abortTurn: false,
    display: "",
  });
  assert(driven.state.status === "invalid");
  assertEquals(driven.state.issues, [message]);
  assertEquals([approver.requests.length, log.events.length], [0, 0]);
});

Deno.test("driveToolCall() reports zod issues as validation_failed with every issue", async () => {
  await using h = await openLoopHost();
  const { approver, options } = driver(h.host);
  const driven = await driveToolCall(call("echo", { limit: "ten" }), options, signal());

  assert(driven.state.status === "invalid");
  assertEquals(driven.state.issues, [
    '"text" is required: expected a string',
    '"limit" must be a number, got "ten"',
  ]);
  assertEquals(
    driven.result.error_message,
    'Invalid arguments for "echo": "text" is required: expected a string; "limit" must be a ' +
      'number, got "ten". Call "echo" again with corrected arguments',
  );
  assertEquals(driven.result.error_type, "validation_failed");
  assertEquals(approver.requests.length, 0);
});

Deno.test("driveToolCall() reports unparsable arguments as parse_error", async () => {
  await using h = await openLoopHost();
  const { options } = driver(h.host);
  const driven = await driveToolCall(call("echo", "[1, 2]"), options, signal());

  assertEquals(summary(driven).status, "invalid");
  assertEquals([driven.result.error_type, driven.result.error_message], [
    "parse_error",
    'Arguments must be a JSON object, got [1,2]. Call "echo" again',
  ]);
});

Deno.test("driveToolCall() hands the raw text and the tool's schema to parseArguments", async () => {
  await using h = await openLoopHost();
  const seen: [string, Record<string, unknown>][] = [];
  const { options } = driver(h.host, {
    parseArguments: (raw, schema) => {
      seen.push([raw, schema]);
      return raw === "repair me" ? { value: { text: "fixed" }, repairs: ["guessed"] } : {
        error: "Cannot read that",
      };
    },
  });
  const repaired = await driveToolCall(call("echo", "repair me"), options, signal());
  const refused = await driveToolCall(call("echo", "{}", "c2"), options, signal());

  const schema = h.host.list().find((t) => t.name === "echo")?.parameters;
  assertEquals(seen, [["repair me", schema], ["{}", schema]]);
  assertEquals([summary(repaired).status, repaired.args, repaired.result.data], [
    "succeeded",
    { text: "fixed" },
    "fixed",
  ]);
  assertEquals([refused.state.status, refused.result.error_type, refused.result.error_message], [
    "invalid",
    "parse_error",
    'Cannot read that. Call "echo" again',
  ]);
});

Deno.test("driveToolCall() turns a denial into permission_denied with the approver's reason", async () => {
  await using h = await openLoopHost();
  const cases: [ApprovalDecision, string][] = [
    [{ decision: "deny", by: "policy", reason: "Rule #1 denies echo" }, "Rule #1 denies echo"],
    [{ decision: "deny", by: "policy" }, "Permission denied by a policy rule"],
    [{ decision: "deny", by: "user" }, "Permission denied by the user"],
    [{ decision: "deny", by: "mode" }, "Permission denied by the run mode"],
  ];
  for (const [decision, message] of cases) {
    const { log, options } = driver(h.host, { decide: () => decision });
    const driven = await driveToolCall(call("echo", { text: "x" }), options, signal());
    assertEquals(summary(driven), {
      status: "denied",
      args: { text: "x" },
      success: false,
      errorType: "permission_denied",
      text: message,
      final: false,
      abortTurn: false,
      display: "",
    });
    assertEquals(driven.state, {
      status: "denied",
      callId: "c1",
      name: "echo",
      rawArguments: '{"text":"x"}',
      args: { text: "x" },
      by: decision.by,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    });
    assertEquals(log.types(), ["permission_decided"]);
  }
});

Deno.test("driveToolCall() aborts the turn when the user interrupts the prompt", async () => {
  await using h = await openLoopHost();
  const { options } = driver(h.host, {
    decide: () => ({ decision: "deny", by: "user", abortTurn: true }),
  });
  const driven = await driveToolCall(call("echo", { text: "x" }), options, signal());
  assertEquals([driven.state.status, driven.abortTurn, driven.result.error_type], [
    "denied",
    true,
    "permission_denied",
  ]);
});

Deno.test("driveToolCall() cancels before asking when the signal is already aborted", async () => {
  await using h = await openLoopHost();
  const { log, approver, options } = driver(h.host);
  const controller = new AbortController();
  controller.abort();
  const driven = await driveToolCall(call("echo", { text: "x" }), options, controller.signal);

  assertEquals(summary(driven), {
    status: "cancelled",
    args: { text: "x" },
    success: false,
    errorType: "cancelled",
    text: "Cancelled by the user before it ran",
    final: false,
    abortTurn: true,
    display: "",
  });
  assertEquals([approver.requests.length, log.events.length], [0, 0]);
});

Deno.test("driveToolCall() cancels a running tool and keeps the state it left", async () => {
  await using h = await openLoopHost();
  const controller = new AbortController();
  const { options } = driver(h.host, {
    state: { tasks: [] },
    // Abort once the tool runs (the worker is warm, so 50 ms is well past its start).
    sink: (event) =>
      void (event.type === "tool_started" && setTimeout(() => controller.abort(), 50)),
  });
  await h.host.run("echo", { text: "warm up" }, { state: {} });
  const driven = await driveToolCall(call("wait_abort", {}), options, controller.signal);

  assertEquals(summary(driven), {
    status: "cancelled",
    args: {},
    success: false,
    errorType: "cancelled",
    text: "Cancelled by the user",
    final: false,
    abortTurn: true,
    display: "",
  });
  assertEquals(driven.conversationState, { tasks: [], sawAbort: true });
});

Deno.test("driveToolCall() reports a timeout as failed and the next call works", async () => {
  await using h = await openLoopHost({ timeouts: { hang: 100 } });
  const { options } = driver(h.host);
  const hung = await driveToolCall(call("hang", {}), options, signal());
  assertEquals(summary(hung), {
    status: "failed",
    args: {},
    success: false,
    errorType: "timeout",
    text: 'Tool "hang" did not finish within 0.1 s and was stopped: try a smaller request',
    final: false,
    abortTurn: false,
    display: "",
  });
  const next = await driveToolCall(call("echo", { text: "alive" }, "c2"), options, signal());
  assertEquals([next.state.status, next.result.data], ["succeeded", "alive"]);
});

Deno.test("driveToolCall() reports a thrown error as failed", async () => {
  await using h = await openLoopHost();
  const { log, options } = driver(h.host);
  const driven = await driveToolCall(call("fail", { how: "tool_error" }), options, signal());
  assertEquals(summary(driven), {
    status: "failed",
    args: { how: "tool_error" },
    success: false,
    errorType: "parse_error",
    text: 'Cannot parse "x": bad input',
    final: false,
    abortTurn: false,
    display: "",
  });
  assert(driven.state.status === "failed");
  assertEquals(driven.state.startedAt, 42);
  assertEquals(log.types(), ["permission_decided", "tool_started"]);
});

Deno.test("driveToolCall() marks a final result and returns the new conversation state", async () => {
  await using h = await openLoopHost();
  const { options } = driver(h.host, { state: { tasks: [{ title: "a", done: false }] } });
  const finished = await driveToolCall(call("finish", { summary: "Done" }), options, signal());
  assertEquals([finished.state.status, finished.final, finished.result.data, finished.display], [
    "succeeded",
    true,
    "Done",
    "finished: Done",
  ]);
  const added = await driveToolCall(call("add_task", { title: "b" }), options, signal());
  assertEquals(added.final, false);
  assertEquals(added.conversationState, {
    tasks: [{ title: "a", done: false }, { title: "b", done: false }],
  });
  // The caller's state object is not changed in place.
  assertEquals(options.state, { tasks: [{ title: "a", done: false }] });
});
