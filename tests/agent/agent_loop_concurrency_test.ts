// Read-only calls of one model turn run together: two slow reads take the time of one, the
// results go back in call order while the terminal shows each as it finishes, and calls of
// tools that may change things still run one after another.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { runAgentLoop } from "../../src/agent/agent_loop.ts";
import type { Message } from "../../src/messages.ts";
import { answer, callTools, ScriptedProvider } from "../../src/providers/scripted.ts";
import { discoverPlugins } from "../../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { createToolHost, type ToolHost } from "../../src/sandbox/workers/tool_host.ts";
import { EventLog, RecordingApprover, toolScope } from "../helpers/loop_host.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/plugins/concurrent/", import.meta.url));
const MS = 800;

async function openHost(): Promise<{ host: ToolHost; workspace: string } & AsyncDisposable> {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_conc_" }));
  const { files } = await discoverPlugins({
    builtinDir: null,
    userDir: null,
    cwd: workspace,
    pluginDirs: [FIXTURES],
  });
  const parsed = parseGrantFlags(["--allow-read=."], { cwd: workspace });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  const { host, errors } = await createToolHost({
    grants: parsed.value.grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: files,
  });
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  // Warm both workers so start-up does not count.
  await host.run("slow_read", { label: "warm", ms: 1 }, { state: {} });
  await host.run("slow_note", { label: "warm", ms: 1 }, { state: {} });
  return {
    host,
    workspace,
    async [Symbol.asyncDispose]() {
      await host.close();
      await Deno.remove(workspace, { recursive: true });
    },
  };
}

async function turnWith(host: ToolHost, tool: string, first: number, second: number) {
  const provider = new ScriptedProvider([
    callTools([
      { name: tool, args: { label: "first", ms: first } },
      { name: tool, args: { label: "second", ms: second } },
    ]),
    answer("done"),
  ]);
  const log = new EventLog();
  const conversation: Message[] = [];
  const started = performance.now();
  const outcome = await runAgentLoop(conversation, "go", {
    provider,
    tools: toolScope(host),
    approver: new RecordingApprover(),
    sink: log.sink,
    limits: { maxIterations: 5, maxToolCalls: 15 },
    state: {},
  }, new AbortController().signal);
  return { outcome, log, conversation, took: performance.now() - started };
}

Deno.test("runAgentLoop() runs two slow read-only calls in the time of one", async () => {
  await using h = await openHost();
  const { outcome, took } = await turnWith(h.host, "slow_read", MS, MS);
  assertEquals(outcome.text, "done");
  assert(took < MS * 1.6, `two ${MS} ms reads took ${Math.round(took)} ms`);
});

Deno.test("runAgentLoop() answers concurrent calls in call order, showing each as it ends", async () => {
  await using h = await openHost();
  const { log, conversation } = await turnWith(h.host, "slow_read", MS, 50);
  const finished = log.of("tool_finished").map((e) => (e as { callId: string }).callId);
  assertEquals(finished, ["call_2", "call_1"]);
  const order = conversation.filter((m) => m.kind === "tool_result").map((m) =>
    m.kind === "tool_result" ? m.data.callId : ""
  );
  assertEquals(order, ["call_1", "call_2"]);
  assertEquals(
    conversation.flatMap((m) => m.kind === "tool_result" ? [m.data.result.data] : []),
    ["first", "second"],
  );
});

Deno.test("runAgentLoop() runs calls of tools that are not read-only one after another", async () => {
  await using h = await openHost();
  const { took } = await turnWith(h.host, "slow_note", 400, 400);
  assert(took >= 800, `two 400 ms calls took ${Math.round(took)} ms`);
});
