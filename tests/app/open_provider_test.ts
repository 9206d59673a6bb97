// openProvider() settles the context window: what the server states, --context-length over
// it, or 8,192 assumed with a note; llama-server is asked for prompt progress.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { ASSUMED_CONTEXT_LENGTH, openProvider } from "../../src/app/open_provider.ts";
import { DEFAULT_SETTINGS, type Settings } from "../../src/config/settings.ts";
import { reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";

function settingsFor(baseUrl: string, extra: Partial<Settings> = {}): Settings {
  return { ...DEFAULT_SETTINGS, baseUrl, textToolCalls: false, ...extra };
}

Deno.test("openProvider() takes the window llama-server states and asks it for progress", async () => {
  await using server = startFakeLlmServer([reply().text("hi")], {
    routes: { "/props": { default_generation_settings: { n_ctx: 16384 }, total_slots: 1 } },
  });
  const opened = await openProvider(settingsFor(server.baseUrl));
  assert(opened.ok, JSON.stringify(opened));
  assertEquals(opened.value.contextLength, 16384);
  assertEquals(opened.value.contextSource, "llama-server /props n_ctx");
  assertEquals(opened.value.notes ?? [], []);
  await opened.value.provider.complete({ messages: [{ kind: "user", content: "x" }], tools: [] });
  assertEquals(server.requests[0]?.return_progress, true);
});

Deno.test("openProvider() lets --context-length override the stated window", async () => {
  await using server = startFakeLlmServer([], {
    routes: { "/props": { default_generation_settings: { n_ctx: 16384 } } },
  });
  const opened = await openProvider(settingsFor(server.baseUrl, { contextLength: 4000 }));
  assert(opened.ok);
  assertEquals(opened.value.contextLength, 4000);
  assertEquals(opened.value.contextSource, "--context-length");
});

Deno.test("openProvider() assumes 8,192 tokens and says so once when no window is stated", async () => {
  await using server = startFakeLlmServer([]);
  const opened = await openProvider(settingsFor(server.baseUrl));
  assert(opened.ok);
  assertEquals(opened.value.contextLength, ASSUMED_CONTEXT_LENGTH);
  // /context shows it in parentheses: "8,192 tokens (assumed: the server does not state it)".
  assertEquals(opened.value.contextSource, "assumed: the server does not state it");
  const notes = opened.value.notes ?? [];
  assertEquals(notes.length, 1);
  assert(notes[0]!.includes("assuming 8,192 tokens; pass --context-length N"), notes[0]);
});

Deno.test("openProvider() sends --context-length to Ollama's native API as num_ctx", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().text("hi").done());
  const opened = await openProvider(
    settingsFor(server.url, { contextLength: 20000, model: "qwen3", provider: "ollama" }),
  );
  assert(opened.ok, JSON.stringify(opened));
  assertEquals(opened.value.contextLength, 20000);
  await opened.value.provider.complete({ messages: [{ kind: "user", content: "x" }], tools: [] });
  const chat = server.requests.find((r) => r.path === "/api/chat");
  assertEquals((chat?.body?.options as { num_ctx?: number }).num_ctx, 20000);
});

Deno.test("openProvider() keeps the server's token count through the output cap and the text-call wrapper", async () => {
  await using server = startFakeLlmServer([], { llamaServer: { charsPerToken: 3, window: 8192 } });
  const opened = await openProvider(settingsFor(server.baseUrl, { textToolCalls: true }));
  assert(opened.ok, JSON.stringify(opened));
  const count = await opened.value.provider.countTokens?.({
    messages: [{ kind: "user", content: "x".repeat(300) }],
    tools: [],
  });
  assert(count !== undefined && count >= 100, `counted ${count}`);
});
