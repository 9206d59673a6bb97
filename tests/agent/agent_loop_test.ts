// Unit tests of the agent loop (src/agent/agent_loop.ts) with real parts: the ScriptedProvider as
// the model and a real ToolHost running fixture plugins in sandboxed Workers. Seams (approver,
// sink, the turn's stages: a failure stop, a fitter) are injected; nothing is patched.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { runAgentLoop } from "../../src/agent/agent_loop.ts";
import type { AgentLoopOptions } from "../../src/agent/loop_turn.ts";
import type { Message } from "../../src/messages.ts";
import { makeToolResult, toolResultMessage } from "../../src/messages.ts";
import { createPolicyApprover } from "../../src/permissions/policy_approver.ts";
import type { AssistantTurn } from "../../src/providers/provider.ts";
import {
  answer,
  callTools,
  ScriptedProvider,
  type ScriptedStep,
} from "../../src/providers/scripted.ts";
import { repairArguments } from "../../src/agent/repair_arguments.ts";
import type { ToolHost } from "../../src/sandbox/workers/tool_host.ts";
import { EventLog, openLoopHost, RecordingApprover, toolScope } from "../helpers/loop_host.ts";

const LIMITS = { maxIterations: 10, maxToolCalls: 15 };

interface Harness {
  provider: ScriptedProvider;
  log: EventLog;
  approver: RecordingApprover;
  options: AgentLoopOptions;
}

/** Loop options over `host`, a provider replaying `steps`, an allow-all approver and a log. */
function harness(
  host: ToolHost,
  steps: ScriptedStep[],
  extra: Partial<AgentLoopOptions> = {},
): Harness {
  const provider = new ScriptedProvider(steps);
  const log = new EventLog();
  const approver = new RecordingApprover();
  const options: AgentLoopOptions = {
    provider,
    tools: toolScope(host),
    approver,
    sink: log.sink,
    limits: LIMITS,
    state: {},
    ...extra,
  };
  return { provider, log, approver, options };
}

/** The kinds of the messages, e.g. ["user", "assistant", "tool_call", ...]. */
function kinds(messages: readonly Message[]): string[] {
  return messages.map((message) => message.kind);
}

/** `[callId, error_type, data or error_message]` of every tool_result message. */
function results(messages: readonly Message[]): [string, string, string | null][] {
  return messages.flatMap((m) =>
    m.kind === "tool_result"
      ? [[
        m.data.callId,
        m.data.result.error_type,
        m.data.result.success ? m.data.result.data : m.data.result.error_message,
      ]]
      : []
  );
}

/** The tool_result messages the provider received in request `index`. */
function sentResults(provider: ScriptedProvider, index: number): [string, string, string | null][] {
  return results(provider.requests[index] ?? []);
}

/** Event types in order, without `state_changed` (the host reports state after every call). */
function flow(log: EventLog): string[] {
  return log.types().filter((type) => type !== "state_changed");
}

Deno.test("runAgentLoop() answers a turn without tool calls and emits its events in order", async () => {
  await using h = await openLoopHost();
  const usage = { promptTokens: 12, completionTokens: 3 };
  let offered: string[] = [];
  const turn: AssistantTurn = { ...answer("Hello"), reasoning: "think", usage };
  const { provider, log, options } = harness(h.host, [(request) => {
    offered = request.tools.map((tool) => tool.name);
    return turn;
  }]);
  const conversation: Message[] = [{ kind: "system", content: "sys" }];
  const outcome = await runAgentLoop(conversation, "hi", options, new AbortController().signal);

  assertEquals(outcome, {
    stopReason: "answered",
    text: "Hello",
    iterations: 1,
    toolCalls: [],
    usage,
  });
  const assistant: Message = {
    kind: "assistant",
    content: "Hello",
    data: { reasoning: "think", usage },
  };
  assertEquals(conversation, [
    { kind: "system", content: "sys" },
    { kind: "user", content: "hi" },
    assistant,
  ]);
  assertEquals(log.events, [
    { type: "message", message: { kind: "user", content: "hi" } },
    { type: "turn_started", iteration: 1 },
    { type: "reasoning_delta", text: "think" },
    { type: "text_delta", text: "Hello" },
    { type: "usage", usage },
    { type: "message", message: assistant },
    { type: "done", stopReason: "answered", text: "Hello" },
  ]);
  assertEquals(provider.requests, [[
    { kind: "system", content: "sys" },
    { kind: "user", content: "hi" },
  ]]);
  assertEquals(offered, h.host.list().map((tool) => tool.name));
  assert(offered.includes("echo") && offered.includes("finish"));
});

Deno.test("runAgentLoop() runs several calls of one message in order and sends the results back", async () => {
  await using h = await openLoopHost();
  const { provider, log, approver, options } = harness(h.host, [
    callTools([
      { name: "echo", args: { text: "a" } },
      { name: "fail", args: { how: "error" } },
      { name: "echo", args: { text: "b", limit: 2 } },
    ], "Let me look"),
    answer("done"),
  ]);
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", options, new AbortController().signal);

  assertEquals([outcome.stopReason, outcome.text, outcome.iterations], ["answered", "done", 2]);
  assertEquals(kinds(conversation), [
    "user",
    "assistant",
    "tool_call",
    "tool_call",
    "tool_call",
    "tool_result",
    "tool_result",
    "tool_result",
    "assistant",
  ]);
  const expected: [string, string, string | null][] = [
    ["call_1", "none", "a"],
    ["call_2", "internal_error", "Something broke"],
    ["call_3", "none", "bb"],
  ];
  assertEquals(results(conversation), expected);
  assertEquals(sentResults(provider, 1), expected);
  assertEquals(
    outcome.toolCalls.map((c) => [c.id, c.name, c.arguments, c.status]),
    [
      ["call_1", "echo", { text: "a" }, "succeeded"],
      ["call_2", "fail", { how: "error" }, "failed"],
      ["call_3", "echo", { text: "b", limit: 2 }, "succeeded"],
    ],
  );
  assertEquals(flow(log), [
    "message", // user
    "turn_started",
    "text_delta",
    "message", // assistant
    "message", // three tool_call messages, all before any call runs
    "message",
    "message",
    ...["permission_decided", "tool_started", "tool_finished", "message"],
    ...["permission_decided", "tool_started", "tool_finished", "message"],
    ...["permission_decided", "tool_started", "tool_finished", "message"],
    "turn_started",
    "text_delta",
    "message",
    "done",
  ]);
  assertEquals(
    log.of("tool_finished").map((e) => [e.callId, e.display, e.result.error_type]),
    [["call_1", "echo a", "none"], ["call_2", "", "internal_error"], ["call_3", "echo b", "none"]],
  );
  assertEquals(
    approver.requests.map(({ preview: _p, edit: _e, ...request }) => request),
    [
      { callId: "call_1", tool: "echo", args: { text: "a" }, risk: "safe" },
      { callId: "call_2", tool: "fail", args: { how: "error" }, risk: "safe" },
      { callId: "call_3", tool: "echo", args: { text: "b", limit: 2 }, risk: "safe" },
    ],
  );
});

Deno.test("runAgentLoop() threads conversation state through calls and emits state_changed", async () => {
  await using h = await openLoopHost();
  const { log, options } = harness(h.host, [
    callTools([{ name: "add_task", args: { title: "one" } }]),
    callTools([{ name: "add_task", args: { title: "two" } }]),
    answer("ok"),
  ], { state: { tasks: [{ title: "zero", done: true }] } });
  const outcome = await runAgentLoop([], "plan", options, new AbortController().signal);

  assertEquals(outcome.toolCalls.map((c) => c.result.data), [
    'Added "one" (2 tasks)',
    'Added "two" (3 tasks)',
  ]);
  const final = {
    tasks: [
      { title: "zero", done: true },
      { title: "one", done: false },
      { title: "two", done: false },
    ],
  };
  assertEquals(options.state, final);
  assertEquals(log.of("state_changed").at(-1), { type: "state_changed", state: final });
  // Each state_changed comes before the tool_finished of the call that changed it.
  const types = log.types();
  assertEquals(types[types.lastIndexOf("state_changed") + 1], "tool_finished");
});

Deno.test("runAgentLoop() emits state_changed only when a call changes the state", async () => {
  await using h = await openLoopHost();
  const { log, options } = harness(h.host, [
    callTools([{ name: "echo", args: { text: "a" } }, { name: "add_task", args: { title: "t" } }]),
    answer("ok"),
  ], { state: { tasks: [] } });
  await runAgentLoop([], "go", options, new AbortController().signal);
  // echo hands back an equal copy of the state: no event; add_task changes it: one event.
  assertEquals(log.of("state_changed"), [
    { type: "state_changed", state: { tasks: [{ title: "t", done: false }] } },
  ]);
});

Deno.test("runAgentLoop() warns when an answer is cut off at the output limit", async () => {
  await using h = await openLoopHost();
  const { log, options } = harness(h.host, [{ ...answer("Half an ans"), stopReason: "length" }]);
  const outcome = await runAgentLoop([], "go", options, new AbortController().signal);
  assertEquals([outcome.stopReason, outcome.text], ["answered", "Half an ans"]);
  assertEquals(log.of("warning"), [{
    type: "warning",
    message: "The answer was cut off at the model's output limit: " +
      "ask it to go on, or raise the server's max tokens",
  }]);
});

Deno.test("runAgentLoop() answers an unknown tool with validation_failed and continues", async () => {
  await using h = await openLoopHost();
  const { provider, log, approver, options } = harness(h.host, [
    callTools([{ name: "nope", args: { x: 1 } }]),
    answer("sorry"),
  ]);
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", options, new AbortController().signal);

  const names = h.host.list().map((tool) => tool.name).join(", ");
  const message = `Unknown tool "nope": call one of ${names}`;
  assertEquals([outcome.stopReason, outcome.text, outcome.iterations], ["answered", "sorry", 2]);
  assertEquals(sentResults(provider, 1), [["call_1", "validation_failed", message]]);
  // An invalid call keeps the model's raw argument text; it never reaches the approver.
  assertEquals(
    outcome.toolCalls.map((c) => [c.status, c.arguments]),
    [["invalid", '{"x":1}']],
  );
  assertEquals(approver.requests, []);
  assertEquals(log.of("tool_started"), []);
  assertEquals(log.of("tool_finished").map((e) => [e.callId, e.args, e.display]), [
    ["call_1", '{"x":1}', ""],
  ]);
});

Deno.test("runAgentLoop() sends zod issues and JSON errors to the model and continues", async () => {
  await using h = await openLoopHost();
  const { provider, approver, options } = harness(h.host, [
    callTools([
      { name: "echo", args: {} },
      { name: "echo", args: { text: "a", limit: 0 } },
      { name: "echo", args: "{'text': 'a'}" },
      { name: "echo", args: "[1]" },
      { name: "echo", args: "" },
    ]),
    answer("fixed"),
  ]);
  const outcome = await runAgentLoop([], "go", options, new AbortController().signal);

  const again = 'Call "echo" again with corrected arguments';
  assertEquals(sentResults(provider, 1), [
    [
      "call_1",
      "validation_failed",
      `Invalid arguments for "echo": "text" is required: expected a string. ${again}`,
    ],
    [
      "call_2",
      "validation_failed",
      `Invalid arguments for "echo": "limit" must be at least 1, got 0. ${again}`,
    ],
    [
      "call_3",
      "parse_error",
      "Arguments are not valid JSON: Expected property name or '}' in JSON at position 1 " +
      '(line 1 column 2). Send one JSON object. Call "echo" again',
    ],
    ["call_4", "parse_error", 'Arguments must be a JSON object, got [1]. Call "echo" again'],
    // An empty argument text means `{}`, which zod then rejects.
    [
      "call_5",
      "validation_failed",
      `Invalid arguments for "echo": "text" is required: expected a string. ${again}`,
    ],
  ]);
  assertEquals(outcome.toolCalls.map((c) => c.status), [
    "invalid",
    "invalid",
    "invalid",
    "invalid",
    "invalid",
  ]);
  assertEquals([outcome.stopReason, outcome.iterations, approver.requests.length], [
    "answered",
    2,
    0,
  ]);
});

Deno.test("runAgentLoop() repairs arguments through the parseArguments seam", async () => {
  await using h = await openLoopHost();
  const seen: [string, unknown][] = [];
  const { provider, options } = harness(h.host, [
    callTools([
      { name: "echo", args: "{'text': 'hi', limit: '2',}" },
      { name: "echo", args: "not json at all" },
    ]),
    answer("ok"),
  ], {
    parseArguments: (raw, schema) => {
      seen.push([raw, schema]);
      return repairArguments(raw, schema);
    },
  });
  const outcome = await runAgentLoop([], "go", options, new AbortController().signal);

  const schema = h.host.list().find((tool) => tool.name === "echo")?.parameters;
  assertEquals(seen, [
    ["{'text': 'hi', limit: '2',}", schema],
    ["not json at all", schema],
  ]);
  assertEquals(outcome.toolCalls[0]?.arguments, { text: "hi", limit: 2 });
  assertEquals(outcome.toolCalls[0]?.status, "succeeded");
  assertEquals(sentResults(provider, 1)[1], [
    "call_2",
    "parse_error",
    `Arguments are not valid JSON: Unexpected token 'o', "not json at all" is not valid JSON. ` +
    "Send the arguments as one JSON object with double-quoted keys and strings, e.g. " +
    '{"text":"..."}. Call "echo" again',
  ]);
  assertEquals(sentResults(provider, 1)[0], ["call_1", "none", "hihi"]);
});

Deno.test("runAgentLoop() sends an approver's denial and its reason to the model", async () => {
  await using h = await openLoopHost();
  const approver = new RecordingApprover((request) => {
    const text = (request.args as { text: string }).text;
    if (text === "policy") return { decision: "deny", by: "policy", reason: "Rule #2 denies echo" };
    if (text === "user") return { decision: "deny", by: "user" };
    if (text === "mode") return { decision: "deny", by: "mode" };
    return { decision: "allow", by: "mode" };
  });
  const { provider, log, options } = harness(h.host, [
    callTools(["policy", "user", "mode", "ok"].map((text) => ({ name: "echo", args: { text } }))),
    answer("understood"),
  ], { approver });
  const outcome = await runAgentLoop([], "go", options, new AbortController().signal);

  assertEquals(sentResults(provider, 1), [
    ["call_1", "permission_denied", "Rule #2 denies echo"],
    ["call_2", "permission_denied", "Permission denied by the user"],
    ["call_3", "permission_denied", "Permission denied by the run mode"],
    ["call_4", "none", "ok"],
  ]);
  assertEquals(outcome.toolCalls.map((c) => c.status), [
    "denied",
    "denied",
    "denied",
    "succeeded",
  ]);
  assertEquals([outcome.stopReason, outcome.text], ["answered", "understood"]);
  assertEquals(log.of("permission_decided")[0], {
    type: "permission_decided",
    callId: "call_1",
    name: "echo",
    decision: { decision: "deny", by: "policy", reason: "Rule #2 denies echo" },
    args: { text: "policy" },
  });
  assertEquals(log.of("tool_started").map((e) => e.callId), ["call_4"]);
});

Deno.test("runAgentLoop() passes the real policy approver's -p denial to the model", async () => {
  await using h = await openLoopHost();
  const policy = createPolicyApprover({
    rules: [],
    mode: "non_interactive",
    userPolicyFile: "policies.jsonc",
  });
  const approver = new RecordingApprover((request) => policy.approve(request));
  const path = `${h.workspace}/a.txt`;
  const { provider, log, options } = harness(h.host, [
    callTools([{ name: "write_text", args: { path, text: "x" } }]),
    answer("I may not write"),
  ], { approver });
  const outcome = await runAgentLoop([], "write", options, new AbortController().signal);

  const decision = log.of("permission_decided")[0]?.decision;
  assertEquals([decision?.decision, decision?.by], ["deny", "mode"]);
  assert(decision?.reason?.includes("--yes"), decision?.reason);
  assertEquals(sentResults(provider, 1), [[
    "call_1",
    "permission_denied",
    decision?.reason ?? null,
  ]]);
  assertEquals(outcome.toolCalls[0]?.status, "denied");
  assertEquals(await Deno.stat(path).then(() => true, () => false), false);
});

Deno.test("runAgentLoop() stops the turn when the user aborts at the permission prompt", async () => {
  await using h = await openLoopHost();
  const approver = new RecordingApprover(() => ({
    decision: "deny",
    by: "user",
    reason: "Interrupted at the prompt",
    abortTurn: true,
  }));
  const { provider, log, options } = harness(h.host, [
    callTools([{ name: "echo", args: { text: "a" } }, { name: "echo", args: { text: "b" } }]),
    answer("never asked"),
  ], { approver });
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", options, new AbortController().signal);

  assertEquals([outcome.stopReason, outcome.text, outcome.iterations], ["interrupted", "", 1]);
  assertEquals(results(conversation), [
    ["call_1", "permission_denied", "Interrupted at the prompt"],
    ["call_2", "cancelled", "Not run: the turn was stopped before this call"],
  ]);
  assertEquals(outcome.toolCalls.map((c) => [c.status, c.arguments]), [
    ["denied", { text: "a" }],
    ["cancelled", '{"text":"b"}'],
  ]);
  assertEquals(approver.requests.length, 1);
  assertEquals(provider.requests.length, 1);
  assertEquals(log.events.at(-1), { type: "done", stopReason: "interrupted", text: "" });
});

Deno.test("runAgentLoop() stops at maxIterations and continues with a null user text", async () => {
  await using h = await openLoopHost();
  const loopForever: ScriptedStep = (request) =>
    callTools([{ name: "echo", args: { text: String(request.messages.length) } }]);
  const { provider, log, options } = harness(
    h.host,
    [loopForever, loopForever, loopForever, answer("finally")],
    { limits: { maxIterations: 2, maxToolCalls: 15 } },
  );
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", options, new AbortController().signal);

  assertEquals([outcome.stopReason, outcome.text, outcome.iterations], ["iteration_limit", "", 2]);
  assertEquals(provider.requests.length, 2);
  // The last turn's calls still ran and were answered before the loop stopped.
  assertEquals(results(conversation), [["call_1", "none", "1"], ["call_1", "none", "4"]]);
  assertEquals(log.events.slice(-2), [
    { type: "limit_reached", limit: "iterations", max: 2 },
    { type: "done", stopReason: "iteration_limit", text: "" },
  ]);

  // /continue: no new user message, and the iteration count starts again.
  const before = conversation.length;
  const more = harness(h.host, [loopForever, answer("finally")], {
    limits: { maxIterations: 2, maxToolCalls: 15 },
  });
  const resumed = await runAgentLoop(
    conversation,
    null,
    more.options,
    new AbortController().signal,
  );
  assertEquals([resumed.stopReason, resumed.text, resumed.iterations], ["answered", "finally", 2]);
  assertEquals(more.provider.requests[0]?.length, before);
  assertEquals(kinds(conversation.slice(before)), [
    "assistant",
    "tool_call",
    "tool_result",
    "assistant",
  ]);
  assertEquals(more.log.events[0], { type: "turn_started", iteration: 1 });
});

Deno.test("runAgentLoop() answers calls past maxToolCalls with limit_reached", async () => {
  await using h = await openLoopHost();
  const { provider, log, approver, options } = harness(h.host, [
    callTools(["a", "b", "c", "d"].map((text) => ({ name: "echo", args: { text } }))),
    answer("ok"),
  ], { limits: { maxIterations: 10, maxToolCalls: 2 } });
  const outcome = await runAgentLoop([], "go", options, new AbortController().signal);

  const limited = "Not run: at most 2 tool calls run per model turn. " +
    "Call it again in your next turn if you still need it";
  assertEquals(sentResults(provider, 1), [
    ["call_1", "none", "a"],
    ["call_2", "none", "b"],
    ["call_3", "limit_reached", limited],
    ["call_4", "limit_reached", limited],
  ]);
  assertEquals(outcome.toolCalls.map((c) => c.status), [
    "succeeded",
    "succeeded",
    "limit_reached",
    "limit_reached",
  ]);
  // The per-turn limit does not end the turn; the event is emitted once, before call_3's result.
  assertEquals([outcome.stopReason, outcome.text, outcome.iterations], ["answered", "ok", 2]);
  assertEquals(log.of("limit_reached"), [{ type: "limit_reached", limit: "tool_calls", max: 2 }]);
  const types = flow(log);
  assertEquals(types[types.indexOf("limit_reached") + 1], "tool_finished");
  assertEquals(approver.requests.map((r) => r.callId), ["call_1", "call_2"]);
});

Deno.test("runAgentLoop() stops with interrupted when aborted during generation", async () => {
  await using h = await openLoopHost();
  const controller = new AbortController();
  const { provider, log, options } = harness(h.host, [
    (request) =>
      new Promise<AssistantTurn>((resolve) => {
        request.signal?.addEventListener("abort", () => {
          resolve(callTools([{ name: "echo", args: { text: "x" } }], "Partial answ"));
        });
        setTimeout(() => controller.abort(), 20);
      }),
  ]);
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", options, controller.signal);

  assertEquals(outcome, {
    stopReason: "interrupted",
    text: "Partial answ",
    partial: true,
    iterations: 1,
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
  });
  // The text the user saw is kept; the half-received tool call is not.
  assertEquals(conversation, [
    { kind: "user", content: "go" },
    { kind: "assistant", content: "Partial answ", data: {} },
  ]);
  assertEquals(log.types(), ["message", "turn_started", "message", "done"]);
  assertEquals(log.events.at(-1), {
    type: "done",
    stopReason: "interrupted",
    text: "Partial answ",
  });
  assertEquals(provider.requests.length, 1);
});

Deno.test("runAgentLoop() stops at once when the signal is already aborted", async () => {
  await using h = await openLoopHost();
  const { provider, log, options } = harness(h.host, [answer("never")]);
  const conversation: Message[] = [];
  const controller = new AbortController();
  controller.abort();
  const outcome = await runAgentLoop(conversation, "go", options, controller.signal);

  assertEquals([outcome.stopReason, outcome.iterations], ["interrupted", 0]);
  assertEquals(conversation, [{ kind: "user", content: "go" }]);
  assertEquals(provider.requests.length, 0);
  assertEquals(log.types(), ["message", "done"]);
});

Deno.test("runAgentLoop() cancels a running tool and the rest of the turn on abort", async () => {
  await using h = await openLoopHost();
  const controller = new AbortController();
  const { provider, log, options } = harness(h.host, [
    callTools([
      { name: "echo", args: { text: "first" } },
      { name: "wait_abort", args: {} },
      { name: "echo", args: { text: "never" } },
    ]),
    answer("never asked"),
  ]);
  const sink = options.sink;
  options.sink = (event) => {
    sink(event);
    if (event.type === "tool_started" && event.name === "wait_abort") {
      setTimeout(() => controller.abort(), 50);
    }
  };
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", options, controller.signal);

  assertEquals([outcome.stopReason, outcome.text, outcome.iterations], ["interrupted", "", 1]);
  assertEquals(results(conversation), [
    ["call_1", "none", "first"],
    ["call_2", "cancelled", "Cancelled by the user"],
    ["call_3", "cancelled", "Not run: the turn was stopped before this call"],
  ]);
  assertEquals(outcome.toolCalls.map((c) => c.status), ["succeeded", "cancelled", "cancelled"]);
  // The tool saw ctx.signal fire and its state change survived the cancel.
  assertEquals(options.state, { sawAbort: true });
  assertEquals(provider.requests.length, 1);
  assertEquals(log.of("tool_started").map((e) => e.callId), ["call_1", "call_2"]);
  assertEquals(log.events.at(-1), { type: "done", stopReason: "interrupted", text: "" });
});

Deno.test("runAgentLoop() reports a tool timeout and the next call gets a fresh worker", async () => {
  await using h = await openLoopHost({ timeouts: { hang: 100 } });
  const { provider, options } = harness(h.host, [
    callTools([{ name: "hang", args: {} }, { name: "echo", args: { text: "alive" } }]),
    answer("ok"),
  ]);
  const started = performance.now();
  const outcome = await runAgentLoop([], "go", options, new AbortController().signal);

  // The override (100 ms), not the default 120 s; generous for a loaded machine, where a
  // fresh worker takes over a second to start.
  assert(performance.now() - started < 20_000, "the per-tool override (100 ms) applied");
  assertEquals(sentResults(provider, 1), [
    [
      "call_1",
      "timeout",
      'Tool "hang" did not finish within 0.1 s and was stopped: try a smaller request',
    ],
    ["call_2", "none", "alive"],
  ]);
  assertEquals(outcome.toolCalls.map((c) => c.status), ["failed", "succeeded"]);
  assertEquals([outcome.stopReason, outcome.text], ["answered", "ok"]);
});

Deno.test("runAgentLoop() ends with task_complete when a tool returns final", async () => {
  await using h = await openLoopHost();
  const { provider, log, options } = harness(h.host, [
    callTools([
      { name: "echo", args: { text: "a" } },
      { name: "finish", args: { summary: "All done" } },
      { name: "echo", args: { text: "late" } },
    ]),
    answer("never asked"),
  ]);
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", options, new AbortController().signal);

  assertEquals([outcome.stopReason, outcome.text, outcome.iterations], [
    "task_complete",
    "All done",
    1,
  ]);
  assertEquals(results(conversation), [
    ["call_1", "none", "a"],
    ["call_2", "none", "All done"],
    ["call_3", "cancelled", "Not run: task_complete ended the run"],
  ]);
  assertEquals(outcome.toolCalls.map((c) => c.status), ["succeeded", "succeeded", "cancelled"]);
  assertEquals(log.of("tool_finished")[1]?.display, "finished: All done");
  assertEquals(log.events.at(-1), { type: "done", stopReason: "task_complete", text: "All done" });
  assertEquals(provider.requests.length, 1);
});

Deno.test("runAgentLoop() stops the turn when a stage's failed step says stop", async () => {
  await using h = await openLoopHost();
  const seen: [string, string][] = [];
  const { provider, log, options } = harness(h.host, [
    callTools([
      { name: "fail", args: { how: "type_error" } },
      { name: "echo", args: { text: "ok" } },
      { name: "fail", args: { how: "error" } },
      { name: "echo", args: { text: "never" } },
    ]),
    answer("never asked"),
  ], {
    stages: [{
      name: "stop_on_second",
      failed: (call, result) => {
        seen.push([call.id, result.error_type]);
        return seen.length === 2 ? { user: "Stopped for you", model: "Stop repeating" } : undefined;
      },
    }],
  });
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", options, new AbortController().signal);

  // Only failed calls are reported; the second one stops the turn.
  assertEquals(seen, [["call_1", "internal_error"], ["call_3", "internal_error"]]);
  assertEquals(results(conversation), [
    ["call_1", "internal_error", "TypeError: x is not a function"],
    ["call_2", "none", "ok"],
    ["call_3", "internal_error", "Something broke. Stop repeating"],
    ["call_4", "cancelled", "Not run: the turn was stopped before this call"],
  ]);
  assertEquals(outcome.toolCalls[2]?.result.error_message, "Something broke. Stop repeating");
  assertEquals([outcome.stopReason, outcome.errorMessage, outcome.iterations], [
    "error",
    "Stopped for you",
    1,
  ]);
  assertEquals(log.events.at(-1), {
    type: "done",
    stopReason: "error",
    text: "",
    errorMessage: "Stopped for you",
  });
  assertEquals(provider.requests.length, 1);
});

Deno.test("runAgentLoop() passes a provider error through as stop reason error", async () => {
  await using h = await openLoopHost();
  // No scripted turn left: the ScriptedProvider answers like a broken stream.
  const { log, options } = harness(h.host, []);
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", options, new AbortController().signal);

  const errorMessage = 'Model server "scripted" failed mid-answer: no scripted turn left';
  assertEquals(outcome, {
    stopReason: "error",
    text: "",
    iterations: 1,
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    errorMessage,
    error: { kind: "provider_stream", baseUrl: "scripted", message: "no scripted turn left" },
  });
  assertEquals(conversation, [{ kind: "user", content: "go" }]);
  assertEquals(log.events.at(-1), { type: "done", stopReason: "error", text: "", errorMessage });

  // A failed turn without an error value still ends the turn with a message.
  const bare = harness(h.host, [{ ...answer(""), stopReason: "error" }]);
  const plain = await runAgentLoop([], "go", bare.options, new AbortController().signal);
  assertEquals([plain.stopReason, plain.errorMessage, "error" in plain], [
    "error",
    "The model server failed",
    false,
  ]);

  // Text streamed before the failure stays in the conversation (the user saw it).
  const partial = harness(h.host, [{ ...answer("Half an ans"), stopReason: "error" }]);
  const kept: Message[] = [];
  await runAgentLoop(kept, "go", partial.options, new AbortController().signal);
  assertEquals(kept, [
    { kind: "user", content: "go" },
    { kind: "assistant", content: "Half an ans", data: {} },
  ]);
});

Deno.test("runAgentLoop() sums usage over turns and sends what a stage's fit returns", async () => {
  await using h = await openLoopHost();
  const old = toolResultMessage("c0", "echo", makeToolResult({ data: "old output" }));
  const fitted: number[] = [];
  const { provider, log, options } = harness(h.host, [
    { ...callTools([{ name: "echo", args: { text: "a" } }]), usage: usageOf(10, 2) },
    { ...answer("ok"), usage: usageOf(20, 5) },
  ], {
    stages: [{
      name: "fit",
      fit: (messages) => {
        fitted.push(messages.length);
        // Drop the old result, as a context fitter might shorten it.
        return Promise.resolve(messages.filter((m) => m !== old));
      },
    }],
  });
  const conversation: Message[] = [old];
  const outcome = await runAgentLoop(conversation, "go", options, new AbortController().signal);

  assertEquals(outcome.usage, { promptTokens: 30, completionTokens: 7 });
  assertEquals(log.of("usage").map((e) => e.usage), [usageOf(10, 2), usageOf(20, 5)]);
  assertEquals(fitted, [2, 5]);
  assertEquals(provider.requests.map((r) => kinds(r)), [
    ["user"],
    ["user", "assistant", "tool_call", "tool_result"],
  ]);
  // The conversation itself keeps everything.
  assertEquals(conversation[0], old);
  assertEquals(conversation.length, 6);
});

function usageOf(promptTokens: number, completionTokens: number) {
  return { promptTokens, completionTokens };
}
