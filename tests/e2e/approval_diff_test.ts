// The approval prompt of a file change on a real pseudo-terminal: edit_file shows the diff of
// what it will write (not its arguments as JSON), and the tool line ends with +N -M.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox } from "../helpers/run_cli.ts";
import { startPty } from "../helpers/pty.ts";

Deno.test({
  name: "REPL on a terminal: edit_file's approval shows the diff, the tool line +N -M",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await Deno.writeTextFile(join(sandbox.cwd, "a.txt"), "alpha\nbeta\ngamma\n");
    await using server = startFakeLlmServer([
      reply().toolCall("edit_file", { path: "a.txt", old_string: "beta", new_string: "BETA two" }),
      reply().text("edited"),
    ]);
    await using pty = startPty(sandbox, [
      "--base-url",
      server.baseUrl,
      "--model",
      "m",
      "--allow-read=.",
      "--allow-write=.",
    ]);
    await pty.waitFor((out) => out.includes("> "), "the prompt");
    await pty.type("change beta\r");
    await pty.waitFor((out) => out.includes("[1] Allow once"), "the approval prompt");
    const prompt = pty.output.slice(pty.output.indexOf("Permission request"));
    assert(prompt.includes("a.txt  +1 -1"), prompt);
    assert(prompt.includes("  2     - beta"), prompt);
    assert(prompt.includes("      2 + BETA two"), prompt);
    assert(!prompt.includes("Arguments in full"), prompt);
    await pty.type("1");
    await pty.waitFor((out) => out.includes("edited"), "the answer");
    assert(/Edited a\.txt \(1 occurrence\) \+1 -1/.test(pty.output), pty.output);
    assertEquals(await Deno.readTextFile(join(sandbox.cwd, "a.txt")), "alpha\nBETA two\ngamma\n");
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});
