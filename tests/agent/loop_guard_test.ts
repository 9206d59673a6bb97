// The loop guard (src/agent/loop_guard.ts) in the real loop: the built-in file tools run in
// sandboxed Workers over a temp workspace, and a scripted model repeats its calls.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { runAgentLoop } from "../../src/agent/agent_loop.ts";
import type { TurnOutcome } from "../../src/agent/loop_turn.ts";
import { LoopGuard } from "../../src/agent/loop_guard.ts";
import { makeToolResult, type Message } from "../../src/messages.ts";
import { answer, callTools, ScriptedProvider } from "../../src/providers/scripted.ts";
import type { ToolHost } from "../../src/sandbox/workers/tool_host.ts";
import {
  EventLog,
  type LoopHost,
  openLoopHost,
  RecordingApprover,
  toolScope,
} from "../helpers/loop_host.ts";
import { guardStage } from "../../src/agent/turn_kernel.ts";

/** The built-in tools over a temp workspace holding a.txt, with read and write grants. */
function openBuiltins(): Promise<LoopHost> {
  return openLoopHost({
    builtins: true,
    grants: ["--allow-read=.", "--allow-write=."],
    files: { "a.txt": "alpha\n" },
  });
}

const READ = { name: "read_file", args: { path: "a.txt" } };

/** One call per model turn, then an answer; returns the outcome and what the model was sent. */
async function run(
  host: ToolHost,
  calls: { name: string; args: unknown }[],
  loopGuard?: number,
): Promise<{ outcome: TurnOutcome; log: EventLog; provider: ScriptedProvider }> {
  const provider = new ScriptedProvider([
    ...calls.map((call, i) => callTools([{ ...call, id: `c${i + 1}` }])),
    answer("done"),
  ]);
  const log = new EventLog();
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", {
    provider,
    tools: toolScope(host),
    approver: new RecordingApprover(),
    sink: log.sink,
    limits: { maxIterations: 10, maxToolCalls: 15 },
    state: {},
    stages: [guardStage(loopGuard)],
  }, new AbortController().signal);
  return { outcome, log, provider };
}

const errorTypes = (outcome: TurnOutcome) => outcome.toolCalls.map((c) => c.result.error_type);

Deno.test("runAgentLoop() answers the third identical read with the same result without running it", async () => {
  await using h = await openBuiltins();
  const { outcome, log, provider } = await run(h.host, [READ, READ, READ]);
  assertEquals(errorTypes(outcome), ["none", "none", "repeated_call"]);
  assertEquals(outcome.toolCalls[2]?.status, "limit_reached");
  assertEquals(log.of("tool_started").map((e) => e.callId), ["c1", "c2"]);
  const told = outcome.toolCalls[2]!.result.error_message!;
  assert(told.includes("2 times") && told.includes("call c2") && told.includes("answer"), told);
  // The model reads the guard's answer in its next request, and the turn goes on.
  const last = provider.requests.at(-1)!.at(-1)!;
  assert(last.kind === "tool_result" && last.data.result.error_type === "repeated_call");
  assertEquals(outcome.stopReason, "answered");
});

Deno.test("runAgentLoop() runs a repeated read again after a write in between", async () => {
  await using h = await openBuiltins();
  const write = { name: "write_file", args: { path: "a.txt", content: "beta\n" } };
  const { outcome } = await run(h.host, [READ, READ, write, READ]);
  assertEquals(errorTypes(outcome), ["none", "none", "none", "none"]);
  assert(outcome.toolCalls[3]!.result.data!.includes("beta"), outcome.toolCalls[3]!.result.data!);
});

Deno.test("runAgentLoop() runs an identical call whose earlier results differed", async () => {
  await using h = await openBuiltins();
  // add_task returns the task list, which grows: the same call, a different result each time.
  const add = { name: "add_task", args: { content: "x" } };
  const { outcome } = await run(h.host, [add, add, add]);
  assertEquals(errorTypes(outcome), ["none", "none", "none"]);
});

Deno.test("runAgentLoop() with loopGuard 0 runs every identical call", async () => {
  await using h = await openBuiltins();
  const { outcome, log } = await run(h.host, [READ, READ, READ], 0);
  assertEquals(errorTypes(outcome), ["none", "none", "none"]);
  assertEquals(log.of("tool_started").length, 3);
});

Deno.test("LoopGuard counts arguments that differ only in formatting as identical", () => {
  const guard = new LoopGuard(3);
  const result = makeToolResult({ data: "same" });
  guard.record({ id: "a", name: "ls", arguments: '{"path": ".", "depth": 1}' }, result, {
    mayChange: false,
  });
  guard.record({ id: "b", name: "ls", arguments: '{"depth":1,"path":"."}' }, result, {
    mayChange: false,
  });
  assertEquals(
    guard.check({ id: "c", name: "ls", arguments: '{ "path": "." , "depth": 1 }' })
      ?.error_type,
    "repeated_call",
  );
  // A failure in between starts the count again.
  guard.record({ id: "d", name: "ls", arguments: "{}" }, result, { mayChange: false });
  guard.record(
    { id: "e", name: "ls", arguments: "{}" },
    makeToolResult({ errorType: "io_error", errorMessage: "x" }),
    { mayChange: false },
  );
  assertEquals(guard.check({ id: "f", name: "ls", arguments: "{}" }), undefined);
});
