// End-to-end tests of `harness acp`: the SDK's client drives the real CLI as a subprocess
// against the scripted model server: a whole turn with a permission prompt (each answer),
// a cancel mid-turn, loading an earlier session, file tools through the editor, bad input.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { type ContentBlock, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startAcpClient, updateKinds } from "../helpers/acp_client.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

Deno.test("harness acp runs a turn whose tool call the editor allows once", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/notes.txt`, "alpha\nbeta\n");
  await using server = startFakeLlmServer([
    reply().reasoning("Let me look.").toolCall("read_file", { path: "notes.txt" }),
    reply().text("Two lines.", { chunks: 2 }),
  ]);
  await using acp = startAcpClient(
    sandbox,
    ["--base-url", server.baseUrl, "--model", "m", "--allow-read=."],
    { permissions: ["allow_once"] },
  );
  const init = await acp.initialize();
  assertEquals(init.protocolVersion, PROTOCOL_VERSION);
  assertEquals(init.agentCapabilities?.loadSession, true);
  assertEquals(init.agentCapabilities?.promptCapabilities?.embeddedContext, true);
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: text("read notes.txt"),
  });
  assertEquals(done.stopReason, "end_turn");

  assertEquals(acp.permissionRequests.length, 1);
  const asked = acp.permissionRequests[0]!;
  assertEquals(asked.options.map((o) => o.kind), [
    "allow_once",
    "allow_always",
    "reject_once",
    "reject_always",
  ]);
  const updates = acp.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  const call = updates.find((u) => u.sessionUpdate === "tool_call");
  assert(call?.sessionUpdate === "tool_call");
  assertEquals(asked.toolCall.toolCallId, call.toolCallId);
  assertEquals([call.kind, call.status, call.title], ["read", "pending", "read_file: notes.txt"]);
  assertEquals(call.locations, [{ path: `${sandbox.cwd}/notes.txt` }]);
  const finished = updates.findLast((u) => u.sessionUpdate === "tool_call_update");
  assert(finished?.sessionUpdate === "tool_call_update");
  assertEquals(finished.status, "completed");
  const content = finished.content?.[0];
  assert(content?.type === "content" && content.content.type === "text");
  match(content.content.text, /1: alpha/);
  const chunks = updates.flatMap((u) =>
    u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []
  );
  assertEquals(chunks.join(""), "Two lines.");
  assert(updates.some((u) => u.sessionUpdate === "agent_thought_chunk"));
  await acp.waitFor((n) => n.update.sessionUpdate === "available_commands_update");
  const toolMessage = server.requests[1]?.messages.find((m) => m.role === "tool");
  assertEquals(JSON.parse(String(toolMessage?.content)).success, true);
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness acp sends a rejected call to the model as permission_denied and reject always sticks", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "x");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("I was not allowed."),
  ]);
  await using acp = startAcpClient(
    sandbox,
    ["--base-url", server.baseUrl, "--model", "m", "--allow-read=."],
    { permissions: ["reject_always"] },
  );
  await acp.initialize();
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: text("read a.txt"),
  });
  assertEquals(done.stopReason, "end_turn");
  // The second, identical call was denied without asking again.
  assertEquals(acp.permissionRequests.length, 1);
  const failed = acp.updates.map((n) => n.update).filter((u) =>
    u.sessionUpdate === "tool_call_update" && u.status === "failed"
  );
  assertEquals(failed.length, 2);
  const results = server.requests[2]!.messages.filter((m) => m.role === "tool");
  assertEquals(
    results.map((m) => JSON.parse(String(m.content)).error_type),
    ["permission_denied", "permission_denied"],
  );
});

Deno.test("harness acp saves the rule for allow always and honours --yes and deny rules", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "x");
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("Read."),
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("Read again."),
  ]);
  await using acp = startAcpClient(
    sandbox,
    ["--base-url", server.baseUrl, "--model", "m", "--allow-read=."],
    { permissions: ["allow_always"] },
  );
  await acp.initialize();
  const sessionId = await acp.newSession();
  for (const prompt of ["read a.txt", "again"]) {
    const done = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: text(prompt),
    });
    assertEquals(done.stopReason, "end_turn");
  }
  assertEquals(acp.permissionRequests.length, 1);
  const saved = await Deno.readTextFile(`${sandbox.home}/.config/harness/policies.jsonc`);
  match(saved, /"read_file"/);

  // --yes approves without asking; a deny rule still denies.
  await Deno.writeTextFile(
    `${sandbox.home}/.config/harness/policies.jsonc`,
    '{ "rules": [{ "tool": "read_file", "action": "deny", "reason": "no reading" }] }',
  );
  await using server2 = startFakeLlmServer([
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("Denied."),
  ]);
  await using yes = startAcpClient(sandbox, [
    "--base-url",
    server2.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
    "--yes",
  ]);
  await yes.initialize();
  const second = await yes.newSession();
  await yes.agent.request("session/prompt", { sessionId: second, prompt: text("x") });
  assertEquals(yes.permissionRequests.length, 0);
  const result = server2.requests[1]!.messages.find((m) => m.role === "tool");
  match(String(result?.content), /no reading/);
});

Deno.test("harness acp stops a turn on session/cancel with stop reason cancelled", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("Thinking about it").hang()]);
  await using acp = startAcpClient(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
  await acp.initialize();
  const sessionId = await acp.newSession();
  const running = acp.agent.request("session/prompt", {
    sessionId,
    prompt: text("think"),
  });
  await acp.waitFor((n) => n.update.sessionUpdate === "agent_message_chunk");
  await acp.agent.notify("session/cancel", { sessionId });
  assertEquals((await running).stopReason, "cancelled");
});

Deno.test("harness acp cancels a pending permission request and the turn on session/cancel", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "x");
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "a.txt" }),
    reply().text("never asked for"),
  ]);
  await using acp = startAcpClient(
    sandbox,
    ["--base-url", server.baseUrl, "--model", "m", "--allow-read=."],
    { permissions: ["wait"] },
  );
  await acp.initialize();
  const sessionId = await acp.newSession();
  const running = acp.agent.request("session/prompt", { sessionId, prompt: text("read") });
  while (acp.permissionRequests.length === 0) await new Promise((r) => setTimeout(r, 10));
  const asked = acp.permissionRequests[0]!;
  assertEquals(asked.toolCall.kind, "read");
  assertEquals(asked.toolCall.title, "read_file: a.txt");
  await acp.agent.notify("session/cancel", { sessionId });
  assertEquals((await running).stopReason, "cancelled");
  assertEquals(server.requests.length, 1);
});

Deno.test("harness acp loads an earlier session, replays it and goes on with its history", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", {}),
    reply().text("It is noon."),
    reply().text("Still noon."),
  ]);
  const args = ["--base-url", server.baseUrl, "--model", "m", "--yes"];
  let sessionId: string;
  {
    await using first = startAcpClient(sandbox, args);
    await first.initialize();
    sessionId = await first.newSession();
    await first.agent.request("session/prompt", { sessionId, prompt: text("time?") });
  }
  await using second = startAcpClient(sandbox, args);
  await second.initialize();
  await second.agent.request("session/load", {
    sessionId,
    cwd: sandbox.cwd,
    mcpServers: [],
  });
  const replayed = updateKinds(second.updates.filter((n) => n.sessionId === sessionId));
  assertEquals(replayed.slice(0, 4), [
    "user_message_chunk",
    "tool_call",
    "tool_call_update",
    "agent_message_chunk",
  ]);
  const done = await second.agent.request("session/prompt", {
    sessionId,
    prompt: text("and now?"),
  });
  assertEquals(done.stopReason, "end_turn");
  const sent = server.requests[2]!.messages.map((m) => m.role);
  assertEquals(sent, ["system", "user", "assistant", "tool", "assistant", "user"]);
  await assertRejectsWith(
    second.agent.request("session/load", {
      sessionId: "no-such-session",
      cwd: sandbox.cwd,
      mcpServers: [],
    }),
    /not found/i,
  );
});

Deno.test("harness acp reports prompt tokens processed and reused: usage_update, the turn's usage and /context", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().text("First answer."),
    reply().text("Second answer."),
  ], { llamaServer: { charsPerToken: 4, window: 8192 } });
  await using acp = startAcpClient(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
  await acp.initialize();
  const sessionId = await acp.newSession();
  const turns: { inputTokens: number; cachedReadTokens?: number; outputTokens: number }[] = [];
  for (const prompt of ["hello", "and again"]) {
    const done = await acp.agent.request("session/prompt", { sessionId, prompt: text(prompt) });
    assertEquals(done.stopReason, "end_turn");
    turns.push((done as { usage?: (typeof turns)[number] }).usage!);
  }
  // The second request repeats the first as its start: the server reused it.
  const [first, second] = turns;
  assertEquals(first?.cachedReadTokens, 0);
  assert(second !== undefined && second.cachedReadTokens! > first!.inputTokens / 2);
  assert(second.cachedReadTokens! < second.inputTokens);
  const usage = acp.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "usage_update");
  assertEquals(usage.length, 2);
  assertEquals(usage.map((u) => u.size), [8192, 8192]);
  assertEquals(usage[1]?.used, second.inputTokens + second.outputTokens);
  assertEquals(usage[1]?._meta?.harness, {
    prompt_tokens_processed: second.inputTokens - second.cachedReadTokens!,
    prompt_tokens_reused: second.cachedReadTokens,
  });
  const shown = await acp.agent.request("session/prompt", { sessionId, prompt: text("/context") });
  assertEquals(shown.stopReason, "end_turn");
  const reply_ = acp.updates.map((n) => n.update).findLast((u) =>
    u.sessionUpdate === "agent_message_chunk"
  );
  assert(reply_?.sessionUpdate === "agent_message_chunk" && reply_.content.type === "text");
  match(reply_.content.text, /Context window: 8,192 tokens/);
  match(reply_.content.text, /Session: [\d,]+ processed, [\d,]+ reused from the server's cache/);
  assertEquals(server.requests.length, 2); // /context asked no model
});

async function assertRejectsWith(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    match(
      error instanceof Error ? `${error.message} ${JSON.stringify(error)}` : String(error),
      pattern,
    );
    return;
  }
  throw new Error("expected a rejection");
}

Deno.test("harness acp refuses a session whose policy file misspells a tool name", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(
    `${sandbox.home}/.config/harness/policies.jsonc`,
    '{ "rules": [{ "tool": "run_comand", "action": "deny" }] }',
  );
  await using server = startFakeLlmServer([]);
  await using acp = startAcpClient(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
  await acp.initialize();
  await assertRejectsWith(acp.newSession(), /run_comand.*run_command/s);
});
