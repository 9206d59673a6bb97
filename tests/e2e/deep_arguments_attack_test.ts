// Attack through the real CLI: a model whose tool call nests 10,000 deep or is huge, over each
// wire format (OpenAI-compatible, Ollama's objects, Anthropic's input, a text tool call). The
// model gets a validation error, the run goes on, and `-p --output-format json` still prints
// its JSON (issue 26, item 14: a RangeError in postMessage killed harness before).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { startFakeAnthropicServer } from "../helpers/fake_anthropic_server.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const DEEP = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
const FLAGS = ["--output-format", "json", "--yes", "-R", "--model", "m"];

function checkOutcome(out: { code: number; stdout: string; stderr: string }): void {
  assertEquals(out.code, 0, out.stderr.slice(-2000));
  assert(!out.stderr.includes("RangeError"), out.stderr.slice(-2000));
  const json = lastJsonLine(out.stdout);
  assertEquals(json.stop_reason, "answered");
  const calls = json.tool_calls as { result: { error_type: string; error_message: string } }[];
  assertEquals(calls[0]?.result.error_type, "validation_failed");
  assert(/nest more than 64 levels|more than the 1\.0 MB/.test(calls[0]!.result.error_message));
}

Deno.test("harness -p answers an OpenAI-compatible call nested 10,000 deep with a validation error", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", `{"path": ${DEEP}}`),
    reply().text("I will not do that again."),
  ]);
  const out = await sandbox.run(["-p", "go", "--base-url", server.baseUrl, ...FLAGS]);
  checkOutcome(out);
  // The refused call went back to the model with its result, and the run went on.
  assertEquals(server.requests.length, 2);
  assertEquals(server.pairingErrors, []);
});

Deno.test("harness -p answers a call of 2 MiB with a validation error", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("read_file", { path: "x".repeat(2 * 1024 * 1024) }),
    reply().text("ok"),
  ]);
  checkOutcome(await sandbox.run(["-p", "go", "--base-url", server.baseUrl, ...FLAGS]));
});

Deno.test("harness -p answers an Ollama call whose argument object nests 10,000 deep", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeOllama({
    models: [{ name: "m", contextLength: 8192, capabilities: ["completion", "tools"] }],
  });
  server.script(
    ollamaReply().toolCall("read_file", { path: JSON.parse(DEEP) }).done(),
    ollamaReply().text("ok").done(),
  );
  const out = await sandbox.run([
    "-p",
    "go",
    "--base-url",
    server.url,
    "--provider",
    "ollama",
    ...FLAGS,
  ]);
  checkOutcome(out);
});

Deno.test("harness -p answers an Anthropic call whose input nests 10,000 deep", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeAnthropicServer([
    reply().toolCall("read_file", `{"path": ${DEEP}}`),
    reply().text("ok"),
  ], { nCtx: 8192 });
  checkOutcome(await sandbox.run(["-p", "go", "--base-url", server.baseUrl, ...FLAGS]));
});

Deno.test("harness -p answers a text tool call (Hermes) nested 10,000 deep", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().text(
      `<tool_call>\n{"name": "read_file", "arguments": {"path": ${DEEP}}}\n</tool_call>`,
    ),
    reply().text("ok"),
  ]);
  checkOutcome(await sandbox.run(["-p", "go", "--base-url", server.baseUrl, ...FLAGS]));
});
