// End-to-end tests of `harness acp` with an editor's file system: file tools read and write
// through fs/* within the Deno grants, edits show diffs, prompts carry resources, the task
// list becomes a plan, and stdout carries nothing but JSON-RPC even when a tool prints.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import type { ContentBlock, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startAcpClient } from "../helpers/acp_client.ts";

const text = (t: string): ContentBlock[] => [{ type: "text", text: t }];

function finishedContent(updates: SessionUpdate[]): ToolCallContent[][] {
  return updates.flatMap((u) =>
    u.sessionUpdate === "tool_call_update" && u.status !== "in_progress" && u.content
      ? [u.content]
      : []
  );
}

Deno.test("harness acp reads and writes files through the editor within the grants", async () => {
  await using sandbox = await cliSandbox();
  const notes = `${sandbox.cwd}/notes.txt`;
  await Deno.writeTextFile(notes, "disk alpha\n");
  const buffers = new Map([[notes, "buffer alpha\nbeta\n"]]);
  await using server = startFakeLlmServer([
    reply()
      .toolCall("read_file", { path: "notes.txt" })
      .toolCall("write_file", { path: "out.txt", content: "new\n" })
      .toolCall("edit_file", { path: "notes.txt", old_string: "beta", new_string: "gamma" }),
    reply().text("Done."),
  ]);
  await using acp = startAcpClient(
    sandbox,
    ["--base-url", server.baseUrl, "--model", "m", "--yes", "--allow-read=.", "--allow-write=."],
    { editorFiles: buffers },
  );
  await acp.initialize();
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", { sessionId, prompt: text("go") });
  assertEquals(done.stopReason, "end_turn");
  // An edit's preview (for the diagnostics after it) reads the buffer too: the tool's plan,
  // then the text before.
  assertEquals(acp.fsCalls, [
    `read ${notes}`,
    `read ${sandbox.cwd}/out.txt`,
    `write ${sandbox.cwd}/out.txt`,
    `read ${notes}`,
    `read ${notes}`,
    `read ${notes}`,
    `write ${notes}`,
  ]);
  const results = server.requests[1]!.messages.filter((m) => m.role === "tool")
    .map((m) => JSON.parse(String(m.content)));
  assertEquals(results.map((r) => r.success), [true, true, true]);
  match(results[0].data, /1: buffer alpha/);
  // The editor has the changes; the disk does not.
  assertEquals(buffers.get(`${sandbox.cwd}/out.txt`), "new\n");
  assertEquals(buffers.get(notes), "buffer alpha\ngamma\n");
  assertEquals(await Deno.readTextFile(notes), "disk alpha\n");
  const diffs = finishedContent(acp.updates.map((n) => n.update)).flat().filter((c) =>
    c.type === "diff"
  );
  assertEquals(diffs.map((d) => d.type === "diff" && [d.path, d.oldText, d.newText]), [
    [`${sandbox.cwd}/out.txt`, null, "new\n"],
    [notes, "buffer alpha\nbeta\n", "buffer alpha\ngamma\n"],
  ]);
});

Deno.test("harness acp never asks the editor for a file the grants do not cover", async () => {
  await using sandbox = await cliSandbox();
  const notes = `${sandbox.cwd}/notes.txt`;
  const buffers = new Map([[notes, "secret\n"]]);
  // A link inside the granted folder to a file outside it.
  await Deno.mkdir(`${sandbox.cwd}/public`);
  await Deno.writeTextFile(notes, "secret\n");
  await Deno.symlink(notes, `${sandbox.cwd}/public/link.txt`);
  buffers.set(`${sandbox.cwd}/public/link.txt`, "secret\n");
  await using server = startFakeLlmServer([
    reply()
      .toolCall("read_file", { path: "notes.txt" })
      .toolCall("write_file", { path: "notes.txt", content: "x" })
      .toolCall("read_file", { path: "../outside.txt" })
      .toolCall("read_file", { path: "public/link.txt" })
      .toolCall("write_file", { path: "public/link.txt", content: "overwritten" }),
    reply().text("Denied."),
  ]);
  await using acp = startAcpClient(
    sandbox,
    [
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      `--allow-read=${sandbox.cwd}/public`,
      `--allow-write=${sandbox.cwd}/public`,
    ],
    { editorFiles: buffers },
  );
  await acp.initialize();
  const sessionId = await acp.newSession();
  await acp.agent.request("session/prompt", { sessionId, prompt: text("go") });
  assertEquals(acp.fsCalls, []);
  const results = server.requests[1]!.messages.filter((m) => m.role === "tool")
    .map((m) => JSON.parse(String(m.content)));
  assertEquals(results.map((r) => r.error_type), [
    "permission_denied",
    "permission_denied",
    "validation_failed",
    "permission_denied",
    "permission_denied",
  ]);
  match(results[0].error_message, /--allow-read=/);
  assertEquals(buffers.get(notes), "secret\n");
});

Deno.test("harness acp shows a sandboxed edit as a diff, a prompt's resources, and tasks as a plan", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "one\n");
  await using server = startFakeLlmServer([
    reply()
      .toolCall("edit_file", { path: "a.txt", old_string: "one", new_string: "two" })
      .toolCall("add_task", { content: "Check the edit" }),
    reply().text("Edited."),
  ]);
  await using acp = startAcpClient(sandbox, [
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    "--allow-read=.",
    "--allow-write=.",
  ]);
  await acp.initialize();
  const sessionId = await acp.newSession();
  await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [
      { type: "text", text: "Change it" },
      { type: "resource_link", uri: `file://${sandbox.cwd}/a.txt`, name: "a.txt" },
      { type: "resource", resource: { uri: `file://${sandbox.cwd}/b.txt`, text: "bee" } },
    ],
  });
  assertEquals(await Deno.readTextFile(`${sandbox.cwd}/a.txt`), "two\n");
  const updates = acp.updates.map((n) => n.update);
  const diffs = finishedContent(updates).flat().filter((c) => c.type === "diff");
  assertEquals(diffs.map((d) => d.type === "diff" && [d.path, d.oldText, d.newText]), [
    [`${sandbox.cwd}/a.txt`, "one\n", "two\n"],
  ]);
  const edit = updates.find((u) => u.sessionUpdate === "tool_call");
  assert(edit?.sessionUpdate === "tool_call");
  assertEquals(edit.kind, "edit");
  const plan = updates.findLast((u) => u.sessionUpdate === "plan");
  assert(plan?.sessionUpdate === "plan");
  assertEquals(plan.entries.map((e) => [e.content, e.status]), [["Check the edit", "pending"]]);
  const user = String(server.requests[0]!.messages.at(-1)?.content);
  match(user, /Change it/);
  // A link to a workspace file is attached as read_file gives it (acp_prompt_test.ts).
  match(user, /<file path="a\.txt">\n1: one\n<\/file>/);
  match(user, /bee/);
});

Deno.test("harness acp answers malformed messages with JSON-RPC errors and keeps stdout clean", async () => {
  await using sandbox = await cliSandbox();
  const plugins = `${sandbox.home}/noisy_plugins`;
  await Deno.mkdir(plugins, { recursive: true });
  await Deno.writeTextFile(
    `${plugins}/noisy.js`,
    `export default ({ z, defineTool }) => defineTool({
  name: "noisy", description: "Prints to stdout.", risk: "medium",
  parameters: z.object({}),
  run: () => { console.log("noise from a tool"); return { output: "ok" }; },
});\n`,
  );
  await using server = startFakeLlmServer([reply().toolCall("noisy", {}), reply().text("Quiet.")]);
  const child = sandbox.spawn([
    "acp",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--plugins",
    plugins,
  ]);
  const writer = child.stdin.getWriter();
  const send = (line: string) => writer.write(new TextEncoder().encode(`${line}\n`));
  const lines: string[] = [];
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const next = async (test: (message: Record<string, unknown>) => boolean) => {
    for (;;) {
      for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        lines.push(line);
        const message = JSON.parse(line);
        if (test(message)) return message;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`stdout ended; lines: ${lines.join("\n")}`);
      buffer += value;
    }
  };
  const byId = (id: unknown) => (m: Record<string, unknown>) => m.id === id && !("method" in m);

  await send("this is not json");
  const parse = await next((m) => "error" in m && m.id === null);
  assertEquals((parse.error as { code: number }).code, -32700);
  // Before initialize, requests are refused as invalid; after it, unknown methods are unknown.
  await send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: {} }));
  assertEquals(((await next(byId(1))).error as { code: number }).code, -32600);
  await send(JSON.stringify({
    jsonrpc: "2.0",
    id: 2,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: {} },
  }));
  assert("result" in await next(byId(2)));
  await send(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "no/such_method", params: {} }));
  assertEquals(((await next(byId(8))).error as { code: number }).code, -32601);
  await send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: {} }));
  assertEquals(((await next(byId(3))).error as { code: number }).code, -32602);
  await send(JSON.stringify({
    jsonrpc: "2.0",
    id: 4,
    method: "session/prompt",
    params: { sessionId: "nope", prompt: [{ type: "text", text: "hi" }] },
  }));
  assert("error" in await next(byId(4)));
  await send(JSON.stringify({
    jsonrpc: "2.0",
    id: 5,
    method: "session/new",
    params: { cwd: "relative/path", mcpServers: [] },
  }));
  assert("error" in await next(byId(5)));
  await send(JSON.stringify({
    jsonrpc: "2.0",
    id: 6,
    method: "session/new",
    params: { cwd: sandbox.cwd, mcpServers: [] },
  }));
  const sessionId = ((await next(byId(6))).result as { sessionId: string }).sessionId;
  await send(JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "session/prompt",
    params: { sessionId, prompt: [{ type: "text", text: "make noise" }] },
  }));
  // The tool asks: answer the permission request the agent sends.
  const ask = await next((m) => m.method === "session/request_permission");
  await send(JSON.stringify({
    jsonrpc: "2.0",
    id: ask.id,
    result: { outcome: { outcome: "selected", optionId: "allow_once" } },
  }));
  const done = await next(byId(7));
  assertEquals((done.result as { stopReason: string }).stopReason, "end_turn");
  for (const line of lines) assertEquals(JSON.parse(line).jsonrpc, "2.0");
  assertEquals(server.requests.length, 2);
  await writer.close();
  reader.releaseLock();
  await child.stdout.cancel().catch(() => {});
  const stderr = await new Response(child.stderr).text();
  await child.status;
  match(stderr, /noise from a tool/);
});

Deno.test("harness acp reads a loaded skill's folder by path in the sandbox, not through the editor", async () => {
  await using sandbox = await cliSandbox();
  const folder = `${sandbox.home}/.claude/skills/pdf`;
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(
    `${folder}/SKILL.md`,
    "---\nname: pdf\ndescription: PDFs\n---\nRead ref.md",
  );
  await Deno.writeTextFile(`${folder}/ref.md`, "REF-CONTENT\n");
  const real = await Deno.realPath(folder);
  await using server = startFakeLlmServer([
    reply().toolCall("skill", { name: "pdf" }),
    reply().toolCall("read_file", { path: `${real}/ref.md` }),
    reply().text("Done."),
  ]);
  await using acp = startAcpClient(
    sandbox,
    ["--base-url", server.baseUrl, "--model", "m", "--yes", "--allow-read=."],
    { editorFiles: new Map() },
  );
  await acp.initialize();
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", { sessionId, prompt: text("go") });
  assertEquals(done.stopReason, "end_turn");
  const read = JSON.parse(String(server.requests[2]!.messages.at(-1)!.content));
  assert(read.success && read.data.includes("REF-CONTENT"), JSON.stringify(read));
  assertEquals(acp.fsCalls, [], "a file outside the workspace is not the editor's to give");
});

Deno.test({
  name: "harness acp lets read_file open the full output a cut result names, and no other",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using sandbox = await cliSandbox();
    // The second request reads the path the cut result named; the third a sibling of the
    // saved outputs in harness's data folder, which stays refused.
    const savedPath = (request: { messages: { role: string; content?: unknown }[] }) => {
      const result = JSON.parse(String(request.messages.at(-1)!.content));
      return String(result.metadata?.truncated?.full_output_path ?? "none");
    };
    let saved = "";
    await using server = startFakeLlmServer((request, number) => {
      if (number === 1) return reply().toolCall("run_command", { command: "seq 1 20000" });
      if (number === 2) {
        saved = savedPath(request);
        return reply().toolCall("read_file", { path: saved, offset: 19999, limit: 2 });
      }
      if (number === 3) {
        return reply().toolCall("read_file", { path: `${sandbox.env.XDG_DATA_HOME}/x` });
      }
      return reply().text("Done.");
    });
    await Deno.mkdir(sandbox.env.XDG_DATA_HOME!, { recursive: true });
    await Deno.writeTextFile(`${sandbox.env.XDG_DATA_HOME}/x`, "secret\n");
    await using acp = startAcpClient(
      sandbox,
      ["--base-url", server.baseUrl, "--model", "m", "--yes", "--allow-read=.", "--allow-run"],
      { editorFiles: new Map() },
    );
    await acp.initialize();
    const sessionId = await acp.newSession();
    const done = await acp.agent.request("session/prompt", { sessionId, prompt: text("go") });
    assertEquals(done.stopReason, "end_turn");
    assert(saved.startsWith(sandbox.env.XDG_DATA_HOME!), saved);
    const read = JSON.parse(String(server.requests[2]!.messages.at(-1)!.content));
    assert(read.success && read.data.startsWith("19999: 19999"), JSON.stringify(read));
    const other = JSON.parse(String(server.requests[3]!.messages.at(-1)!.content));
    assert(!other.success && !JSON.stringify(other).includes("secret"), JSON.stringify(other));
    assertEquals(acp.fsCalls, [], "harness's saved outputs are not the editor's to give");
  },
});
