// Ctrl-C end to end: SIGINT during a generation or a running tool aborts that work, records
// a `cancelled` result for the tool, and leaves the conversation valid for the next message.
// With -p, SIGINT exits 130.

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { uniqueSleep, waitUntilRunning } from "../helpers/processes.ts";
import { cliSandbox, watchOutput } from "../helpers/run_cli.ts";

const posix = Deno.build.os !== "windows";

async function waitFor(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test({
  name: "REPL Ctrl-C aborts a hanging generation and the next message works",
  ignore: !posix,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().hang(), reply().text("after the interrupt")]);
    const child = sandbox.spawn(["--base-url", server.baseUrl, "--model", "m"]);
    const output = watchOutput(child);
    const stdin = child.stdin.getWriter();
    const encode = (text: string) => new TextEncoder().encode(text);
    await stdin.write(encode("first\n"));
    await waitFor(() => server.requests.length === 1);
    child.kill("SIGINT");
    await output.waitFor("Interrupted");
    await stdin.write(encode("second\n/exit\n"));
    await stdin.close();
    const out = await output.end();
    assertEquals(out.code, 0, out.stderr);
    match(out.stdout, /after the interrupt/);
    const last = server.requests[1]!.messages;
    assertEquals(last.filter((m) => m.role === "user").map((m) => m.content), ["first", "second"]);
  },
});

Deno.test({
  name: "REPL Ctrl-C during run_command records cancelled and keeps the conversation valid",
  ignore: !posix,
  async fn() {
    await using sandbox = await cliSandbox();
    const sleep = `sleep ${uniqueSleep()}`;
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: sleep }),
      reply().text("ok, stopped"),
    ]);
    const child = sandbox.spawn([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "--allow-run",
      "-R",
    ]);
    const output = watchOutput(child);
    const stdin = child.stdin.getWriter();
    const encode = (text: string) => new TextEncoder().encode(text);
    await stdin.write(encode("sleep please\n"));
    assertEquals(await waitUntilRunning(sleep), true, "the command did not start");
    const started = Date.now();
    child.kill("SIGINT");
    await output.waitFor("Interrupted");
    await stdin.write(encode("what now?\n/exit\n"));
    await stdin.close();
    const out = await output.end();
    assertEquals(out.code, 0, out.stderr);
    if (Date.now() - started > 15_000) throw new Error("the interrupt did not stop the command");
    match(out.stdout, /ok, stopped/);
    const messages = server.requests[1]!.messages;
    const result = JSON.parse(String(messages.find((m) => m.role === "tool")?.content));
    assertEquals(result.error_type, "cancelled");
    assertEquals(server.pairingErrors, []);
  },
});

Deno.test({
  name: "harness -p exits 130 on SIGINT",
  ignore: !posix,
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([reply().hang()]);
    const child = sandbox.spawn(["-p", "x", "--base-url", server.baseUrl, "--model", "m"]);
    await child.stdin.close();
    await waitFor(() => server.requests.length === 1);
    child.kill("SIGINT");
    const out = await child.output();
    assertEquals(out.code, 130);
  },
});

/** Pids of processes whose command line is exactly `words` (Linux /proc). */
function processesRunning(words: string[]): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (cmdline === `${words.join("\0")}\0`) found.push(Number(entry.name));
    } catch { /* gone meanwhile */ }
  }
  return found;
}

Deno.test({
  name: "harness -p stops a running command's process group on SIGTERM",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    const marker = ["sleep", `${4000 + Math.floor(Math.random() * 1000)}`];
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: `${marker.join(" ")} & ${marker.join(" ")}` }),
      reply().text("stopped"),
    ]);
    const child = sandbox.spawn([
      "-p",
      "x",
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "--allow-run",
      "-R",
    ]);
    await child.stdin.close();
    await waitFor(() => processesRunning(marker).length === 2);
    child.kill("SIGTERM");
    const out = await child.output();
    assertEquals(out.code, 130, new TextDecoder().decode(out.stderr));
    await waitFor(() => processesRunning(marker).length === 0);
  },
});

Deno.test({
  name: "harness tool run_command stops the command's process group on Ctrl-C",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    const marker = ["sleep", `${5000 + Math.floor(Math.random() * 1000)}`];
    const child = sandbox.spawn([
      "--allow-run",
      "-R",
      "tool",
      "run_command",
      JSON.stringify({ command: `${marker.join(" ")} & ${marker.join(" ")}` }),
    ]);
    await child.stdin.close();
    await waitFor(() => processesRunning(marker).length === 2);
    child.kill("SIGINT");
    const out = await child.output();
    assertEquals(out.code, 130, new TextDecoder().decode(out.stderr));
    assertEquals(JSON.parse(new TextDecoder().decode(out.stdout)).error_type, "cancelled");
    await waitFor(() => processesRunning(marker).length === 0);
  },
});
