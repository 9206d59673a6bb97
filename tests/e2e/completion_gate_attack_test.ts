// Tab completion in the REPL on a real terminal lists only what the run's file gate lets the
// session list: a --deny-read name is never offered, so a denied file's name does not reach
// the screen (or a screen share) by pressing Tab.

import { ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startPty } from "../helpers/pty.ts";

Deno.test({
  name: "REPL on a terminal: Tab never offers a name --deny-read covers",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(join(sandbox.cwd, "see-notes.md"), "hello\n");
    await Deno.writeTextFile(join(sandbox.cwd, "salary-2026.xlsx"), "x\n");
    await using server = startFakeLlmServer([reply().text("done")]);
    await using pty = startPty(sandbox, [
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "-R",
      "--deny-read=salary-2026.xlsx",
    ]);
    await pty.waitFor((out) => out.includes("\x1b[?2004h"), "the prompt");
    const before = pty.output.length;
    // Tab completes the one candidate it may offer (with two, it would complete neither).
    await pty.type("read @s\t");
    await pty.waitFor((out) => out.slice(before).includes("see-notes.md"), "the completed path");
    await pty.type("\x15/he\t");
    await pty.waitFor((out) => out.slice(before).includes("/help"), "the completed command");
    assert(!pty.output.slice(before).includes("salary"), pty.output.slice(before));
    await pty.type("\x15\x04");
  },
});
