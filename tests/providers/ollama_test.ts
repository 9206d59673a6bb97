// Tests for the Ollama native provider against the scripted NDJSON server.

import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { formatAgentError } from "../../src/errors.ts";
import {
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
} from "../../src/messages.ts";
import type { ProviderEvent } from "../../src/providers/provider.ts";
import { createOllamaProvider } from "../../src/providers/ollama.ts";
import { type FakeOllama, ollamaReply, startFakeOllama } from "../helpers/fake_ollama_server.ts";
import { SERVER_FAILED_HINT } from "../../src/providers/ollama/http_errors.ts";

const USER: Message[] = [{ kind: "user", content: "Hi" }];
const TOOLS = [{
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } } },
}];

function chatBodies(server: FakeOllama): Record<string, unknown>[] {
  return server.requests.filter((r) => r.path === "/api/chat").map((r) => r.body ?? {});
}

Deno.test("createOllamaProvider() streams text and reports usage", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().text("Hel", "lo").done("stop", { prompt: 12, completion: 3 }));
  const events: ProviderEvent[] = [];
  const provider = createOllamaProvider({ baseUrl: server.url, model: "qwen3" });
  const turn = await provider.complete(
    { messages: USER, tools: [] },
    (e) => e.type !== "received" && events.push(e),
  );
  assertEquals(turn, {
    text: "Hello",
    reasoning: "",
    toolCalls: [],
    stopReason: "stop",
    usage: { promptTokens: 12, completionTokens: 3 },
  });
  assertEquals(events, [{ type: "text_delta", text: "Hel" }, { type: "text_delta", text: "lo" }]);
  assertEquals(chatBodies(server)[0]?.stream, true);
});

Deno.test("createOllamaProvider() sends num_ctx from /api/show capped by maxNumCtx", async () => {
  await using server = startFakeOllama({
    models: [{ name: "big", contextLength: 131072, capabilities: ["completion", "tools"] }, {
      name: "small",
      contextLength: 4096,
    }],
  });
  const sent = async (options: { model: string; maxNumCtx?: number; numCtx?: number }) => {
    server.script(ollamaReply().text("ok").done());
    await createOllamaProvider({ baseUrl: `${server.url}/`, ...options }).complete({
      messages: USER,
      tools: [],
    });
    return (chatBodies(server).at(-1)?.options as { num_ctx: number }).num_ctx;
  };
  assertEquals(await sent({ model: "big" }), 8192);
  assertEquals(await sent({ model: "big", maxNumCtx: 32768 }), 32768);
  assertEquals(await sent({ model: "small", maxNumCtx: 32768 }), 4096);
  assertEquals(await sent({ model: "big", numCtx: 2048 }), 2048);
});

Deno.test("createOllamaProvider() inspect() reads context length and capabilities", async () => {
  await using server = startFakeOllama({
    models: [{
      name: "gpt-oss:20b",
      architecture: "gptoss",
      contextLength: 131072,
      capabilities: ["completion", "tools", "thinking"],
    }],
  });
  const provider = createOllamaProvider({ baseUrl: server.url, model: "gpt-oss:20b" });
  assertEquals(await provider.inspect(), {
    ok: true,
    value: { contextLength: 131072, capabilities: ["completion", "tools", "thinking"] },
  });
  assertEquals(await provider.numCtx(), 8192);
  await provider.inspect();
  assertEquals(server.requests.filter((r) => r.path === "/api/show").length, 1);
});

Deno.test("createOllamaProvider() turns tool calls without ids and done_reason stop into tool_calls", async () => {
  await using server = startFakeOllama();
  server.script(
    ollamaReply().toolCall("read_file", { path: "a.txt" }).toolCall("read_file", { path: "b.txt" })
      .done("stop"),
  );
  const events: ProviderEvent[] = [];
  const turn = await createOllamaProvider({ baseUrl: server.url, model: "qwen3" }).complete(
    { messages: USER, tools: TOOLS },
    (e) => e.type !== "received" && events.push(e),
  );
  assertEquals(turn.stopReason, "tool_calls");
  assertEquals(turn.toolCalls.map((c) => [c.name, c.arguments]), [
    ["read_file", '{"path":"a.txt"}'],
    ["read_file", '{"path":"b.txt"}'],
  ]);
  ok(turn.toolCalls.every((c) => c.id.startsWith("call_")));
  ok(turn.toolCalls[0]!.id !== turn.toolCalls[1]!.id);
  assertEquals(events, [
    { type: "tool_call_started", index: 0, name: "read_file" },
    { type: "tool_call_started", index: 1, name: "read_file" },
  ]);
  const tools = chatBodies(server)[0]?.tools as { type: string; function: { name: string } }[];
  assertEquals(tools.map((t) => [t.type, t.function.name]), [["function", "read_file"]]);
});

Deno.test("createOllamaProvider() keeps ids the server sends", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().toolCall("read_file", {}, "call_abc").done());
  const turn = await createOllamaProvider({ baseUrl: server.url, model: "qwen3" }).complete({
    messages: USER,
    tools: TOOLS,
  });
  assertEquals(turn.toolCalls, [{ id: "call_abc", name: "read_file", arguments: "{}" }]);
});

Deno.test("createOllamaProvider() maps message.thinking to reasoning", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().thinking("Let me ", "think.").text("Done.").done());
  const events: ProviderEvent[] = [];
  const provider = createOllamaProvider({ baseUrl: server.url, model: "qwen3", think: true });
  const turn = await provider.complete(
    { messages: USER, tools: [] },
    (e) => e.type !== "received" && events.push(e),
  );
  assertEquals([turn.reasoning, turn.text], ["Let me think.", "Done."]);
  assertEquals(events[0], { type: "reasoning_delta", text: "Let me " });
  assertEquals(chatBodies(server)[0]?.think, true);
});

Deno.test("createOllamaProvider() turns an error line in a 200 stream into an error turn", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().text("par").errorLine("model runner has unexpectedly stopped"));
  const turn = await createOllamaProvider({ baseUrl: server.url, model: "qwen3" }).complete({
    messages: USER,
    tools: [],
  });
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.error, {
    kind: "provider_stream",
    baseUrl: server.url,
    message: `the server reported: model runner has unexpectedly stopped: ${SERVER_FAILED_HINT}`,
  });
});

Deno.test("createOllamaProvider() reports HTTP errors, dropped connections and bad lines", async () => {
  await using server = startFakeOllama();
  const provider = createOllamaProvider({ baseUrl: server.url, model: "qwen3" });
  server.script(ollamaReply().httpError(500, "out of memory"));
  const http = await provider.complete({ messages: USER, tools: [] });
  assertEquals(http.error, {
    kind: "provider_http",
    baseUrl: server.url,
    status: 500,
    message: `out of memory: ${SERVER_FAILED_HINT}`,
  });
  server.script(ollamaReply().text("a").dropConnection());
  const dropped = await provider.complete({ messages: USER, tools: [] });
  assertEquals([dropped.stopReason, dropped.error?.kind], ["error", "provider_stream"]);
  server.script(ollamaReply().text("a").raw("{not json"));
  const bad = await provider.complete({ messages: USER, tools: [] });
  assertEquals(bad.error?.kind, "provider_stream");
  server.script(ollamaReply().text("a"));
  const unfinished = await provider.complete({ messages: USER, tools: [] });
  assertEquals(unfinished.error?.kind, "provider_stream");
});

Deno.test("createOllamaProvider() names a host that does not resolve", async () => {
  const turn = await createOllamaProvider({
    baseUrl: "http://no-such-host.invalid:11434",
    model: "qwen3",
  }).complete({ messages: USER, tools: [] });
  assertEquals(turn.error, {
    kind: "provider_unreachable",
    baseUrl: "http://no-such-host.invalid:11434",
    cause: 'cannot resolve host "no-such-host.invalid": check the host name in --base-url',
  });
});

Deno.test("createOllamaProvider() reports done_reason length", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().text("cut").done("length"));
  const turn = await createOllamaProvider({ baseUrl: server.url, model: "qwen3" }).complete({
    messages: USER,
    tools: [],
  });
  assertEquals(turn.stopReason, "length");
});

Deno.test("createOllamaProvider() says clearly when a model does not support tools", async () => {
  await using server = startFakeOllama({
    models: [{ name: "gemma:2b", capabilities: ["completion"] }],
  });
  const provider = createOllamaProvider({ baseUrl: server.url, model: "gemma:2b" });
  const turn = await provider.complete({ messages: USER, tools: TOOLS });
  assertEquals(turn.stopReason, "error");
  assertEquals(
    formatAgentError(turn.error!),
    'Model "gemma:2b" does not support tools: pick a model whose capabilities include "tools" (ollama show gemma:2b)',
  );
  assertEquals(chatBodies(server).length, 0);
  // Without tools the same model answers.
  server.script(ollamaReply().text("hi").done());
  assertEquals((await provider.complete({ messages: USER, tools: [] })).text, "hi");
});

Deno.test("createOllamaProvider() maps the server's own no-tools answer", async () => {
  await using server = startFakeOllama({ models: [{ name: "old" }] });
  server.script(
    ollamaReply().httpError(400, "registry.ollama.ai/library/old does not support tools"),
  );
  const turn = await createOllamaProvider({ baseUrl: server.url, model: "old" }).complete({
    messages: USER,
    tools: TOOLS,
  });
  ok(formatAgentError(turn.error!).startsWith('Model "old" does not support tools'));
});

Deno.test("createOllamaProvider() tells how to get a missing model", async () => {
  await using server = startFakeOllama();
  const turn = await createOllamaProvider({ baseUrl: server.url, model: "nope" }).complete({
    messages: USER,
    tools: [],
  });
  assertEquals(turn.error?.kind, "provider_http");
  ok(formatAgentError(turn.error!).includes('pull it with "ollama pull nope"'));
});

Deno.test("createOllamaProvider() reports a refused connection with a hint", async () => {
  const server = startFakeOllama();
  const url = server.url;
  await server.close();
  const provider = createOllamaProvider({ baseUrl: url, model: "qwen3" });
  const turn = await provider.complete({ messages: USER, tools: [] });
  assertEquals(turn.error, {
    kind: "provider_unreachable",
    baseUrl: url,
    cause: 'connection refused: start Ollama with "ollama serve" or pass --base-url',
  });
  const listed = await provider.listModels();
  assertEquals(listed.ok ? "" : listed.error.kind, "provider_unreachable");
});

Deno.test("createOllamaProvider() listModels() reads /api/tags", async () => {
  await using server = startFakeOllama({ models: [{ name: "qwen3:8b" }, { name: "llama3.2:3b" }] });
  const listed = await createOllamaProvider({ baseUrl: server.url, model: "" }).listModels();
  assertEquals(listed, { ok: true, value: ["qwen3:8b", "llama3.2:3b"] });
});

Deno.test("createOllamaProvider() sends tool calls as objects and results with tool_name", async () => {
  await using server = startFakeOllama();
  server.script(ollamaReply().text("It says hi.").done());
  const messages: Message[] = [
    { kind: "system", content: "Be brief." },
    ...USER,
    { kind: "assistant", content: "Reading.", data: {} },
    toolCallMessage({ id: "c1", name: "read_file", arguments: '{"path":"a"}' }),
    toolResultMessage("c1", "read_file", makeToolResult({ data: "hi" })),
  ];
  await createOllamaProvider({ baseUrl: server.url, model: "qwen3" }).complete({
    messages,
    tools: TOOLS,
  });
  const wire = chatBodies(server)[0]?.messages as Record<string, unknown>[];
  assertEquals(wire.map((m) => m.role), ["system", "user", "assistant", "tool"]);
  assertEquals(wire[2]?.tool_calls, [{
    id: "c1",
    function: { name: "read_file", arguments: { path: "a" } },
  }]);
  assertEquals([wire[3]?.tool_name, wire[3]?.tool_call_id], ["read_file", "c1"]);
  assertEquals(server.problems, []);
});
