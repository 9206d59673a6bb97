// Subagents and plan mode as an editor sees them (`harness acp`, the SDK's real client): a
// child's calls are tool calls of their own, titled with the agent, with their own updates,
// and its permission request names the subagent; plan mode is a session mode the editor
// switches, told with current_mode_update, and the task list shows as plan updates.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { type FakeLlmServer, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";
import {
  type AcpClientOptions,
  type AcpTestClient,
  startAcpClient,
} from "../helpers/acp_client.ts";
import { subagentResponder } from "../helpers/subagent_script.ts";
import { hasCommand } from "../helpers/system_commands.ts";

const confined = Deno.build.os === "linux" && hasCommand("bwrap");

/** `harness acp` on the scripted server, reading and writing the sandbox's folder. */
function startHarnessAcp(
  sandbox: CliSandbox,
  server: FakeLlmServer,
  extra: string[],
  options: AcpClientOptions,
): AcpTestClient {
  const args = ["--base-url", server.baseUrl, "--model", "m", "--allow-read=.", "--allow-write=."];
  return startAcpClient(sandbox, [...args, ...extra], options);
}

/** The diffs the editor was shown, each with the call it came on. */
function callDiffs(
  acp: AcpTestClient,
): [string, { path: string; oldText?: string | null; newText: string }][] {
  return acp.updates.map((n) => n.update).flatMap((u) =>
    u.sessionUpdate === "tool_call_update" && u.content
      ? u.content.flatMap((c) => c.type === "diff" ? [[u.toolCallId, c] as [string, typeof c]] : [])
      : []
  );
}

/** Switches a session to plan mode, waits until the editor is told, and prompts "Plan it". */
async function planIt(acp: AcpTestClient, sessionId: string) {
  await acp.agent.request("session/set_mode", { sessionId, modeId: "plan" });
  await acp.waitFor((n) =>
    n.update.sessionUpdate === "current_mode_update" && n.update.currentModeId === "plan"
  );
  return await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "Plan it" }],
  });
}

Deno.test("ACP: a subagent's calls are tool calls of their own, asked about by name", async () => {
  await using sandbox = await cliSandbox();
  await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "alpha\n");
  const task = "Read a.txt and note it";
  await using server = startFakeLlmServer(subagentResponder({
    parent: [
      reply().toolCall("task", { agent: "general", prompt: task }),
      reply().text("Done."),
    ],
    children: {
      [task]: [
        reply().toolCall("read_file", { path: "a.txt" }),
        reply().toolCall("write_file", { path: "note.txt", content: "alpha\n" }),
        reply().text("a.txt says alpha; wrote note.txt."),
      ],
    },
  }));
  await using acp = startHarnessAcp(sandbox, server, [], {
    permissions: ["allow_once", "allow_once"],
  });
  await acp.initialize();
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "Use a subagent" }],
  });
  assertEquals(done.stopReason, "end_turn");
  const calls = acp.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "tool_call");
  const titles = calls.map((u) => "title" in u ? u.title : "");
  assertEquals(titles, [
    `task: ${task}`,
    "general: read_file: a.txt",
    "general: write_file: note.txt",
  ]);
  const ids = calls.map((u) => "toolCallId" in u ? u.toolCallId : "");
  assert(ids[1]!.startsWith("1/") && ids[2]!.startsWith("1/"), ids.join());
  // The child's calls finished with their own updates, the task's after them.
  const finished = acp.updates.map((n) => n.update).filter((u) =>
    u.sessionUpdate === "tool_call_update" && "status" in u && u.status === "completed"
  ).map((u) => "toolCallId" in u ? u.toolCallId : "");
  assertEquals(finished, [ids[1], ids[2], ids[0]]);
  // read_file and write_file ask: through the editor, naming the subagent and its own call.
  const asked = acp.permissionRequests.map((r) => [r.toolCall.toolCallId, r.toolCall.title]);
  assertEquals(asked, [
    [ids[1], 'subagent "general" (task 1): read_file: a.txt'],
    [ids[2], 'subagent "general" (task 1): write_file: note.txt'],
  ]);
  assertEquals(await Deno.readTextFile(`${sandbox.cwd}/note.txt`), "alpha\n");
  // An editor without a file system sees the child's edit as a diff on the child's own call,
  // as it sees its parent's (the disk's diff stages of the session).
  assertEquals(callDiffs(acp).map(([id, d]) => [id, d.path]), [[
    ids[2],
    `${sandbox.cwd}/note.txt`,
  ]]);
});

Deno.test({
  name: "ACP: plan mode is a session mode; the task list stays and shows as plan updates",
  ignore: !confined,
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(`${sandbox.cwd}/a.txt`, "before\n");
    await using server = startFakeLlmServer([
      reply().toolCall("add_task", { content: "Read a.txt" }),
      reply().toolCall("write_file", { path: "a.txt", content: "after\n" }),
      reply().text("Planned."),
      reply().text("Implementing."),
    ]);
    await using acp = startHarnessAcp(sandbox, server, ["--yes"], { permissions: ["implement"] });
    await acp.initialize();
    const created = await acp.agent.request("session/new", { cwd: sandbox.cwd, mcpServers: [] });
    assertEquals(created.modes?.currentModeId, "default");
    assertEquals(created.modes?.availableModes.map((m) => m.id), ["default", "plan"]);
    const sessionId = created.sessionId;
    assertEquals((await planIt(acp, sessionId)).stopReason, "end_turn");
    assertEquals(await Deno.readTextFile(`${sandbox.cwd}/a.txt`), "before\n");
    match(String(server.requests[0]?.messages.at(-1)?.content), /\[Plan mode is on:/);
    const results = (server.requests[2]?.messages ?? []).filter((m) => m.role === "tool");
    assertEquals(JSON.parse(String(results.at(-1)?.content)).error_type, "permission_denied");
    const plans = acp.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "plan");
    assertEquals(plans.map((u) => "entries" in u ? u.entries.map((e) => e.content) : []), [
      ["Read a.txt"],
    ]);
    await acp.agent.request("session/set_mode", { sessionId, modeId: "default" });
    await acp.waitFor((n) =>
      n.update.sessionUpdate === "current_mode_update" && n.update.currentModeId === "default"
    );
    // Implement now: the next prompt tells the model, after everything before it.
    await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Go" }],
    });
    const next = server.requests[3]!.messages;
    assertEquals(next.length, server.requests[2]!.messages.length + 2);
    match(String(next.at(-1)?.content), /^Go\n\n\[Plan mode is off: .*Carry out the plan in /);
  },
});

Deno.test({
  name: "ACP: leaving plan mode shows the plan and asks: keep planning, then start fresh",
  ignore: !confined,
  async fn() {
    await using sandbox = await cliSandbox();
    let plan = "";
    await using server = startFakeLlmServer((request, n) => {
      if (n === 1) plan = /Write your plan to (\S+) with/.exec(JSON.stringify(request))?.[1] ?? "";
      const script = [
        () => reply().toolCall("write_file", { path: plan, content: "# Plan\nchange a.txt\n" }),
        () => reply().text("Planned."),
        () => reply().text("On it."),
      ];
      return script[n - 1]?.();
    });
    await using acp = startHarnessAcp(sandbox, server, ["--yes"], {
      permissions: ["keep", "fresh"],
    });
    await acp.initialize();
    const sessionId = await acp.newSession();
    const modeNow = () =>
      acp.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "current_mode_update")
        .map((u) => "currentModeId" in u ? u.currentModeId : "");
    await acp.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    const prompt = (text: string) =>
      acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    assertEquals((await prompt("Plan the change")).stopReason, "end_turn");
    // Keep planning: the mode stays plan, and the editor is told so.
    await acp.agent.request("session/set_mode", { sessionId, modeId: "default" });
    await acp.waitFor(() => modeNow().length === 2);
    assertEquals(modeNow(), ["plan", "plan"]);
    const asked = acp.permissionRequests[0]!;
    assertEquals(asked.toolCall.kind, "switch_mode");
    assertEquals(asked.options.map((o) => o.optionId), ["implement", "fresh", "keep"]);
    const shown = acp.updates.map((n) => n.update).find((u) =>
      u.sessionUpdate === "tool_call" && u.toolCallId === asked.toolCall.toolCallId
    );
    match(JSON.stringify(shown), /# Plan\\nchange a\.txt/);
    // Start fresh: the next request holds the system prompt and the plan, nothing else.
    await acp.agent.request("session/set_mode", { sessionId, modeId: "default" });
    await acp.waitFor(() => modeNow().length === 3);
    assertEquals(modeNow(), ["plan", "plan", "default"]);
    assertEquals((await prompt("Go")).stopReason, "end_turn");
    const fresh = server.requests[2]!.messages;
    assertEquals(fresh.map((m) => m.role), ["system", "user"]);
    match(String(fresh[1]!.content), /^Go\n\n[^]*Implement this plan:\n\n# Plan\nchange a\.txt/);
    match(String(fresh[1]!.content), /\[Plan mode is off: you may change files again\.\]/);
  },
});

Deno.test("ACP: a subagent's edits go to the editor's buffers, within its agent's paths", async () => {
  await using sandbox = await cliSandbox();
  const notes = `${sandbox.cwd}/notes.txt`;
  await Deno.writeTextFile(notes, "disk alpha\n");
  const buffers = new Map([[notes, "buffer alpha\n"]]);
  await Deno.mkdir(`${sandbox.home}/.claude/agents`, { recursive: true });
  await Deno.mkdir(`${sandbox.cwd}/docs`);
  // The user's agent: it may write only docs/.
  await Deno.writeTextFile(
    `${sandbox.home}/.claude/agents/scribe.md`,
    "---\nname: scribe\ndescription: Writes notes\nwrite: [docs]\n---\nWrite what you are asked.\n",
  );
  const task = "Copy notes.txt into docs";
  await using server = startFakeLlmServer(subagentResponder({
    parent: [
      reply().toolCall("task", { agent: "scribe", prompt: task }),
      reply().text("Done."),
    ],
    children: {
      [task]: [
        reply().toolCall("read_file", { path: "notes.txt" })
          .toolCall("write_file", { path: "docs/copy.txt", content: "buffer alpha\n" })
          .toolCall("write_file", { path: "notes.txt", content: "overwritten\n" }),
        reply().text("Copied."),
      ],
    },
  }));
  await using acp = startHarnessAcp(sandbox, server, ["--yes"], { editorFiles: buffers });
  await acp.initialize();
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "Use a subagent" }],
  });
  assertEquals(done.stopReason, "end_turn");
  // The child read the buffer and wrote through the editor, as its parent would have.
  assert(acp.fsCalls.includes(`read ${notes}`), acp.fsCalls.join("\n"));
  assert(acp.fsCalls.includes(`write ${sandbox.cwd}/docs/copy.txt`), acp.fsCalls.join("\n"));
  assertEquals(buffers.get(`${sandbox.cwd}/docs/copy.txt`), "buffer alpha\n");
  // Outside its agent's paths the editor is never asked: its gate refuses first.
  assert(!acp.fsCalls.includes(`write ${notes}`), acp.fsCalls.join("\n"));
  assertEquals(buffers.get(notes), "buffer alpha\n");
  await Deno.stat(`${sandbox.cwd}/docs/copy.txt`).then(
    () => assert(false, "the subagent wrote the disk, not the editor's buffer"),
    () => {},
  );
  // Its edit shows as a diff on its own call.
  assertEquals(
    callDiffs(acp).map(([id, d]) => [id.startsWith("1/"), d.path, d.oldText, d.newText]),
    [
      [true, `${sandbox.cwd}/docs/copy.txt`, null, "buffer alpha\n"],
    ],
  );
});

Deno.test({
  name: "ACP attack: in plan mode the editor's file system writes nothing but the plan",
  ignore: !confined,
  async fn() {
    await using sandbox = await cliSandbox();
    const notes = `${sandbox.cwd}/notes.txt`;
    await Deno.writeTextFile(notes, "disk\n");
    const buffers = new Map([[notes, "buffer\n"]]);
    await using server = startFakeLlmServer([
      reply().toolCall("write_file", { path: "notes.txt", content: "planted\n" })
        .toolCall("edit_file", { path: "notes.txt", old_string: "buffer", new_string: "x" })
        .toolCall("write_file", { path: "new.txt", content: "planted\n" }),
      reply().text("Planned."),
    ]);
    await using acp = startHarnessAcp(sandbox, server, ["--yes"], { editorFiles: buffers });
    await acp.initialize();
    const sessionId = await acp.newSession();
    assertEquals((await planIt(acp, sessionId)).stopReason, "end_turn");
    const results = (server.requests[1]?.messages ?? []).filter((m) => m.role === "tool")
      .map((m) => JSON.parse(String(m.content)));
    assertEquals(results.map((r) => r.error_type), [
      "permission_denied",
      "permission_denied",
      "permission_denied",
    ]);
    assert(!acp.fsCalls.some((call) => call.startsWith("write ")), acp.fsCalls.join("\n"));
    assertEquals([buffers.get(notes), buffers.has(`${sandbox.cwd}/new.txt`)], ["buffer\n", false]);
    assertEquals(await Deno.readTextFile(notes), "disk\n");
  },
});
