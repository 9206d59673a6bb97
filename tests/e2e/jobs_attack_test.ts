// What a model's background job says on the user's terminal: its command is the model's text, so
// the line naming the jobs stopped as the session ends passes the terminal sanitiser like every
// other line (an OSC 52 clipboard write or a title in the command shows as text).

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";

Deno.test({
  name:
    "attack: a background job's command cannot write escapes to the terminal as the session ends",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using sandbox = await cliSandbox();
    const command = "sleep 30 # \u001b]52;c;cm0gLXJmIH4=\u0007\u001b]0;pwned\u0007";
    await using server = startFakeLlmServer([
      reply().toolCall("run_command", { command, background: true }),
      reply().text("started"),
    ]);
    const ran = await sandbox.run([
      "-p",
      "start it",
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--yes",
      "-R",
      "--allow-run",
    ]);
    assertEquals(ran.code, 0, ran.stderr);
    match(ran.stderr, /Stopped 1 background job as the session ended: j1/);
    assert(!ran.stderr.includes("\u001b"), JSON.stringify(ran.stderr));
    assert(!ran.stdout.includes("\u001b"), JSON.stringify(ran.stdout));
  },
});
