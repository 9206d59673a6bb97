// End-to-end: a scripted model calls MCP tools through the real CLI, in -p and in the REPL,
// against real stdio servers (the misbehaving fixture and @modelcontextprotocol/server-everything).

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine, watchOutput } from "../helpers/run_cli.ts";
import { DENO_READ } from "../helpers/deno_in_sandbox.ts";

const FIXTURE = new URL("../fixtures/mcp/misbehaving_server.ts", import.meta.url).pathname;
const DENO = Deno.execPath();

async function writeConfig(home: string, servers: Record<string, unknown>): Promise<void> {
  await Deno.mkdir(`${home}/.config/harness`, { recursive: true });
  await Deno.writeTextFile(
    `${home}/.config/harness/config.jsonc`,
    `// mine\n${JSON.stringify({ mcp_servers: servers }, null, 2)}\n`,
  );
}

function offeredTools(tools: unknown[] | undefined): string[] {
  return (tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
}

/**
 * The fixture server; it runs in the command sandbox, which lets it read Deno, this repository
 * and the folder it starts in.
 */
const fixtureServer = {
  command: DENO,
  args: ["run", "-A", "--no-prompt", FIXTURE],
  sandbox: { read: [...DENO_READ, "."], env: ["DENO_DIR"] },
};

Deno.test("harness -p calls an MCP tool named SERVER__tool and logs it in the session", async () => {
  await using sandbox = await cliSandbox();
  await writeConfig(sandbox.home, { bad: fixtureServer });
  await using server = startFakeLlmServer([
    reply().toolCall("bad__echo", { text: "from the model" }),
    reply().text("It echoed."),
  ]);
  const out = await sandbox.run([
    "-p",
    "echo something",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    `--allow-run=${DENO}`,
  ]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  const calls = json.tool_calls as { name: string; result: { success: boolean; data: string } }[];
  assertEquals(calls[0]?.name, "bad__echo");
  assertEquals(calls[0]?.result.data, "echo: from the model");
  const offered = offeredTools(server.requests[0]?.tools);
  assert(offered.includes("bad__echo"), offered.join());
  assertEquals(server.pairingErrors, []);
  // The call is in the session log like any other.
  const exported = await sandbox.run(["sessions", "export", String(json.session_id)]);
  match(exported.stdout, /bad__echo/);
  match(exported.stdout, /echo: from the model/);
});

Deno.test("harness -p says which flag a stdio MCP server needs and runs without it", async () => {
  await using sandbox = await cliSandbox();
  await writeConfig(sandbox.home, { bad: fixtureServer });
  await using server = startFakeLlmServer([reply().text("No tools.")]);
  const out = await sandbox.run(["-p", "hi", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(out.code, 0, out.stderr);
  match(out.stderr, new RegExp(`MCP server "bad" was not started: .*--allow-run=${DENO}`));
  const offered = offeredTools(server.requests[0]?.tools);
  assert(!offered.some((name) => name.startsWith("bad__")));
});

Deno.test("harness -p asks the policy about MCP tools: a rule on SERVER__* denies them", async () => {
  await using sandbox = await cliSandbox();
  await writeConfig(sandbox.home, { bad: fixtureServer });
  await Deno.writeTextFile(
    `${sandbox.home}/.config/harness/policies.jsonc`,
    JSON.stringify({ rules: [{ tool: "bad__*", action: "deny" }] }),
  );
  await using server = startFakeLlmServer([
    reply().toolCall("bad__echo", { text: "x" }),
    reply().text("Denied."),
  ]);
  const out = await sandbox.run([
    "-p",
    "echo",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--yes",
    `--allow-run=${DENO}`,
  ]);
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as {
    result: { success: boolean; error_type: string };
  }[];
  assertEquals(calls[0]?.result.error_type, "permission_denied");
});

Deno.test("the REPL calls an MCP tool, and /mcp and /tools show the server", async () => {
  await using sandbox = await cliSandbox();
  await writeConfig(sandbox.home, { bad: fixtureServer });
  await using server = startFakeLlmServer([
    reply().toolCall("bad__echo", { text: "repl" }),
    reply().text("Echo done."),
  ]);
  const child = sandbox.spawn([
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--yes",
    `--allow-run=${DENO}`,
  ]);
  const stdin = child.stdin.getWriter();
  await stdin.write(new TextEncoder().encode("please echo\n/mcp\n/tools\n/exit\n"));
  await stdin.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, stderr);
  match(stdout + stderr, /bad__echo/);
  match(stdout, /Echo done\./);
  match(stdout, /bad {2}ready in [\d.]+ s {2}\d+ tools/);
  match(stdout, /bad__echo\s+safe\s+\[mcp:bad\]/);
  const toolMessage = server.requests[1]?.messages.find((m) => m.role === "tool");
  match(String(toolMessage?.content), /echo: repl/);
});

Deno.test("a resumed session starts its MCP servers again and calls them", async () => {
  await using sandbox = await cliSandbox();
  await writeConfig(sandbox.home, { bad: fixtureServer });
  await using server = startFakeLlmServer([
    reply().toolCall("bad__echo", { text: "first" }),
    reply().text("One."),
    reply().toolCall("bad__echo", { text: "second" }),
    reply().text("Two."),
  ]);
  const common = ["--base-url", server.baseUrl, "--model", "m", "--yes", `--allow-run=${DENO}`];
  const first = await sandbox.run(["-p", "once", ...common]);
  assertEquals(first.code, 0, first.stderr);
  const second = await sandbox.run(["--continue", "-p", "again", ...common]);
  assertEquals(second.code, 0, second.stderr);
  assertEquals(second.stdout, "Two.\n");
  const last = server.requests[3]?.messages ?? [];
  const results = last.filter((m) => m.role === "tool").map((m) => String(m.content));
  assertEquals(results.length, 2);
  match(results[0]!, /echo: first/);
  match(results[1]!, /echo: second/);
});

Deno.test({
  name: "Ctrl-C in the REPL cancels a running MCP call with notifications/cancelled",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    const log = `${sandbox.home}/calls.log`;
    await writeConfig(sandbox.home, {
      bad: {
        ...fixtureServer,
        env: { CALL_LOG: log },
        sandbox: { ...fixtureServer.sandbox, write: [sandbox.home] },
      },
    });
    await using server = startFakeLlmServer([
      reply().toolCall("bad__hang", {}),
      reply().text("ok, stopped"),
    ]);
    const child = sandbox.spawn([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      `--allow-run=${DENO}`,
    ]);
    const output = watchOutput(child);
    const stdin = child.stdin.getWriter();
    const encode = (text: string) => new TextEncoder().encode(text);
    await stdin.write(encode("hang please\n"));
    for (let i = 0; i < 300; i++) {
      const text = await Deno.readTextFile(log).catch(() => "");
      if (text.includes("tools/call")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill("SIGINT");
    await output.waitFor("Interrupted");
    await stdin.write(encode("what now?\n/exit\n"));
    await stdin.close();
    const out = await output.end();
    assertEquals(out.code, 0, out.stderr);
    match(out.stdout, /ok, stopped/);
    const result = JSON.parse(
      String(server.requests[1]!.messages.find((m) => m.role === "tool")?.content),
    );
    assertEquals(result.error_type, "cancelled");
    match(await Deno.readTextFile(log), /notifications\/cancelled/);
    assertEquals(server.pairingErrors, []);
  },
});

Deno.test("read_file opens the saved full output that a cut MCP result names", async () => {
  await using sandbox = await cliSandbox();
  await writeConfig(sandbox.home, { bad: fixtureServer });
  // The second reply reads the file the first result named, as a model would.
  await using server = startFakeLlmServer((request, number) => {
    if (number === 1) return reply().toolCall("bad__big", {});
    if (number > 2) return reply().text("Read it.");
    const result = JSON.parse(String(request.messages.at(-1)?.content));
    const path = result.metadata.truncated?.full_output_path ?? "missing";
    return reply().toolCall("read_file", { path, offset: 1, limit: 1 });
  });
  const out = await sandbox.run([
    "-p",
    "big",
    "--base-url",
    server.baseUrl,
    "--model",
    "m",
    "--output-format",
    "json",
    "--allow-read=.",
    `--allow-run=${DENO}`,
    "--yes",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const calls = lastJsonLine(out.stdout).tool_calls as {
    name: string;
    result: { success: boolean; data: string; metadata: { truncated?: Record<string, unknown> } };
  }[];
  const path = String(calls[0]?.result.metadata.truncated?.full_output_path);
  // Saved in this workspace's own folder (outputs/<hash>/tool_outputs), where only its own
  // sessions' read_file may read.
  assert(
    /\/harness\/outputs\/[0-9a-f]{16}\/tool_outputs\/bad__big-/.test(path) &&
      path.startsWith(sandbox.env.XDG_DATA_HOME!),
    path,
  );
  assertEquals(calls[1]?.name, "read_file");
  assert(calls[1]?.result.success, JSON.stringify(calls[1]?.result));
  assert(calls[1]?.result.data.startsWith(`1: ${"z".repeat(100)}`), calls[1]?.result.data);
});
