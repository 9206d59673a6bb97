// Crash safety end to end: SIGKILL the harness while run_command sleeps, then resume with
// --continue and check that the interrupted call got an explicit result and the next
// request to the model answers every tool call.

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { uniqueSleep, waitUntilRunning } from "../helpers/processes.ts";
import { cliSandbox } from "../helpers/run_cli.ts";

Deno.test({
  name: "harness --continue records an interrupted result after SIGKILL during a tool",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    const sleep = `sleep ${uniqueSleep()}`;
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command: sleep }),
      reply().text("Resumed fine."),
    ]);
    const base = [
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "--allow-run",
      "--allow-read=.",
    ];
    const child = sandbox.spawn(["-p", "sleep a while", ...base]);
    // The command runs: the call's start is in the session log (written before it starts).
    assertEquals(await waitUntilRunning(sleep), true, "the command did not start");
    child.kill("SIGKILL");
    const killed = await child.output();
    assertEquals(killed.signal, "SIGKILL");

    const resumed = await sandbox.run(["--continue", "-p", "what happened?", ...base]);
    assertEquals(resumed.code, 0, resumed.stderr);
    assertEquals(resumed.stdout, "Resumed fine.\n");
    match(resumed.stderr, /interrupted/);
    const messages = server.requests[1]?.messages ?? [];
    const toolMessage = messages.find((m) => m.role === "tool");
    const result = JSON.parse(String(toolMessage?.content));
    assertEquals(result.error_type, "interrupted");
    assertEquals(messages.at(-1)?.content, "what happened?");
    assertEquals(server.pairingErrors, []);
  },
});
