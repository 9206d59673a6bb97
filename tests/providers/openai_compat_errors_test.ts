// Failures become error turns with messages a user can act on; aborts and model listing.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createOpenAICompatProvider } from "../../src/providers/openai_compat.ts";
import { type AgentError, formatAgentError } from "../../src/errors.ts";
import type { Message } from "../../src/messages.ts";
import { reply, type ReplyBuilder, startFakeLlmServer } from "../helpers/fake_llm_server.ts";

const USER: Message[] = [{ kind: "user", content: "hi" }];

async function failWith(script: ReplyBuilder[], model = "llama3"): Promise<AgentError> {
  await using server = startFakeLlmServer(script);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model });
  const turn = await provider.complete({ messages: USER, tools: [] });
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.toolCalls, []);
  assert(turn.error);
  return turn.error;
}

function assertUserFacing(error: AgentError): string {
  const text = formatAgentError(error);
  assert(!text.endsWith("."), text);
  assert(!/\n|\s{4}at /.test(text), text);
  return text;
}

async function closedPort(): Promise<number> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(),
  );
  const port = server.addr.port;
  await server.shutdown();
  return port;
}

Deno.test("createOpenAICompatProvider() reports a refused connection with the fix", async () => {
  const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
  const provider = createOpenAICompatProvider({ baseUrl, model: "m" });
  const turn = await provider.complete({ messages: USER, tools: [] });
  assertEquals(turn.stopReason, "error");
  assertEquals(turn.error, {
    kind: "provider_unreachable",
    baseUrl,
    cause: "connection refused: start the model server or pass --base-url",
  });
  assertUserFacing(turn.error);
});

Deno.test("createOpenAICompatProvider() suggests ollama serve for the Ollama port", async () => {
  // 127.0.0.3 rather than 127.0.0.1, where a real Ollama may run; binding it first shows
  // that nothing listens there.
  Deno.listen({ hostname: "127.0.0.3", port: 11434 }).close();
  const baseUrl = "http://127.0.0.3:11434/v1";
  const turn = await createOpenAICompatProvider({ baseUrl, model: "m" })
    .complete({ messages: USER, tools: [] });
  assertEquals(turn.error?.kind, "provider_unreachable");
  assertEquals(
    turn.error.cause,
    'connection refused: start Ollama with "ollama serve" or pass --base-url',
  );
});

Deno.test("createOpenAICompatProvider() reports a missing model in the server's words", async () => {
  const error = await failWith([
    reply().httpError(404, {
      error: {
        message: 'model "llama3" not found, try pulling it first',
        type: "api_error",
        param: null,
        code: null,
      },
    }),
  ]);
  assert(error.kind === "provider_http");
  assertEquals(error.status, 404);
  assertEquals(
    error.message,
    'model "llama3" not found, try pulling it first: check the model name "llama3" or pick ' +
      'another with --model (for Ollama: "ollama pull llama3")',
  );
  assertUserFacing(error);
});

Deno.test("createOpenAICompatProvider() reports a model without tool support", async () => {
  const error = await failWith([
    reply().httpError(400, {
      error: { message: "registry.ollama.ai/library/gemma:2b does not support tools" },
    }),
  ]);
  assert(error.kind === "provider_http");
  assertEquals(
    error.message,
    "registry.ollama.ai/library/gemma:2b does not support tools: " +
      "use a model or chat template that supports tool calling",
  );
});

Deno.test("createOpenAICompatProvider() reports a context overflow from vLLM", async () => {
  const error = await failWith([
    reply().httpError(400, {
      object: "error",
      message: "This model's maximum context length is 4096 tokens. However, you requested " +
        "5000 tokens in the messages.",
      type: "BadRequestError",
      param: null,
      code: 400,
    }),
  ]);
  assert(error.kind === "provider_http");
  assert(error.message.startsWith("This model's maximum context length is 4096 tokens"));
  assert(
    error.message.endsWith(
      ": type /compact, start a new session, or raise the server's context size",
    ),
  );
  assertUserFacing(error);
});

Deno.test("createOpenAICompatProvider() extracts error strings, detail and plain text bodies", async () => {
  const cases: [unknown, string][] = [
    [{ error: "server busy" }, "server busy"],
    [{ detail: "Not authenticated" }, "Not authenticated"],
    [{ detail: [{ loc: ["body", "model"], msg: "field required" }] }, "field required"],
    [{ message: "plain message." }, "plain message"],
    ["Bad Gateway\n", "Bad Gateway"],
  ];
  for (const [body, expected] of cases) {
    const error = await failWith([reply().httpError(502, body)]);
    assertEquals(error, {
      kind: "provider_http",
      baseUrl: error.kind === "provider_http" ? error.baseUrl : "",
      status: 502,
      message: expected,
    });
  }
});

Deno.test("createOpenAICompatProvider() tells how to pass an API key on 401", async () => {
  const error = await failWith([reply().httpError(401, { error: { message: "Invalid API key" } })]);
  assert(error.kind === "provider_http");
  assertEquals(error.message, "Invalid API key: pass --api-key or set HARNESS_API_KEY");
});

Deno.test("createOpenAICompatProvider() does not retry a 500", async () => {
  await using server = startFakeLlmServer([
    reply().httpError(500, { error: { message: "boom" } }),
    reply().text("retried"),
  ]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({ messages: USER, tools: [] });
  assertEquals(turn.error?.kind, "provider_http");
  assertEquals(server.requests.length, 1);
});

Deno.test("createOpenAICompatProvider() reports an exhausted fake script as HTTP 500", async () => {
  const error = await failWith([]);
  assertEquals(error, {
    kind: "provider_http",
    baseUrl: error.kind === "provider_http" ? error.baseUrl : "",
    status: 500,
    message: "fake server: no scripted reply left for request 1",
  });
});

Deno.test("createOpenAICompatProvider() reports a broken connection mid-stream", async () => {
  const error = await failWith([reply().text("partial").dropConnection(2)]);
  assert(error.kind === "provider_stream");
  assert(error.message.startsWith("the connection closed mid-stream: "), error.message);
  assertUserFacing(error);
});

Deno.test("createOpenAICompatProvider() returns aborted when the signal fires mid-stream", async () => {
  await using server = startFakeLlmServer([reply().text("partial").toolCall("ls", {}).hang()]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const controller = new AbortController();
  const turn = await provider.complete(
    { messages: USER, tools: [], signal: controller.signal },
    (event) => {
      if (event.type === "tool_call_started") controller.abort();
    },
  );
  assertEquals(turn.stopReason, "aborted");
  assertEquals(turn.text, "partial");
  assertEquals(turn.toolCalls, []);
});

Deno.test("createOpenAICompatProvider() returns aborted while waiting for headers", async () => {
  await using server = startFakeLlmServer([reply().delay(5_000).text("late")]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({
    messages: USER,
    tools: [],
    signal: AbortSignal.timeout(100),
  });
  assertEquals(turn.stopReason, "aborted");
});

Deno.test("createOpenAICompatProvider() sends nothing when the signal is already aborted", async () => {
  await using server = startFakeLlmServer([reply().text("never")]);
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const turn = await provider.complete({ messages: USER, tools: [], signal: AbortSignal.abort() });
  assertEquals(turn.stopReason, "aborted");
  assertEquals(server.requests.length, 0);
});

Deno.test("createOpenAICompatProvider() gives up after firstByteTimeoutMs without headers", async () => {
  await using server = startFakeLlmServer([reply().delay(5_000).text("late")]);
  const provider = createOpenAICompatProvider({
    baseUrl: server.baseUrl,
    model: "m",
    firstByteTimeoutMs: 200,
  });
  const turn = await provider.complete({ messages: USER, tools: [] });
  // The fake server accepted the connection: it is silent, not unreachable.
  assert(turn.error?.kind === "provider_silent", JSON.stringify(turn.error));
  assert(turn.error.cause.startsWith("sent nothing within 200 ms: "), turn.error.cause);
  assert(turn.error.cause.includes("--first-byte-timeout"), turn.error.cause);
  assertEquals(server.requests.length, 1);
});

Deno.test("createOpenAICompatProvider() lists the server's models", async () => {
  await using server = startFakeLlmServer([], { models: ["qwen3:8b", "llama3.2"] });
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  assertEquals(await provider.listModels(), { ok: true, value: ["qwen3:8b", "llama3.2"] });
});

Deno.test("createOpenAICompatProvider() reports a server that cannot list models", async () => {
  await using server = startFakeLlmServer([], { models: null });
  const provider = createOpenAICompatProvider({ baseUrl: server.baseUrl, model: "m" });
  const listed = await provider.listModels();
  assert(!listed.ok && listed.error.kind === "provider_http", JSON.stringify(listed));
  assertEquals(listed.error.status, 404);
  const refused = await createOpenAICompatProvider({
    baseUrl: `http://127.0.0.1:${await closedPort()}/v1`,
    model: "m",
  }).listModels();
  assert(!refused.ok && refused.error.kind === "provider_unreachable");
});
