// Servers that stall: before the first chunk (a long prompt, a model loading) and after it
// (headers and one chunk, then nothing). Each limit ends the request with an error that names
// the setting raising it; the user's interrupt ends it at once; the wait is reported.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import { createOllamaProvider } from "../../src/providers/ollama.ts";
import type { ProviderEvent } from "../../src/providers/provider.ts";
import type { Message } from "../../src/messages.ts";
import { chunk, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";

const USER: Message[] = [{ kind: "user", content: "hi" }];

Deno.test("createOpenAICompatProvider() ends a stream silent after its first chunk", async () => {
  await using server = startFakeLlmServer([reply().text("Hel").hang()]);
  const provider = createOpenAICompatProvider({
    baseUrl: server.baseUrl,
    model: "m",
    stallTimeoutMs: 300,
  });
  const started = performance.now();
  const turn = await provider.complete({ messages: USER, tools: [] });
  const took = performance.now() - started;
  assert(took < 3000, `took ${took} ms`);
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.text, "Hel");
  assert(turn.error?.kind === "provider_stream", JSON.stringify(turn.error));
  assert(turn.error.message.includes("nothing arrived for 300 ms"), turn.error.message);
  assert(turn.error.message.includes("--stall-timeout"), turn.error.message);
});

Deno.test("createOpenAICompatProvider() waits its first-byte limit, reporting the wait", async () => {
  await using server = startFakeLlmServer([reply().delay(10_000).text("late")]);
  const provider = createOpenAICompatProvider({
    baseUrl: server.baseUrl,
    model: "m",
    firstByteTimeoutMs: 2500,
    stallTimeoutMs: 100,
  });
  const events: ProviderEvent[] = [];
  const turn = await provider.complete({ messages: USER, tools: [] }, (e) => events.push(e));
  assert(turn.error?.kind === "provider_silent", JSON.stringify(turn.error));
  assert(turn.error.cause.includes("--first-byte-timeout"), turn.error.cause);
  // The short stall limit does not apply before the answer began.
  const waits = events.filter((e) => e.type === "waiting");
  assert(waits.length >= 2, JSON.stringify(events));
});

Deno.test("createOpenAICompatProvider() stops a stalled stream at once when interrupted", async () => {
  await using server = startFakeLlmServer([reply().text("Hel").hang()]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const started = performance.now();
  const turn = await provider.complete({ messages: USER, tools: [], signal: controller.signal });
  assert(performance.now() - started < 2000);
  assertEquals(turn.stopReason, "aborted");
  assertEquals(turn.text, "Hel");
});

Deno.test("createOpenAICompatProvider() reports llama-server's prompt progress", async () => {
  // llama-server with return_progress: chunks with empty deltas and prompt_progress first.
  const progress = (processed: number) => ({
    ...chunk({}),
    prompt_progress: { total: 3000, cache: 0, processed, time_ms: processed * 2 },
  });
  await using server = startFakeLlmServer([
    reply().rawFrames([progress(1000), progress(2000), progress(3000)]).text("Hi"),
  ]);
  const provider = createOpenAICompatProvider({
    baseUrl: server.baseUrl,
    model: "m",
    promptProgress: true,
  });
  const events: ProviderEvent[] = [];
  const turn = await provider.complete({ messages: USER, tools: [] }, (e) => events.push(e));
  assertEquals(turn.text, "Hi");
  assertEquals(server.requests[0]?.return_progress, true);
  assertEquals(
    events.filter((e) => e.type === "prompt_progress"),
    [1000, 2000, 3000].map((processed) => ({
      type: "prompt_progress",
      processed,
      total: 3000,
      elapsedMs: processed * 2,
    })),
  );
});

Deno.test("createOpenAICompatProvider() asks for parallel tool calls only with tools", async () => {
  await using server = startFakeLlmServer([reply().text("a"), reply().text("b")]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const tools = [{ name: "ls", description: "List files.", parameters: { type: "object" } }];
  await provider.complete({ messages: USER, tools });
  await provider.complete({ messages: USER, tools: [] });
  assertEquals(server.requests[0]?.parallel_tool_calls, true);
  assertEquals("parallel_tool_calls" in server.requests[1]!, false);
  assertEquals("return_progress" in server.requests[0]!, false);
});

Deno.test("createOllamaProvider() ends a stream silent after its first chunk", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().text("Hel").hang());
  const provider = createOllamaProvider({
    baseUrl: server.url,
    model: "qwen3",
    stallTimeoutMs: 300,
  });
  const started = performance.now();
  const turn = await provider.complete({ messages: USER, tools: [] });
  assert(performance.now() - started < 3000);
  assertEquals(turn.text, "Hel");
  assert(turn.error?.kind === "provider_stream", JSON.stringify(turn.error));
  assert(turn.error.message.includes("--stall-timeout"), turn.error.message);
});

Deno.test("createOllamaProvider() gives up after its first-byte limit", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().delay(10_000).text("late").done());
  const provider = createOllamaProvider({
    baseUrl: server.url,
    model: "qwen3",
    firstByteTimeoutMs: 300,
  });
  const turn = await provider.complete({ messages: USER, tools: [] });
  assert(turn.error?.kind === "provider_silent", JSON.stringify(turn.error));
  assert(turn.error.cause.includes("--first-byte-timeout"), turn.error.cause);
});
