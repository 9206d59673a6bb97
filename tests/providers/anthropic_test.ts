// Tests of the Anthropic Messages API provider (src/providers/anthropic.ts) against the
// scripted loopback server: request shape and headers, streamed text, interleaved thinking
// with signatures and several tool_use blocks, tool results, stop reasons and errors.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { createAnthropicProvider } from "../../src/providers/anthropic.ts";
import type { Message } from "../../src/messages.ts";
import { makeToolResult, toolCallMessage, toolResultMessage } from "../../src/messages.ts";
import type { ProviderEvent } from "../../src/providers/provider.ts";
import { loadSettings } from "../../src/config/settings.ts";
import {
  anthropicReply,
  reply,
  startFakeAnthropicServer,
} from "../helpers/fake_anthropic_server.ts";

const TOOL = {
  name: "read_file",
  description: "Read a file",
  parameters: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { path: { type: "string" } },
  },
};

Deno.test("createAnthropicProvider() streams text and sends system, tools and headers", async () => {
  await using server = startFakeAnthropicServer([
    reply().text("Hello there", { chunks: 3 }).usage(
      11,
      4,
    ),
  ]);
  const provider = createAnthropicProvider({
    baseUrl: server.baseUrl,
    model: "claude-x",
    apiKey: "sk-ant-test",
  });
  const events: ProviderEvent[] = [];
  const turn = await provider.complete({
    messages: [{ kind: "system", content: "Be brief" }, { kind: "user", content: "hi" }],
    tools: [TOOL],
  }, (e) => events.push(e));
  assertEquals(turn.stopReason, "stop");
  assertEquals(turn.text, "Hello there");
  assertEquals(turn.usage, { promptTokens: 11, completionTokens: 4 });
  assertEquals(events.filter((e) => e.type === "text_delta").length, 3);
  const request = server.requests[0]!;
  assertEquals(request.system, "Be brief");
  assertEquals(request.model, "claude-x");
  assertEquals(request.stream, true);
  assert(typeof request.max_tokens === "number" && request.max_tokens > 0);
  assertEquals(request.messages, [{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  assertEquals(request.tools, [{
    name: "read_file",
    description: "Read a file",
    input_schema: { type: "object", properties: { path: { type: "string" } } },
  }]);
  assertEquals(server.headers[0]?.get("x-api-key"), "sk-ant-test");
  assertEquals(server.headers[0]?.get("anthropic-version"), "2023-06-01");
  assertEquals(server.headers[0]?.get("authorization"), null);
  assertEquals(server.pairingErrors, []);
});

Deno.test("createAnthropicProvider() reads interleaved thinking and several tool_use blocks, and sends them back signed", async () => {
  await using server = startFakeAnthropicServer([
    anthropicReply()
      .thinking("First I list. ", { chunks: 2, signature: "sigA" })
      .text("Looking.")
      .toolCall("ls", { path: "." }, { id: "toolu_1", split: 3 })
      .thinking("Then I read.", { signature: "sigB" })
      .toolCall("read_file", { path: "a.txt" }, { id: "toolu_2" })
      .toolCall("read_file", { path: "missing.txt" }, { id: "toolu_3" }),
    reply().text("Done."),
  ]);
  const provider = createAnthropicProvider({ baseUrl: server.baseUrl, model: "m" });
  const events: ProviderEvent[] = [];
  const history: Message[] = [{ kind: "system", content: "sys" }, { kind: "user", content: "go" }];
  const turn = await provider.complete({ messages: history, tools: [TOOL] }, (e) => events.push(e));
  assertEquals(turn.stopReason, "tool_calls");
  assertEquals(turn.text, "Looking.");
  assertEquals(turn.reasoning, "First I list. Then I read.");
  assertEquals(turn.toolCalls, [
    { id: "toolu_1", name: "ls", arguments: '{"path":"."}' },
    { id: "toolu_2", name: "read_file", arguments: '{"path":"a.txt"}' },
    { id: "toolu_3", name: "read_file", arguments: '{"path":"missing.txt"}' },
  ]);
  assertEquals(turn.thinkingBlocks, [
    { type: "thinking", thinking: "First I list. ", signature: "sigA" },
    { type: "thinking", thinking: "Then I read.", signature: "sigB" },
  ]);
  assertEquals(
    events.filter((e) => e.type === "tool_call_started").map((e) =>
      e.type === "tool_call_started" && e.index
    ),
    [0, 1, 2],
  );

  history.push({
    kind: "assistant",
    content: turn.text,
    data: { reasoning: turn.reasoning, thinkingBlocks: turn.thinkingBlocks! },
  });
  for (const call of turn.toolCalls) history.push(toolCallMessage(call));
  history.push(toolResultMessage("toolu_1", "ls", makeToolResult({ data: "a.txt" })));
  history.push(toolResultMessage("toolu_2", "read_file", makeToolResult({ data: "1: alpha" })));
  history.push(toolResultMessage(
    "toolu_3",
    "read_file",
    makeToolResult({ errorType: "not_found", errorMessage: "No such file" }),
  ));
  const second = await provider.complete({ messages: history, tools: [TOOL] });
  assertEquals(second.text, "Done.");
  const sent = server.requests[1]!.messages;
  assertEquals(sent.length, 3);
  const assistant = sent[1]!.content as { type: string; [key: string]: unknown }[];
  assertEquals(assistant.map((b) => b.type), [
    "thinking",
    "thinking",
    "text",
    "tool_use",
    "tool_use",
    "tool_use",
  ]);
  assertEquals(assistant[0], { type: "thinking", thinking: "First I list. ", signature: "sigA" });
  assertEquals(assistant[3], { type: "tool_use", id: "toolu_1", name: "ls", input: { path: "." } });
  const results = sent[2]!.content as { type: string; [key: string]: unknown }[];
  assertEquals(results.map((b) => [b.type, b.tool_use_id, b.is_error]), [
    ["tool_result", "toolu_1", undefined],
    ["tool_result", "toolu_2", undefined],
    ["tool_result", "toolu_3", true],
  ]);
  assertEquals(JSON.parse(String(results[0]!.content)).data, "a.txt");
  assertEquals(server.pairingErrors, []);
});

Deno.test("createAnthropicProvider() keeps redacted thinking and maps max_tokens to length", async () => {
  await using server = startFakeAnthropicServer([
    anthropicReply().redactedThinking("opaque==").text("Partial").finish("length"),
  ]);
  const provider = createAnthropicProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({ messages: [{ kind: "user", content: "hi" }], tools: [] });
  assertEquals(turn.stopReason, "length");
  assertEquals(turn.thinkingBlocks, [{ type: "redacted_thinking", data: "opaque==" }]);
  assertEquals(server.requests[0]?.tools, undefined);
});

Deno.test("createAnthropicProvider() maps overloaded, rate-limit, invalid-request and auth errors", async () => {
  const error = (type: string, message: string) => ({ type: "error", error: { type, message } });
  await using server = startFakeAnthropicServer([
    reply().httpError(529, error("overloaded_error", "Overloaded")),
    anthropicReply().httpError(429, error("rate_limit_error", "Number of requests exceeded"))
      .retryAfter(17),
    reply().httpError(
      400,
      error("invalid_request_error", "messages: text content blocks must be non-empty"),
    ),
    reply().httpError(401, error("authentication_error", "invalid x-api-key")),
    reply().httpError(400, {
      error: {
        code: 400,
        message: "the request exceeds the available context size",
        type: "invalid_request_error",
      },
    }),
  ]);
  const provider = createAnthropicProvider({ baseUrl: server.baseUrl, model: "m" });
  const messages: Message[] = [{ kind: "user", content: "hi" }];
  const texts: string[] = [];
  for (let i = 0; i < 5; i++) {
    const turn = await provider.complete({ messages, tools: [] });
    assertEquals(turn.stopReason, "error");
    assert(turn.error?.kind === "provider_http");
    texts.push(`${turn.error.status} ${turn.error.message}`);
  }
  assertEquals(texts, [
    "529 Overloaded: the API is overloaded: try again in a moment",
    "429 Number of requests exceeded: rate limited: try again in 17 s",
    "400 messages: text content blocks must be non-empty",
    "401 invalid x-api-key: pass --api-key or set ANTHROPIC_API_KEY",
    "400 the request exceeds the available context size: start a new session or raise the server's context size",
  ]);
});

Deno.test("createAnthropicProvider() marks a context refusal with the numbers stated, so the conversation cuts and retries", async () => {
  await using server = startFakeAnthropicServer([
    // api.anthropic.com's words, and llama-server's /v1/messages body with n_ctx.
    reply().httpError(400, {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "prompt is too long: 208721 tokens > 200000 maximum",
      },
    }),
    reply().httpError(400, {
      error: {
        code: 400,
        message: "request (9060 tokens) exceeds the available context size (8192 tokens)",
        type: "exceed_context_size_error",
        n_prompt_tokens: 9060,
        n_ctx: 8192,
      },
    }),
    reply().httpError(400, {
      type: "error",
      error: { type: "invalid_request_error", message: "max_tokens: Field required" },
    }),
  ]);
  const provider = createAnthropicProvider({ baseUrl: server.baseUrl, model: "m" });
  const messages: Message[] = [{ kind: "user", content: "hi" }];
  const refusals = [];
  for (let i = 0; i < 3; i++) {
    const turn = await provider.complete({ messages, tools: [] });
    assertEquals(turn.stopReason, "error");
    refusals.push(turn.contextExceeded);
  }
  assertEquals(refusals, [
    { limit: 200000, promptTokens: 208721 },
    { limit: 8192, promptTokens: 9060 },
    undefined,
  ]);
});

Deno.test("createAnthropicProvider() turns an error event mid-stream into a stream error and keeps the text", async () => {
  await using server = startFakeAnthropicServer([
    anthropicReply().text("Hal").errorEvent("overloaded_error", "Overloaded"),
  ]);
  const provider = createAnthropicProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({ messages: [{ kind: "user", content: "hi" }], tools: [] });
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.text, "Hal");
  assert(turn.error?.kind === "provider_stream");
  assertEquals(
    turn.error.message,
    "the server reported: Overloaded: the API is overloaded: try again in a moment",
  );
});

Deno.test("createAnthropicProvider() reports a stream cut before message_stop and drops its tool calls", async () => {
  await using server = startFakeAnthropicServer([
    reply().toolCall("ls", {}).finish(null).noDone(),
    reply().text("x").dropConnection(3),
  ]);
  const provider = createAnthropicProvider({ baseUrl: server.baseUrl, model: "m" });
  for (let i = 0; i < 2; i++) {
    const turn = await provider.complete({
      messages: [{ kind: "user", content: "hi" }],
      tools: [],
    });
    assertEquals(turn.stopReason, "error");
    assertEquals(turn.toolCalls, []);
    assert(turn.error?.kind === "provider_stream");
  }
});

Deno.test("createAnthropicProvider() returns aborted when the signal fires mid-stream", async () => {
  await using server = startFakeAnthropicServer([reply().text("Thinking about it").hang()]);
  const provider = createAnthropicProvider({ baseUrl: server.baseUrl, model: "m" });
  const controller = new AbortController();
  const turn = await provider.complete(
    { messages: [{ kind: "user", content: "hi" }], tools: [], signal: controller.signal },
    (e) => {
      if (e.type === "text_delta") controller.abort();
    },
  );
  assertEquals(turn.stopReason, "aborted");
  assertEquals(turn.text, "Thinking about it");
});

Deno.test("createAnthropicProvider() names the URL when nothing listens", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const provider = createAnthropicProvider({
    baseUrl: `http://127.0.0.1:${port}/v1/messages`,
    model: "m",
  });
  const turn = await provider.complete({ messages: [{ kind: "user", content: "hi" }], tools: [] });
  assert(turn.error?.kind === "provider_unreachable");
  assertEquals(turn.error.baseUrl, `http://127.0.0.1:${port}`);
  match(turn.error.cause, /connection refused/);
});

Deno.test("createAnthropicProvider() lists models and reads llama-server's context size from /props", async () => {
  await using server = startFakeAnthropicServer([], { models: ["a", "b"], nCtx: 32768 });
  const provider = createAnthropicProvider({ baseUrl: `${server.root}/v1`, model: "" });
  assertEquals(await provider.listModels(), { ok: true, value: ["a", "b"] });
  assertEquals(await provider.contextLength(), 32768);
  await using plain = startFakeAnthropicServer([]);
  const other = createAnthropicProvider({ baseUrl: plain.baseUrl, model: "" });
  assertEquals(await other.contextLength(), undefined);
});

Deno.test("loadSettings() sends $ANTHROPIC_API_KEY, never $OPENAI_API_KEY, to the Anthropic API", async () => {
  const cwd = await Deno.makeTempDir();
  try {
    const env = (vars: Record<string, string>) => (name: string) =>
      name === "HOME" ? cwd : vars[name];
    const anthropic = { baseUrl: "https://api.anthropic.com" };
    const both = env({ OPENAI_API_KEY: "sk-openai", ANTHROPIC_API_KEY: "sk-ant" });
    const openaiOnly = env({ OPENAI_API_KEY: "sk-openai" });
    const a = await loadSettings(anthropic, { cwd, env: both });
    assertEquals(a.ok && a.value.apiKey, "sk-ant");
    const b = await loadSettings(anthropic, { cwd, env: openaiOnly });
    assertEquals(b.ok && b.value.apiKey, undefined);
    const c = await loadSettings({ baseUrl: "http://127.0.0.1:8080/v1" }, { cwd, env: both });
    assertEquals(c.ok && c.value.apiKey, "sk-openai");
    const d = await loadSettings(
      { baseUrl: "http://127.0.0.1:8080", provider: "anthropic" },
      { cwd, env: both },
    );
    assertEquals(d.ok && d.value.apiKey, "sk-ant");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("createAnthropicProvider() sends history from other providers in a shape the API accepts", async () => {
  await using server = startFakeAnthropicServer([reply().text("ok")]);
  const provider = createAnthropicProvider({ baseUrl: server.baseUrl, model: "m" });
  const history: Message[] = [
    { kind: "system", content: "sys" },
    { kind: "user", content: "first" },
    { kind: "assistant", content: "", data: {} },
    toolCallMessage({ id: "call:1.x", name: "ls", arguments: "not json" }),
    toolResultMessage("call:1.x", "ls", makeToolResult({ data: "a" })),
    { kind: "user", content: "second" },
    { kind: "assistant", content: "   ", data: { reasoning: "unsigned thoughts" } },
    { kind: "user", content: "third" },
  ];
  await provider.complete({ messages: history, tools: [] });
  const sent = server.requests[0]!.messages;
  assertEquals(sent, [
    { role: "user", content: [{ type: "text", text: "first" }] },
    { role: "assistant", content: [{ type: "tool_use", id: "call_1_x", name: "ls", input: {} }] },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "call_1_x", content: history[4]!.content },
        { type: "text", text: "second" },
        { type: "text", text: "third" },
      ],
    },
  ]);
  assertEquals(server.pairingErrors, []);
});
