// Ctrl-C in the REPL stops a subagent with the turn: the command its child is running (in the
// command sandbox) is gone, the task call ends cancelled, and the next message works.

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { subagentResponder } from "../helpers/subagent_script.ts";

const linux = Deno.build.os === "linux";

/** Host pids whose command line holds `marker` (a sandboxed command is still in /proc). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const line = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      if (line.includes(marker)) found.push(Number(entry.name));
    } catch { /* gone meanwhile */ }
  }
  return found;
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test({
  name: "REPL Ctrl-C stops a subagent's running command with the turn",
  ignore: !linux,
  async fn() {
    await using sandbox = await cliSandbox();
    // A sleep no other process runs: its argument finds it in /proc.
    const seconds = `${300 + Math.floor(Math.random() * 1000)}.${Date.now() % 1000}`;
    const task = "Wait for the build";
    await using server = startFakeLlmServer(subagentResponder({
      parent: [
        reply().toolCall("task", { agent: "general", prompt: task }),
        reply().text("Stopped, as asked."),
      ],
      children: { [task]: [reply().toolCall("run_command", { command: `sleep ${seconds}` })] },
    }));
    const child = sandbox.spawn([
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "--allow-run",
      "--allow-read=.",
    ]);
    const stdin = child.stdin.getWriter();
    const encode = (text: string) => new TextEncoder().encode(text);
    await stdin.write(encode("delegate it\n"));
    await until(() => processesWith(`sleep ${seconds}`).length > 0, "the child's command");
    child.kill("SIGINT");
    await until(() => processesWith(`sleep ${seconds}`).length === 0, "the command to end", 10_000);
    await stdin.write(encode("what now?\n/exit\n"));
    await stdin.close();
    const out = await child.output();
    const stdout = new TextDecoder().decode(out.stdout);
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    match(stdout, /Stopped, as asked\./);
    // The task call's result says the child was interrupted; the conversation stays valid.
    const last = server.requests.at(-1)!.messages;
    const result = JSON.parse(String(last.find((m) => m.role === "tool")?.content));
    assertEquals(result.error_type, "cancelled", JSON.stringify(result));
    assertEquals(server.pairingErrors, []);
  },
});
