// The real CLI with a model that makes three write_file calls in one turn: the REPL asks
// about them in one prompt (piped input and a real terminal), -p keeps denying with advice and
// -p --yes runs them without a prompt. ACP's permission request names one tool call, so an
// editor is still asked once per call.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startPty } from "../helpers/pty.ts";
import { startAcpClient } from "../helpers/acp_client.ts";

const threeWrites = () =>
  reply()
    .toolCall("write_file", { path: "a.txt", content: "A" })
    .toolCall("write_file", { path: "b.txt", content: "B" })
    .toolCall("write_file", { path: "c.txt", content: "C" });

async function written(cwd: string): Promise<string[]> {
  const names = [];
  for (const name of ["a.txt", "b.txt", "c.txt"]) {
    if (await Deno.stat(`${cwd}/${name}`).then(() => true, () => false)) names.push(name);
  }
  return names;
}

const ARGS = ["--model", "m", "--allow-read=.", "--allow-write=."];

Deno.test("REPL: three writes in one turn are asked about once; approve all runs them", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([threeWrites(), reply().text("Wrote three.")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, ...ARGS], {
    stdin: "write three files\na\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout.match(/Permission request/g)?.length, 1, out.stdout);
  match(out.stdout, /Permission request for 3 calls/);
  match(out.stdout, /3\. write_file {2}\{"path": "c.txt", "content": "C"\}/);
  match(out.stdout, /Wrote three\./);
  assertEquals(await written(sandbox.cwd), ["a.txt", "b.txt", "c.txt"]);
  assertEquals(server.pairingErrors, []);
});

Deno.test("REPL: deny all runs none and tells the model why, in call order", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([threeWrites(), reply().text("Understood.")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, ...ARGS], {
    stdin: "write three files\nd\nnot today\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  assertEquals(await written(sandbox.cwd), []);
  const results = server.requests[1]!.messages.filter((m) => m.role === "tool");
  assertEquals(results.length, 3);
  for (const result of results) {
    const body = JSON.parse(String(result.content));
    assertEquals(body.error_type, "permission_denied");
    assertEquals(body.error_message, "The user denied this call: not today");
  }
  assertEquals(server.pairingErrors, []);
});

Deno.test("REPL: one by one gives each write its own prompt", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([threeWrites(), reply().text("Some.")]);
  const out = await sandbox.run(["--base-url", server.baseUrl, ...ARGS], {
    stdin: "write three files\no\n1\n4\n\n1\n/exit\n",
  });
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout.match(/Permission request {2}write_file/g)?.length, 3, out.stdout);
  assertEquals(await written(sandbox.cwd), ["a.txt", "c.txt"]);
});

Deno.test("harness -p without --yes still denies each call with advice; with --yes all run", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    threeWrites(),
    reply().text("Could not."),
    threeWrites(),
    reply().text("Done."),
  ]);
  const denied = await sandbox.run(["-p", "write", "--base-url", server.baseUrl, ...ARGS]);
  assertEquals(denied.code, 0, denied.stderr);
  assert(!denied.stdout.includes("Permission request"), denied.stdout);
  assertEquals(await written(sandbox.cwd), []);
  const results = server.requests[1]!.messages.filter((m) => m.role === "tool");
  assertEquals(results.length, 3);
  for (const result of results) match(String(result.content), /needs approval/);
  const yes = await sandbox.run(["-p", "write", "--yes", "--base-url", server.baseUrl, ...ARGS]);
  assertEquals(yes.code, 0, yes.stderr);
  assert(!yes.stdout.includes("Permission request"), yes.stdout);
  assertEquals(await written(sandbox.cwd), ["a.txt", "b.txt", "c.txt"]);
});

Deno.test({
  name: "REPL on a terminal: one key approves all; Ctrl-C at the list runs nothing",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([
      threeWrites(),
      threeWrites(),
      reply().text("All written."),
    ]);
    await using pty = startPty(sandbox, ["--base-url", server.baseUrl, ...ARGS]);
    await pty.waitFor((out) => out.includes("> "), "the prompt");
    await pty.type("write three\r");
    await pty.waitFor((out) => out.includes("[o] One by one"), "the list prompt");
    await pty.type("\x03");
    await pty.waitFor((out) => out.includes("^C"), "the Ctrl-C echo");
    await pty.waitFor((out) => out.split("\n").at(-1)!.includes(">"), "the prompt again");
    assertEquals(await written(sandbox.cwd), []);
    await pty.type("again\r");
    await pty.waitFor(
      (out) => out.split("[o] One by one").length === 3,
      "the second list prompt",
    );
    await pty.type("a");
    await pty.waitFor((out) => out.includes("All written."), "the answer");
    assertEquals(await written(sandbox.cwd), ["a.txt", "b.txt", "c.txt"]);
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});

Deno.test("harness acp still sends one permission request per call", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([threeWrites(), reply().text("Two of three.")]);
  await using acp = startAcpClient(sandbox, ["--base-url", server.baseUrl, ...ARGS], {
    permissions: ["allow_once", "reject_once", "allow_once"],
  });
  await acp.initialize();
  const sessionId = await acp.newSession();
  const done = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "write three" }],
  });
  assertEquals(done.stopReason, "end_turn");
  assertEquals(acp.permissionRequests.length, 3);
  assertEquals(new Set(acp.permissionRequests.map((r) => r.toolCall.toolCallId)).size, 3);
  assertEquals(await written(sandbox.cwd), ["a.txt", "c.txt"]);
});
