// What the servers say about prompt tokens, read into canonical usage: llama-server's usage
// and timings (cache_n, prompt_n), vLLM's and OpenAI's cached_tokens, Ollama's
// prompt_eval_cached_count, Anthropic's cache_read_input_tokens; the numbers in a refusal;
// and the server's own count from /tokenize (vLLM) or /apply-template and /tokenize
// (llama-server).

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import { readUsage } from "../../src/providers/openai_compat/stream_reader.ts";
import { refusalNumbers } from "../../src/providers/context_refusal.ts";
import { countPromptTokens } from "../../src/providers/openai_compat/count_tokens.ts";
import { createOllamaProvider } from "../../src/providers/ollama.ts";
import { ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { chunk, reply, startFakeLlmServer } from "../helpers/fake_llm_server.ts";
import { renderPrompt } from "../helpers/prompt_cache.ts";
import { readMessageStream } from "../../src/providers/anthropic/stream_reader.ts";

const user = (content: string) => ({ kind: "user" as const, content });

Deno.test("readUsage() takes the whole prompt and the reused part from each server's fields", () => {
  // llama-server: usage with cached_tokens, and timings.
  assertEquals(
    readUsage(
      { prompt_tokens: 900, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 850 } },
      { cache_n: 850, prompt_n: 50, predicted_n: 7 },
    ),
    { promptTokens: 900, completionTokens: 7, reusedTokens: 850 },
  );
  // An older llama-server: timings only.
  assertEquals(readUsage(undefined, { cache_n: 600, prompt_n: 40, predicted_n: 3 }), {
    promptTokens: 640,
    completionTokens: 3,
    reusedTokens: 600,
  });
  // A server whose prompt_tokens counted only what it processed still gets the whole prompt.
  assertEquals(
    readUsage({ prompt_tokens: 40, completion_tokens: 3 }, { cache_n: 600, prompt_n: 40 }),
    {
      promptTokens: 640,
      completionTokens: 3,
      reusedTokens: 600,
    },
  );
  // vLLM and OpenAI: prompt_tokens_details.cached_tokens.
  assertEquals(
    readUsage({
      prompt_tokens: 2006,
      completion_tokens: 300,
      prompt_tokens_details: { cached_tokens: 1920 },
    }, undefined),
    { promptTokens: 2006, completionTokens: 300, reusedTokens: 1920 },
  );
  // A server that says nothing about reuse: no reusedTokens, not a made-up 0.
  assertEquals(readUsage({ prompt_tokens: 12, completion_tokens: 3 }, undefined), {
    promptTokens: 12,
    completionTokens: 3,
  });
  assertEquals(readUsage(undefined, undefined), undefined);
});

Deno.test("createOpenAICompatProvider() reads llama-server's final usage and timings chunk", async () => {
  await using server = startFakeLlmServer([
    reply().text("Hi").finish(null).rawFrames([
      chunk({}, "stop"),
      {
        choices: [],
        usage: { prompt_tokens: 1200, completion_tokens: 2, total_tokens: 1202 },
        timings: { cache_n: 1100, prompt_n: 100, predicted_n: 2 },
      },
    ]),
  ]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({ messages: [user("hi")], tools: [] });
  assertEquals(turn.usage, { promptTokens: 1200, completionTokens: 2, reusedTokens: 1100 });
});

Deno.test("the llamaServer fake reports the prefix shared with the previous request as reused", async () => {
  await using server = startFakeLlmServer([reply().text("one"), reply().text("two")], {
    llamaServer: { charsPerToken: 2, window: 8192 },
  });
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const first = await provider.complete({ messages: [user("a".repeat(400))], tools: [] });
  const messages = [
    user("a".repeat(400)),
    { kind: "assistant" as const, content: "one", data: {} },
    user("more"),
  ];
  const second = await provider.complete({ messages, tools: [] });
  const prompt1 = renderPrompt(server.requests[0]!);
  const prompt2 = renderPrompt(server.requests[1]!);
  assertEquals(first.usage, {
    promptTokens: Math.ceil(prompt1.length / 2),
    completionTokens: 2,
    reusedTokens: 0,
  });
  // The first prompt ends with an open assistant block, which the second repeats.
  assertEquals(second.usage?.reusedTokens, Math.floor(prompt1.length / 2));
  assertEquals(second.usage?.promptTokens, Math.ceil(prompt2.length / 2));
  assertEquals(
    server.cache?.totals().processed,
    first.usage!.promptTokens +
      second.usage!.promptTokens - second.usage!.reusedTokens!,
  );
});

Deno.test("createOllamaProvider() reads prompt_eval_cached_count as reused", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().text("Hi").done("stop", { prompt: 700, completion: 2, cached: 690 }));
  const provider = createOllamaProvider({ baseUrl: server.url, model: "qwen3", numCtx: 8192 });
  const turn = await provider.complete({ messages: [user("hi")], tools: [] });
  assertEquals(turn.usage, { promptTokens: 700, completionTokens: 2, reusedTokens: 690 });
});

Deno.test("createOllamaProvider() passes on the numbers of Ollama's context refusal", async () => {
  await using server = startFakeOllama();
  server.script(
    ollamaReply().httpError(
      400,
      "request (9060 tokens) exceeds the available context size (8192 tokens), try increasing it",
    ),
  );
  const provider = createOllamaProvider({ baseUrl: server.url, model: "qwen3", numCtx: 8192 });
  const turn = await provider.complete({ messages: [user("hi")], tools: [] });
  assertEquals(turn.contextExceeded, { limit: 8192, promptTokens: 9060 });
});

Deno.test("refusalNumbers() reads llama-server's, vLLM's and Anthropic's wording", () => {
  assertEquals(
    refusalNumbers({
      error: {
        code: 400,
        message: "the request exceeds the available context size, try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: 12_410,
        n_ctx: 8192,
      },
    }, "the request exceeds the available context size, try increasing it"),
    { limit: 8192, promptTokens: 12_410 },
  );
  assertEquals(
    refusalNumbers(
      undefined,
      "request (9060 tokens) exceeds the available context size (8192 tokens), try increasing it",
    ),
    { limit: 8192, promptTokens: 9060 },
  );
  assertEquals(
    refusalNumbers(
      undefined,
      "This model's maximum context length is 4096 tokens. However, you requested 12500 tokens " +
        "(12000 in the messages, 500 in the completion). Please reduce the length.",
    ),
    { limit: 4096, promptTokens: 12_000 },
  );
  assertEquals(
    refusalNumbers(
      undefined,
      "This model's maximum context length is 32768 tokens. However, your request has 40000 " +
        "input tokens. Please reduce the length of the input messages.",
    ),
    { limit: 32_768, promptTokens: 40_000 },
  );
  assertEquals(refusalNumbers(undefined, "prompt is too long: 210000 tokens > 200000 maximum"), {
    limit: 200_000,
    promptTokens: 210_000,
  });
  assertEquals(refusalNumbers(undefined, "context length exceeded"), {});
});

Deno.test("countPromptTokens() asks llama-server to render the template, then counts the prompt", async () => {
  await using server = startFakeLlmServer([], { llamaServer: { charsPerToken: 3, window: 8192 } });
  const state: { way?: "vllm" | "llama-server" | "none" } = {};
  const messages = [{ role: "user", content: "x".repeat(300) }];
  const tools = [{
    type: "function",
    function: { name: "ls", description: "List", parameters: {} },
  }];
  const count = await countPromptTokens(server.baseUrl, { model: "m", messages, tools }, state);
  assertEquals(count, Math.ceil(renderPrompt({ messages, tools }).length / 3));
  assertEquals(state.way, "llama-server");
});

Deno.test("countPromptTokens() takes vLLM's count of the chat messages", async () => {
  const bodies: unknown[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      bodies.push(await req.json());
      return Response.json({ count: 4321, max_model_len: 32768, tokens: [] });
    },
  );
  const state: { way?: "vllm" | "llama-server" | "none" } = {};
  const baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  const count = await countPromptTokens(baseUrl, {
    model: "m",
    messages: [{ role: "user", content: "hi" }],
  }, state);
  assertEquals(count, 4321);
  assertEquals(state.way, "vllm");
  assertEquals(bodies, [{
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    add_generation_prompt: true,
  }]);
});

Deno.test("readMessageStream() counts Anthropic's cache reads as reused prompt tokens", async () => {
  const frames = [
    'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":40,' +
    '"cache_read_input_tokens":3000,"cache_creation_input_tokens":200,"output_tokens":1}}}',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},' +
    '"usage":{"output_tokens":9}}',
    'event: message_stop\ndata: {"type":"message_stop"}',
  ];
  const turn = { text: "", reasoning: "", toolCalls: [], stopReason: "stop" as const };
  const end = await readMessageStream(new Response(frames.join("\n\n") + "\n\n").body!, turn);
  assertEquals(end.kind === "ended" ? end.usage : undefined, {
    promptTokens: 3240,
    completionTokens: 9,
    reusedTokens: 3000,
  });
});
