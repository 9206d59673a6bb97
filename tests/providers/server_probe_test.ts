// `harness doctor`'s probe (src/providers/server_probe/) against real loopback servers: a
// llama-server that parses tool calls itself, one that passes them through as text, an
// Ollama server (NDJSON, /api/show), and a model that makes no call.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { probeServer } from "../../src/providers/server_probe/probe_server.ts";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import { createOllamaProvider } from "../../src/providers/ollama.ts";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";

const HERMES_TEMPLATE = "{%- for tool in tools %}{{ tool | tojson }}{% endfor %}" +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';

/** What llama-server states at /props: one slot of 8192 tokens, its template, no vision. */
const PROPS = {
  default_generation_settings: { n_ctx: 8192 },
  total_slots: 1,
  chat_template: HERMES_TEMPLATE,
  modalities: { vision: false, audio: false },
};

/** The speed request's answer: 64 tokens in 8 paced pieces after 100 ms of "prompt work". */
function speedReply() {
  return reply().text("Line 61: the value is 61.\n".repeat(4), { chunks: 8 }).usage(500, 64)
    .delay(100).pace(20);
}

Deno.test("probeServer() finds native tool calls, the template and speeds on llama-server", async () => {
  await using server = startFakeLlmServer([
    reply().toolCall("get_current_time", { timezone: "UTC" }).usage(150, 20),
    speedReply(),
  ], { routes: { "/props": PROPS } });
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const probed = await probeServer(provider, server.baseUrl, { nonce: "n1" });
  assert(probed.ok, JSON.stringify(probed));
  const { promptTokensPerS, generatedTokensPerS, ...rest } = probed.value;
  assertEquals(rest, {
    server: "llama-server",
    template: "hermes",
    toolCalls: "native",
    vision: false,
  });
  // 500 prompt tokens took at least 100 ms; 63 tokens after the first at least 7 x 20 ms.
  assert(promptTokensPerS !== null && promptTokensPerS > 0 && promptTokensPerS <= 5000);
  assert(generatedTokensPerS !== null && generatedTokensPerS > 0 && generatedTokensPerS <= 450);
  const [canary, speed] = server.requests;
  assertEquals((canary?.tools as { function: { name: string } }[]).map((t) => t.function.name), [
    "get_current_time",
  ]);
  assertEquals([canary?.max_tokens, speed?.max_tokens, speed?.tools], [512, 64, undefined]);
  // Each prompt starts with its own nonce, so the server reuses no cached prefix.
  assert(String(canary?.messages[0]?.content).startsWith("Check n1."));
  assert(String(speed?.messages[0]?.content).startsWith("Check n1-speed."));
});

Deno.test("probeServer() reports text when the model's call comes back as Hermes markup", async () => {
  await using server = startFakeLlmServer([
    reply().text(
      '<tool_call>\n{"name": "get_current_time", "arguments": {"timezone": "UTC"}}\n</tool_call>',
      { chunks: 5 },
    ).usage(150, 20),
    speedReply(),
  ], { routes: { "/props": PROPS } });
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const probed = await probeServer(provider, server.baseUrl);
  assert(probed.ok, JSON.stringify(probed));
  assertEquals([probed.value.toolCalls, probed.value.textFormat], ["text", "hermes"]);
});

Deno.test("probeServer() reports none when the model answers without a call", async () => {
  await using server = startFakeLlmServer([
    reply().text("It is noon.").usage(150, 5),
    speedReply(),
  ]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const probed = await probeServer(provider, server.baseUrl);
  assert(probed.ok, JSON.stringify(probed));
  assertEquals(probed.value.toolCalls, "none");
  // No /props: the server is not known and states no template or vision.
  assertEquals([probed.value.server, probed.value.template, probed.value.vision], [
    "an OpenAI-compatible server",
    null,
    null,
  ]);
});

Deno.test("probeServer() reads Ollama's capabilities and template over its native API", async () => {
  await using ollama = startFakeOllama({
    models: [{
      name: "qwen3-vl",
      contextLength: 40960,
      capabilities: ["completion", "tools", "vision"],
      template: HERMES_TEMPLATE,
    }],
  });
  ollama.script(
    ollamaReply().toolCall("get_current_time", { timezone: "UTC" }).done("stop", {
      prompt: 150,
      completion: 20,
    }),
    ollamaReply().delay(100).text(...Array.from({ length: 8 }, () => "Line 61. ")).done("length", {
      prompt: 500,
      completion: 64,
    }),
  );
  const provider = createOllamaProvider({ baseUrl: ollama.url, model: "qwen3-vl" });
  const probed = await probeServer(provider, ollama.url);
  assert(probed.ok, JSON.stringify(probed));
  const { promptTokensPerS, generatedTokensPerS, ...rest } = probed.value;
  assertEquals(rest, {
    server: "Ollama",
    template: "hermes",
    toolCalls: "native",
    vision: true,
    capabilities: ["completion", "tools", "vision"],
  });
  assert(promptTokensPerS !== null && promptTokensPerS <= 5000, String(promptTokensPerS));
  assert(generatedTokensPerS !== null && generatedTokensPerS > 0, String(generatedTokensPerS));
  const chats = ollama.requests.filter((r) => r.path === "/api/chat");
  const options = chats.map((r) => r.body?.options as Record<string, unknown>);
  assertEquals(options.map((o) => o.num_predict), [512, 64]);
});

Deno.test("probeServer() returns the server's error when the canary fails", async () => {
  await using server = startFakeLlmServer([reply().httpError(500)]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const probed = await probeServer(provider, server.baseUrl);
  assert(!probed.ok && probed.error.kind === "provider_http", JSON.stringify(probed));
});
