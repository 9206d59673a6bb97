// Attack through the real CLI: a model server whose answer never ends (issue 26, item 16).
// Harness grew memory and the session log without bound (270 MB in 70 s). Now a turn stops
// at max_turn_tokens streamed pieces or max_turn_bytes received, says which limit stopped it,
// keeps the session log small, and `-p --output-format json` still prints its JSON.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { chunk, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { startFakeAnthropicServer } from "../helpers/fake_anthropic_server.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { type CliSandbox, cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

/** Runs the CLI, killing it after `ms`: on the old code these runs never end. */
async function runBounded(
  sandbox: CliSandbox,
  args: string[],
  ms = 60_000,
): Promise<{ code: number; stdout: string; stderr: string; killed: boolean }> {
  const child = sandbox.spawn(args);
  await child.stdin.close();
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, ms);
  const out = await child.output();
  clearTimeout(timer);
  const decoder = new TextDecoder();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
    killed,
  };
}

/** Bytes of everything harness keeps under its data folder (the session log). */
async function dataBytes(folder: string): Promise<number> {
  let total = 0;
  try {
    for await (const entry of Deno.readDir(folder)) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory) total += await dataBytes(path);
      else if (entry.isFile) total += (await Deno.stat(path)).size;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return total;
}

const FLAGS = ["--model", "m", "--output-format", "json"];

function checkStopped(
  out: { code: number; stdout: string; stderr: string; killed: boolean },
  setting: string,
): void {
  assert(!out.killed, "harness did not stop the endless answer");
  assertEquals(out.code, 1, out.stderr.slice(-1000));
  const json = lastJsonLine(out.stdout);
  assertEquals(json.stop_reason, "error");
  assert(String(json.error).includes(setting), String(json.error));
}

Deno.test("harness -p stops an OpenAI-compatible answer that never ends at max_turn_tokens", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.cwd}/.harness`);
  await Deno.writeTextFile(`${sandbox.cwd}/.harness/config.jsonc`, '{ "max_turn_tokens": 5000 }');
  const frame = `data: ${JSON.stringify(chunk({ content: "word " }))}\n\n`;
  await using server = startFakeLlmServer([reply().text("Start ").forever(frame)]);
  const out = await runBounded(sandbox, ["-p", "go", "--base-url", server.baseUrl, ...FLAGS]);
  checkStopped(out, "max_turn_tokens");
  const json = lastJsonLine(out.stdout);
  assert(String(json.result).length <= 5 * 5001 + 6, `kept ${String(json.result).length}`);
  const kept = await dataBytes(`${sandbox.home}/.local/share`);
  assert(kept < 2 * 1024 * 1024, `the session log holds ${kept} bytes`);
});

Deno.test("harness -p stops a stream line that never ends at max_turn_bytes (16 MiB by default)", async () => {
  await using sandbox = await cliSandbox();
  const first = `data: ${JSON.stringify(chunk({ content: "" })).slice(0, -30)}`;
  await using server = startFakeLlmServer([reply().forever("a".repeat(64 * 1024), first)]);
  const out = await runBounded(sandbox, ["-p", "go", "--base-url", server.baseUrl, ...FLAGS]);
  checkStopped(out, "max_turn_bytes");
});

Deno.test("harness -p stops an Ollama line that never ends at max_turn_bytes", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.cwd}/.harness`);
  await Deno.writeTextFile(
    `${sandbox.cwd}/.harness/config.jsonc`,
    '{ "max_turn_bytes": 1048576 }',
  );
  await using server = startFakeOllama({
    models: [{ name: "m", contextLength: 8192, capabilities: ["completion", "tools"] }],
  });
  server.script(
    ollamaReply().text("Start").forever('{"message": {"content": "aaaa'.padEnd(4096, "a")),
  );
  const out = await runBounded(sandbox, [
    "-p",
    "go",
    "--base-url",
    server.url,
    "--provider",
    "ollama",
    ...FLAGS,
  ]);
  checkStopped(out, "max_turn_bytes");
});

Deno.test("harness -p stops an Anthropic answer that never ends at max_turn_tokens", async () => {
  await using sandbox = await cliSandbox();
  await Deno.mkdir(`${sandbox.cwd}/.harness`);
  await Deno.writeTextFile(`${sandbox.cwd}/.harness/config.jsonc`, '{ "max_turn_tokens": 3000 }');
  const event = (data: Record<string, unknown>) =>
    `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const first = event({
    type: "content_block_start",
    index: 1,
    content_block: { type: "text", text: "" },
  });
  const frame = event({
    type: "content_block_delta",
    index: 1,
    delta: { type: "text_delta", text: "w " },
  });
  await using server = startFakeAnthropicServer([reply().text("Start").forever(frame, first)], {
    nCtx: 8192,
  });
  const out = await runBounded(sandbox, ["-p", "go", "--base-url", server.baseUrl, ...FLAGS]);
  checkStopped(out, "max_turn_tokens");
});
