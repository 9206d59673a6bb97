// Attack through the real CLI (issue 26, item 13): a model answers with escape sequences, C1
// controls and bidi overrides, and calls run_command with a command full of them. Neither the
// answer on stdout nor the tool line on stderr carries them raw; the JSON output keeps the
// exact text as \u escapes.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const HOSTILE = "ok\x1b]52;c;ZXZpbA==\x07\u009b2J\u202eexe\x1b[8mhidden";

// deno-lint-ignore no-control-regex
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/;

Deno.test({
  name: "harness -p prints a hostile answer and run_command line without raw controls",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    const script = () => [
      reply().toolCall("run_command", { command: `echo '${HOSTILE}'` }),
      reply().text(HOSTILE),
    ];
    await using server = startFakeLlmServer([...script(), ...script()]);
    const flags = ["--base-url", server.baseUrl, "--model", "m", "--yes", "--allow-run"];
    const text = await sandbox.run(["-p", "go", ...flags]);
    assertEquals(text.code, 0, text.stderr);
    assert(!RAW.test(text.stdout), JSON.stringify(text.stdout));
    assert(!RAW.test(text.stderr), JSON.stringify(text.stderr));
    assert(text.stdout.includes("\\x1b]52;c;ZXZpbA==\\x07"), text.stdout);

    const json = await sandbox.run(["-p", "go", ...flags, "--output-format", "json"]);
    assertEquals(json.code, 0, json.stderr);
    assert(!RAW.test(json.stdout), JSON.stringify(json.stdout));
    assertEquals(lastJsonLine(json.stdout).result, HOSTILE);
  },
});

Deno.test({
  name: "harness stats prints a tool name a hostile model made up without raw controls",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([
      reply().toolCall(`x${HOSTILE}`, {}),
      reply().text("done"),
    ]);
    const run = await sandbox.run(["-p", "go", "--base-url", server.baseUrl, "--model", "m"]);
    assertEquals(run.code, 0, run.stderr);
    const text = await sandbox.run(["stats"]);
    assertEquals(text.code, 0, text.stderr);
    assert(text.stdout.includes("xok\\x1b]52;c;ZXZpbA==\\x07"), text.stdout);
    assert(!RAW.test(text.stdout.replaceAll("\n", "")), JSON.stringify(text.stdout));
    const json = await sandbox.run(["stats", "--json"]);
    assert(!RAW.test(json.stdout.replaceAll("\n", "")), JSON.stringify(json.stdout));
    const tools = (lastJsonLine(json.stdout) as { tools: { tool: string }[] }).tools;
    assert(tools.some((t) => t.tool === `x${HOSTILE}`), JSON.stringify(tools));
  },
});

Deno.test({
  name: "harness prints model names a hostile server lists in its error without raw controls",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using sandbox = await cliSandbox();
    await using server = startFakeLlmServer([], { models: [`a${HOSTILE}`, "b\u009b2J"] });
    const run = await sandbox.run(["-p", "go", "--base-url", server.baseUrl]);
    assertEquals(run.code, 2, run.stderr);
    assert(run.stderr.includes("one of: aok\\x1b]52;c;ZXZpbA==\\x07"), run.stderr);
    assert(!RAW.test(run.stderr.replaceAll("\n", "")), JSON.stringify(run.stderr));
  },
});
