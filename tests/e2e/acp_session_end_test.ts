// An editor that goes away mid-answer (closes harness acp's stdin), through the real CLI and
// the SDK's client: the turn stays in the session log (the answer so far, the call that was
// waiting, answered "interrupted"), nothing is written after session_ended, and nothing speaks
// of a full disk.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { type CliSandbox, cliSandbox } from "../helpers/run_cli.ts";
import { startAcpClient } from "../helpers/acp_client.ts";
import {
  defaultSessionDatabasePath,
  openSessionStore,
} from "../../src/sessions/open_session_store.ts";

/** The session's logged events, as `harness sessions export` writes them. */
function loggedEvents(sandbox: CliSandbox, id: string): { type: string; payload: unknown }[] {
  const store = openSessionStore({ path: defaultSessionDatabasePath(sandbox.env) });
  assert(store.ok);
  const lines: string[] = [];
  try {
    const exported = store.value.exportSession(id, (line) => lines.push(line));
    assert(exported.ok, JSON.stringify(exported));
  } finally {
    store.value.close();
  }
  return lines.map((line) => JSON.parse(line));
}

/** Closes the editor's side of the connection and waits for harness to exit. */
async function editorGoesAway(acp: ReturnType<typeof startAcpClient>): Promise<number> {
  await acp.child.stdin.close().catch(() => {});
  const status = await acp.child.status;
  return status.code;
}

Deno.test("harness acp keeps a half-streamed answer when the editor closes stdin", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("Half of the ans").hang()]);
  await using acp = startAcpClient(sandbox, ["--base-url", server.baseUrl, "--model", "m"]);
  await acp.initialize();
  const sessionId = await acp.newSession();
  void acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "explain it" }],
  }).catch(() => {});
  await acp.waitFor((n) =>
    n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" &&
    n.update.content.text.includes("Half")
  );
  assertEquals(await editorGoesAway(acp), 0);
  const stderr = await acp.stderr();
  assert(!/disk|no longer being recorded/i.test(stderr), stderr);
  const events = loggedEvents(sandbox, sessionId);
  const types = events.map((e) => e.type);
  assertEquals(types.at(-1), "session_ended", types.join(" "));
  assertEquals(types.filter((t) => t === "session_ended").length, 1);
  assert(types.includes("user_message"), types.join(" "));
  const answer = events.find((e) => e.type === "assistant_message");
  assertEquals((answer?.payload as { content?: string })?.content, "Half of the ans");
});

Deno.test("harness acp answers a call waiting for the editor 'interrupted' when stdin closes", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().text("Writing it.").toolCall("write_file", { path: "a.txt", content: "x" }),
    reply().text("never asked"),
  ]);
  await using acp = startAcpClient(sandbox, [
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--allow-read=.",
    "--allow-write=.",
  ], { permissions: ["wait"] });
  await acp.initialize();
  const sessionId = await acp.newSession();
  void acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "write a" }],
  }).catch(() => {});
  const until = Date.now() + 10_000;
  while (acp.permissionRequests.length === 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assertEquals(acp.permissionRequests.length, 1, "the call waits for the editor");
  assertEquals(await editorGoesAway(acp), 0);
  const stderr = await acp.stderr();
  assert(!/disk|no longer being recorded/i.test(stderr), stderr);
  const types = loggedEvents(sandbox, sessionId).map((e) => e.type);
  assertEquals(types.at(-1), "session_ended", types.join(" "));
  const finished = types.indexOf("tool_call_finished");
  assert(finished > types.indexOf("tool_call_requested"), types.join(" "));
  assert(finished < types.indexOf("session_ended"), types.join(" "));
  assertEquals(await Deno.stat(`${sandbox.cwd}/a.txt`).then(() => true, () => false), false);
});

Deno.test("a write to a closed session log does not speak of a full disk", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const errors: string[] = [];
    const store = openSessionStore({
      path: `${dir}/harness.db`,
      onWriteError: (error) => errors.push(JSON.stringify(error)),
    });
    assert(store.ok);
    const writer = store.value.startSession({
      model: "m",
      baseUrl: "http://x",
      cwd: dir,
      grants: "",
      provider: "openai",
    });
    assert(writer.ok);
    store.value.close();
    writer.value.record({ type: "message", message: { kind: "user", content: "late" } });
    assertEquals(errors.length, 1);
    assert(errors[0]!.includes("check the file"), errors[0]);
    assert(!/disk/i.test(errors[0]!), errors[0]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
