// `harness doctor` end to end: the real CLI as a subprocess against loopback servers that
// answer as llama-server, a text-tool-call server and Ollama do, and against no server.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { cliSandbox, lastJsonLine } from "../helpers/run_cli.ts";

const PROPS = {
  default_generation_settings: { n_ctx: 8192 },
  total_slots: 1,
  chat_template:
    "{% for m in messages %}{{ m.content }}{% endfor %}<tool_call>{{ call }}</tool_call>",
  modalities: { vision: false },
};

const speedReply = () =>
  reply().text("Line 61: the value is 61.\n".repeat(4), { chunks: 8 }).usage(500, 64).delay(50)
    .pace(10);

Deno.test("harness doctor --json reports window 8192 and native tool calls from llama-server", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", { timezone: "UTC" }).usage(150, 20),
    speedReply(),
  ], { routes: { "/props": PROPS } });
  const out = await sandbox.run(["doctor", "--json", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(
    [json.context_window, json.tool_calls, json.template, json.vision, json.server, json.usable],
    [8192, "native", "hermes", false, "llama-server", true],
  );
  for (const key of ["prompt_tokens_per_s", "generated_tokens_per_s"]) {
    assert(typeof json[key] === "number" && json[key] > 0, `${key}: ${json[key]}`);
  }
  assertEquals(json.problems, []);
  assert(
    String(json.advice).includes(`--base-url ${server.baseUrl} --model m`),
    String(json.advice),
  );
  // stdout holds only the JSON object.
  assertEquals(out.stdout.trim().split("\n").length, 1);
});

Deno.test("harness doctor says text when the server passes a Hermes call through as content", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([
    reply().text(
      '<tool_call>{"name": "get_current_time", "arguments": {"timezone": "UTC"}}</tool_call>',
    )
      .usage(150, 20),
    speedReply(),
  ], { routes: { "/props": PROPS } });
  const out = await sandbox.run(["doctor", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(out.code, 0, out.stderr);
  match(out.stdout, /Context window: +8192 tokens \(llama-server \/props n_ctx\)/);
  match(out.stdout, /Tool calls: +text: harness reads them from the answer \(hermes\)/);
  match(out.stdout, /start llama-server with "--jinja"/);
  match(out.stdout, /Usable: yes/);
});

Deno.test("harness doctor exits 1 with the reason when the model makes no tool call", async () => {
  await using sandbox = await cliSandbox();
  await using server = startFakeLlmServer([reply().text("It is noon."), speedReply()], {
    routes: { "/props": PROPS },
  });
  const out = await sandbox.run(["doctor", "--json", "--base-url", server.baseUrl, "--model", "m"]);
  assertEquals(out.code, 1, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals([json.tool_calls, json.usable], ["none", false]);
  match(String(json.problems), /made no tool call.*--jinja/);
});

Deno.test("harness doctor --json reads an Ollama server's window, capabilities and template", async () => {
  await using sandbox = await cliSandbox();
  await using ollama = startFakeOllama({
    models: [{
      name: "qwen3",
      contextLength: 40960,
      capabilities: ["completion", "tools"],
      template: "{{ .Prompt }}<tool_call>",
    }],
  });
  ollama.script(
    ollamaReply().toolCall("get_current_time", { timezone: "UTC" }).done("stop", {
      prompt: 150,
      completion: 20,
    }),
    ollamaReply().delay(50).text("a ", "b ", "c ").done("length", { prompt: 500, completion: 64 }),
  );
  const out = await sandbox.run([
    "doctor",
    "--json",
    "--base-url",
    ollama.url,
    "--provider",
    "ollama",
  ]);
  assertEquals(out.code, 0, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals(
    [json.server, json.model, json.context_window, json.tool_calls, json.template, json.vision],
    ["Ollama", "qwen3", 8192, "native", "hermes", false],
  );
  match(String(json.advice), /--num-ctx/);
});

Deno.test("harness doctor exits 1 and says why when no server answers", async () => {
  await using sandbox = await cliSandbox();
  const out = await sandbox.run(["doctor", "--json", "--base-url", "http://127.0.0.1:9/v1"]);
  assertEquals(out.code, 1, out.stderr);
  const json = lastJsonLine(out.stdout);
  assertEquals([json.usable, json.tool_calls, json.context_window], [false, null, null]);
  match(String(json.problems), /127\.0\.0\.1:9/);
});

Deno.test("harness --json without doctor is a usage error", async () => {
  await using sandbox = await cliSandbox();
  const out = await sandbox.run(["-p", "hi", "--json"]);
  assertEquals(out.code, 2);
  match(out.stderr, /--json applies only to "harness doctor"/);
});

Deno.test("harness doctor prints no control sequence a hostile server puts in its model name", async () => {
  await using sandbox = await cliSandbox();
  // OSC 52 writes the clipboard; CSI 2J clears the screen; U+202E reverses what follows.
  const evil = "m\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2J\u202e";
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", { timezone: "UTC" }).usage(150, 20),
    speedReply(),
  ], { models: [evil], routes: { "/props": PROPS } });
  const out = await sandbox.run(["doctor", "--base-url", server.baseUrl]);
  assertEquals(out.code, 0, out.stderr);
  assert(
    // deno-lint-ignore no-control-regex
    !/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(out.stdout),
    JSON.stringify(out.stdout),
  );
  match(out.stdout, /model "m.*52;c;/);
  await using again = startFakeLlmServer([
    reply().toolCall("get_current_time", { timezone: "UTC" }).usage(150, 20),
    speedReply(),
  ], { models: [evil], routes: { "/props": PROPS } });
  const json = await sandbox.run(["doctor", "--json", "--base-url", again.baseUrl]);
  // deno-lint-ignore no-control-regex
  assert(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/.test(json.stdout));
  assertEquals(lastJsonLine(json.stdout).model, evil);
});
