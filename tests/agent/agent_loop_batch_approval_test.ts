// A model turn with three calls that need approval: the real policy approver and prompter
// (scripted keys) ask about them in one prompt before any runs. Approve all runs all three,
// deny all runs none and the model gets the denials, one by one asks each; a call a rule
// allows runs and one a rule denies is never listed. Results go back in call order.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runAgentLoop } from "../../src/agent/agent_loop.ts";
import type { Message } from "../../src/messages.ts";
import { answer, callTools, ScriptedProvider } from "../../src/providers/scripted.ts";
import { discoverPlugins } from "../../src/plugin_loader/load_plugins.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { createToolHost, type ToolHost } from "../../src/sandbox/workers/tool_host.ts";
import { createPolicyApprover } from "../../src/permissions/policy_approver.ts";
import { createPrompter } from "../../src/ui/prompter.ts";
import type { KeyIO } from "../../src/permissions/prompt_types.ts";
import { EventLog, toolScope } from "../helpers/loop_host.ts";

const BASIC = fileURLToPath(new URL("../fixtures/plugins/basic/", import.meta.url));

async function openHost(): Promise<{ host: ToolHost; workspace: string } & AsyncDisposable> {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_batch_" }));
  const { files } = await discoverPlugins({
    builtinDir: null,
    userDir: null,
    cwd: workspace,
    pluginDirs: [BASIC],
  });
  const parsed = parseGrantFlags(["--allow-read=.", "--allow-write=."], { cwd: workspace });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  const { host, errors } = await createToolHost({
    grants: parsed.value.grants,
    workspace,
    dataDir: join(workspace, ".harness"),
    pluginFiles: files,
  });
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  return {
    host,
    workspace,
    async [Symbol.asyncDispose]() {
      await host.close();
      await Deno.remove(workspace, { recursive: true });
    },
  };
}

function scriptedIO(keys: string[], lines: (string | null)[] = []): KeyIO & { output: string } {
  const io = {
    output: "",
    readKey: () => Promise.resolve(keys.shift() ?? ""),
    readLine: (prompt: string) => {
      io.output += prompt;
      return Promise.resolve(lines.length > 0 ? lines.shift()! : null);
    },
    write: (text: string) => {
      io.output += text;
    },
  };
  return io;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** One turn: writes a, b and c (ask), echo (safe), and one write a rule denies. */
async function turn(keys: string[], lines: (string | null)[] = []) {
  const h = await openHost();
  const path = (name: string) => join(h.workspace, name);
  const write = (id: string, name: string, text = name) => ({
    id,
    name: "write_text",
    args: { path: path(name), text },
  });
  const provider = new ScriptedProvider([
    callTools([
      write("w1", "a.txt"),
      { id: "e", name: "echo", args: { text: "hi" } },
      write("w2", "b.txt"),
      write("w3", "c.txt", "EVIL payload"),
      write("w4", "d.txt"),
    ]),
    answer("done"),
  ]);
  const io = scriptedIO(keys, lines);
  const approver = createPolicyApprover({
    rules: [{ tool: "write_text", match: { text: "EVIL*" }, action: "deny", file: "u", index: 1 }],
    mode: "interactive",
    prompter: createPrompter({ io, color: false }),
    userPolicyFile: join(h.workspace, "user_policies.jsonc"),
    workspace: h.workspace,
  });
  const log = new EventLog();
  const conversation: Message[] = [];
  const outcome = await runAgentLoop(conversation, "go", {
    provider,
    tools: toolScope(h.host),
    approver,
    sink: log.sink,
    limits: { maxIterations: 5, maxToolCalls: 15 },
    state: {},
  }, new AbortController().signal);
  const files = {
    a: await exists(path("a.txt")),
    b: await exists(path("b.txt")),
    c: await exists(path("c.txt")),
    d: await exists(path("d.txt")),
  };
  await h[Symbol.asyncDispose]();
  const results = conversation.filter((m) => m.kind === "tool_result");
  return { outcome, io, log, files, provider, results };
}

Deno.test("runAgentLoop(): approve all at the one prompt runs every listed call", async () => {
  const { outcome, io, files, log, results } = await turn(["a"]);
  assertEquals(outcome.text, "done");
  assertEquals(io.output.match(/Permission request/g)?.length, 1, io.output);
  assert(io.output.includes("Permission request for 3 calls"), io.output);
  assert(!io.output.includes("EVIL"), "a call a rule denies is never listed");
  assertEquals(files, { a: true, b: true, c: false, d: true });
  assertEquals(outcome.toolCalls.map((c) => `${c.id}:${c.status}`), [
    "w1:succeeded",
    "e:succeeded",
    "w2:succeeded",
    "w3:denied",
    "w4:succeeded",
  ]);
  // Results in call order; one permission_decided event per call, as without the list.
  assertEquals(results.map((m) => m.kind === "tool_result" ? m.data.callId : ""), [
    "w1",
    "e",
    "w2",
    "w3",
    "w4",
  ]);
  assertEquals(log.of("permission_decided").map((e) => `${e.callId}:${e.decision.by}`), [
    "w1:user",
    "e:mode",
    "w2:user",
    "w3:policy",
    "w4:user",
  ]);
});

Deno.test("runAgentLoop(): deny all runs none of them and the model gets the denials", async () => {
  const { outcome, io, files, provider } = await turn(["d"], ["not now"]);
  assertEquals(outcome.text, "done");
  assertEquals(io.output.match(/Permission request/g)?.length, 1, io.output);
  assertEquals(files, { a: false, b: false, c: false, d: false });
  assertEquals(outcome.toolCalls.map((c) => `${c.id}:${c.status}`), [
    "w1:denied",
    "e:succeeded",
    "w2:denied",
    "w3:denied",
    "w4:denied",
  ]);
  const sent = provider.requests[1]!.filter((m) => m.kind === "tool_result");
  const denial = sent.find((m) => m.kind === "tool_result" && m.data.callId === "w2");
  assert(denial?.kind === "tool_result");
  assertEquals(denial.data.result.error_type, "permission_denied");
  assertEquals(denial.data.result.error_message, "The user denied this call: not now");
});

Deno.test("runAgentLoop(): one by one asks each call on its own prompt", async () => {
  const { io, files, outcome } = await turn(["o", "1", "4", "2"], [""]);
  assertEquals(io.output.match(/Permission request {2}write_text/g)?.length, 3, io.output);
  assertEquals(files, { a: true, b: false, c: false, d: true });
  assertEquals(outcome.toolCalls.map((c) => c.status), [
    "succeeded",
    "succeeded",
    "denied",
    "denied",
    "succeeded",
  ]);
});

Deno.test("runAgentLoop(): Ctrl-C at the one prompt runs nothing and stops the turn", async () => {
  const { io, files, outcome } = await turn(["\x03"]);
  assertEquals(io.output.match(/Permission request/g)?.length, 1, io.output);
  assertEquals(files, { a: false, b: false, c: false, d: false });
  assertEquals(outcome.stopReason, "interrupted");
  assertEquals(outcome.toolCalls.map((c) => c.status), [
    "denied",
    "cancelled",
    "cancelled",
    "cancelled",
    "cancelled",
  ]);
});
