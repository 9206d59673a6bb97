// End-to-end tests of `harness --model-file`: the real CLI runs a scripted GGUF model
// in-process through node-llama-cpp and drives the same loop, limits, permissions and
// sandbox as with a server. Ignored (with the reason) until `deno task install-llama` ran.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import {
  installedVersion,
  NODE_LLAMA_CPP_VERSION,
} from "../../src/providers/llama_cpp/node_llama_cpp.ts";
import { type ScriptedModelOptions, writeScriptedGguf } from "../fixtures/make_scripted_gguf.ts";
import { type CliResult, cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";
import {
  lastScreenLine,
  startPty,
  startupSettled,
  TRACE_STARTUP,
  withoutTrace,
} from "../helpers/pty.ts";

const installed = await installedVersion() === NODE_LLAMA_CPP_VERSION;
const REASON = "node-llama-cpp is not installed (run `deno task install-llama`)";

// The grammar node-llama-cpp builds lists every property in schema order; optional ones are null.
const READ_NOTES = '{"path": "notes.txt", "offset": null, "limit": null}';

function modelTest(
  name: string,
  script: ScriptedModelOptions,
  fn: (run: (args: string[], stdin?: string) => Promise<CliResult>) => Promise<void>,
): void {
  Deno.test({
    name: installed ? name : `${name} [ignored: ${REASON}]`,
    ignore: !installed,
    async fn() {
      await using sandbox = await cliSandbox();
      await Deno.writeTextFile(`${sandbox.cwd}/notes.txt`, "hello\n");
      // The scripted vocabulary spells most prompt text a byte at a time, so the system prompt
      // and the 17 tool schemas need a long context.
      await writeScriptedGguf(`${sandbox.cwd}/model.gguf`, { contextLength: 65536, ...script });
      const base = ["--model-file", "model.gguf", "--ctx-size", "65536", "--allow-read=."];
      await fn((args, stdin) =>
        sandbox.run([...base, ...args], stdin === undefined ? {} : { stdin })
      );
    },
  });
}

modelTest(
  "harness --model-file calls read_file on a real file, then answers",
  {
    onUser: { toolCall: { name: "read_file", argumentsJson: READ_NOTES } },
    onToolResult: { text: "The notes say hello." },
  },
  async (run) => {
    const out = await run(["-p", "read the notes", "--yes", "--output-format", "json"]);
    assertEquals(out.code, 0, out.stderr);
    const json = lastJsonLine(out.stdout);
    assertEquals(json.result, "The notes say hello.");
    const calls = json.tool_calls as { name: string; result: { success: boolean; data: string } }[];
    assertEquals(calls[0]?.name, "read_file");
    assertEquals(calls[0]?.result.success, true);
    match(calls[0]!.result.data, /1: hello/);
    // The second turn reuses the first one's prompt from the cache: no truncation warning.
    assertEquals(out.stderr.includes("prompt tokens but"), false, out.stderr);
    const usage = json.usage as { prompt_tokens: number };
    assertEquals(usage.prompt_tokens > 1000, true, JSON.stringify(usage));
  },
);

modelTest(
  "harness --model-file stops a model that calls a tool every turn with exit 3",
  {
    onUser: { toolCall: { name: "read_file", argumentsJson: READ_NOTES } },
    onToolResult: { toolCall: { name: "read_file", argumentsJson: READ_NOTES } },
  },
  async (run) => {
    const out = await run([
      "-p",
      "loop",
      "--yes",
      "--max-iterations",
      "3",
      "--output-format",
      "json",
    ]);
    assertEquals(out.code, 3, out.stderr);
    const json = lastJsonLine(out.stdout);
    assertEquals(json.stop_reason, "iteration_limit");
    assertEquals((json.tool_calls as unknown[]).length, 3);
  },
);

modelTest(
  "harness --model-file sends permission_denied to the model when approval is refused",
  {
    onUser: { toolCall: { name: "read_file", argumentsJson: READ_NOTES } },
    onToolResult: { text: "I was not allowed to read it." },
  },
  async (run) => {
    const out = await run(["-p", "read the notes", "--output-format", "json"]);
    assertEquals(out.code, 0, out.stderr);
    const json = lastJsonLine(out.stdout);
    const calls = json.tool_calls as { result: { error_type: string } }[];
    assertEquals(calls[0]?.result.error_type, "permission_denied");
    assertEquals(json.result, "I was not allowed to read it.");
  },
);

modelTest(
  "harness --model-file works in the REPL and keeps the model loaded across turns",
  {
    onUser: { toolCall: { name: "read_file", argumentsJson: READ_NOTES } },
    onToolResult: { text: "The notes say hello." },
  },
  async (run) => {
    const out = await run(["--yes"], "read the notes\nand again\n/exit\n");
    assertEquals(out.code, 0, out.stderr);
    assertEquals(out.stdout.match(/The notes say hello\./g)?.length, 2);
  },
);

modelTest(
  "harness --model-file reports a file that is not a GGUF model with exit 2",
  { onUser: { text: "x" }, onToolResult: { text: "x" } },
  async (run) => {
    const out = await run(["-p", "hi", "--model-file", "notes.txt"]);
    assertEquals(out.code, 2, out.stderr);
    match(out.stderr, /Cannot load model file "notes\.txt"/);
  },
);

Deno.test({
  name: installed
    ? "harness --model-file on a terminal: the loading line goes away and the prompt stays"
    : `harness --model-file on a terminal: the loading line goes away [ignored: ${REASON}]`,
  ignore: !installed || Deno.build.os !== "linux",
  async fn() {
    await using sandbox = await cliSandbox();
    await writeScriptedGguf(`${sandbox.cwd}/model.gguf`, {
      contextLength: 65536,
      onUser: { text: "hi there" },
      onToolResult: { text: "x" },
    });
    await using pty = startPty(sandbox, ["--model-file", "model.gguf", "--ctx-size", "65536"], {
      env: TRACE_STARTUP,
    });
    await pty.waitFor((out) => out.includes("Loading model"), "the loading line");
    await pty.waitFor(
      (out) => !lastScreenLine(out).includes("Loading") && lastScreenLine(out).trim() === ">",
      "the prompt after loading",
      60_000,
    );
    await startupSettled(pty);
    // Nothing printed right after the last percentage: the line was cleared or ended.
    const glued = withoutTrace(pty.output).split("Loading model").slice(1).some((rest) => {
      const percent = /^ \d+%/.exec(rest);
      const next = percent ? rest[percent[0].length] : undefined;
      return next !== undefined && !["\r", "\n", "\u001b"].includes(next);
    });
    assert(!glued, JSON.stringify(pty.output));
    await pty.type("\x04");
    assertEquals(await pty.exit(), 0);
  },
});
