// chat_client.ts against npm:openai, the library it replaces (DESIGN.md 15): both read the same
// bytes from one loopback server (SSE split anywhere, CRLF and CR, comments, [DONE], tool-call
// deltas, usage, error events, error statuses of llama-server, Ollama, vLLM, LM Studio and
// OpenAI, a server that closes early, refused connections, timeouts, aborts, /models) and must
// hand on the same chunks, end the same way and give the user the same error text.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import OpenAI from "openai";
import {
  type ChatStreamEnd,
  type ClientFailure,
  fetchModelList,
  streamChatCompletion,
} from "../../src/providers/openai_compat/chat_client.ts";
import { describeError } from "../../src/providers/openai_compat/http_errors.ts";
import type { AgentError } from "../../src/errors.ts";
import { TurnAccumulator } from "../../src/providers/openai_compat/stream_reader.ts";
import type { AssistantTurn } from "../../src/providers/provider.ts";
import { isRecord } from "../../src/platform/json_values.ts";

/** One scripted answer: status, headers, then body parts written one read apart. */
interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** Body parts, each flushed on its own after a short pause. */
  parts?: (string | Uint8Array)[];
  /** Wait this long before the headers. */
  delayMs?: number;
  /** Keep the body open after the parts (until the client goes). */
  hang?: boolean;
}

interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string | null>;
  body: unknown;
}

const SSE = { "content-type": "text/event-stream" };
const OPTIONS = { baseUrl: "", model: "qwen3", timeoutMs: 1000 };

/** A loopback server that answers each request with the next script, twice over. */
function startServer(answer: Answer) {
  const recorded: Recorded[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      const text = await request.text();
      recorded.push({
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(
          ["accept", "authorization", "content-type"].map((name) => [
            name,
            request.headers.get(name),
          ]),
        ),
        body: text === "" ? undefined : JSON.parse(text),
      });
      if (answer.delayMs) await new Promise((settle) => setTimeout(settle, answer.delayMs));
      const encoder = new TextEncoder();
      const parts = (answer.parts ?? []).map((part) =>
        typeof part === "string" ? encoder.encode(part) : part
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const part = parts.shift();
          if (part !== undefined) {
            controller.enqueue(part);
            // A pause between parts makes each one its own read on the client.
            await new Promise((settle) => timer = setTimeout(settle, 1));
            return;
          }
          if (!answer.hang) controller.close();
          else await new Promise(() => {}); // never settles: the client aborts
        },
        cancel() {
          clearTimeout(timer);
        },
      });
      return new Response(body, {
        status: answer.status ?? 200,
        headers: answer.headers ?? SSE,
      });
    },
  );
  const baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  return {
    baseUrl,
    recorded,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/** What a client made of one answer. */
interface Outcome {
  chunks: unknown[];
  end: "done" | "aborted" | AgentError;
}

const BODY = {
  model: "qwen3",
  messages: [{ role: "user", content: "hi" }],
  stream: true,
  stream_options: { include_usage: true },
};

/** npm:openai as the provider used it before chat_client.ts (maxRetries 0, no logging). */
function sdkClient(baseUrl: string, timeoutMs: number): OpenAI {
  return new OpenAI({
    baseURL: baseUrl,
    apiKey: "no-key",
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: "off",
  });
}

/** What npm:openai threw, as the client failure it stood for in the old describeError. */
function sdkFailure(error: unknown): ClientFailure {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { kind: "timeout" };
  if (error instanceof OpenAI.APIConnectionError) {
    return { kind: "connection", cause: error.cause ?? error };
  }
  if (error instanceof OpenAI.APIError) {
    if (error.status === undefined) {
      return { kind: "error_event", error: error.error, message: error.message };
    }
    const message = error.message.replace(/^\d{3} /, "");
    return { kind: "http", status: error.status, error: error.error, message };
  }
  if (error instanceof SyntaxError) return { kind: "malformed", data: "" };
  return { kind: "broken", cause: error };
}

function described(failure: ClientFailure, baseUrl: string): AgentError {
  const error = describeError(failure, { ...OPTIONS, baseUrl }).error;
  // npm:openai does not say which data was malformed; chat_client.ts quotes it.
  if (error.kind === "provider_stream" && error.message.startsWith("malformed JSON in an event")) {
    return { ...error, message: "malformed JSON in an event" };
  }
  return error;
}

async function viaSdk(
  baseUrl: string,
  options: { timeoutMs?: number; abortAfter?: number } = {},
): Promise<Outcome> {
  const controller = new AbortController();
  const chunks: unknown[] = [];
  const client = sdkClient(baseUrl, options.timeoutMs ?? 5000);
  try {
    const stream = await client.chat.completions.create(
      BODY as OpenAI.Chat.ChatCompletionCreateParamsStreaming,
      { signal: controller.signal },
    );
    for await (const chunk of stream) {
      chunks.push(chunk);
      if (chunks.length === options.abortAfter) controller.abort();
    }
  } catch (error) {
    if (controller.signal.aborted) return { chunks, end: "aborted" };
    return { chunks, end: described(sdkFailure(error), baseUrl) };
  }
  return { chunks, end: controller.signal.aborted ? "aborted" : "done" };
}

async function viaClient(
  baseUrl: string,
  options: { timeoutMs?: number; abortAfter?: number } = {},
): Promise<Outcome & { reads: number }> {
  const controller = new AbortController();
  const chunks: unknown[] = [];
  let reads = 0;
  const end: ChatStreamEnd = await streamChatCompletion({ baseUrl }, BODY, {
    signal: controller.signal,
    timeoutMs: options.timeoutMs ?? 5000,
    onChunk(chunk) {
      chunks.push(chunk);
      if (chunks.length === options.abortAfter) controller.abort();
    },
    onReceived: () => reads++,
  });
  // The provider folds the chunks as they came into a turn, as it did npm:openai's.
  assertEquals(turnOf(chunks), turnOf(chunks.map(withFinishReason)));
  return {
    chunks: chunks.map(withFinishReason),
    end: end.kind === "failed" ? described(end.failure, baseUrl) : end.kind,
    reads,
  };
}

/**
 * npm:openai sets a missing `finish_reason` of a choice to null; the stream reader reads both
 * as "not finished" (viaClient checks that the turn is the same).
 */
function withFinishReason(chunk: unknown): unknown {
  if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return chunk;
  const choices = chunk.choices.map((choice) => ({
    ...choice,
    finish_reason: isRecord(choice) ? choice.finish_reason ?? null : null,
  }));
  return { ...chunk, choices };
}

/** The turn the provider folds chunks into. */
function turnOf(chunks: unknown[]): AssistantTurn {
  const accumulator = new TurnAccumulator();
  for (const chunk of chunks) accumulator.add(chunk);
  return accumulator.finish("http://127.0.0.1:9/v1", new Set());
}

/** Both clients against the same answer: the same chunks, the same end, the same request. */
async function same(
  answer: Answer,
  options: { timeoutMs?: number; abortAfter?: number } = {},
): Promise<Outcome & { reads: number }> {
  await using server = startServer(answer);
  const sdk = await viaSdk(server.baseUrl, options);
  const { reads, ...ours } = await viaClient(server.baseUrl, options);
  assertEquals(ours, sdk);
  assertEquals(server.recorded.length, 2);
  assertEquals(server.recorded[1], server.recorded[0]);
  return { ...ours, reads };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "c1",
  object: "chat.completion.chunk",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const event = (data: unknown, eol = "\n") =>
  `data: ${typeof data === "string" ? data : JSON.stringify(data)}${eol}${eol}`;

function bytesSplitEvery(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.slice(i, i + size));
  return parts;
}

const TEXT_STREAM = event(chunk({ role: "assistant", content: "Grüße, " })) +
  event(chunk({ content: "naïve 🙂 text" })) +
  event(chunk({}, "stop")) +
  event({ id: "c1", choices: [], usage: { prompt_tokens: 9, completion_tokens: 4 } }) +
  "data: [DONE]\n\n";

Deno.test("streamChatCompletion() reads a stream split at every byte as npm:openai does", async () => {
  const { chunks, end, reads } = await same({ parts: bytesSplitEvery(TEXT_STREAM, 1) });
  assertEquals(end, "done");
  assertEquals(chunks.length, 4);
  // The parts did arrive apart (a multi-byte character among them).
  assert(reads > TEXT_STREAM.length / 10, `${reads} reads`);
});

Deno.test("streamChatCompletion() reads events split mid-line and mid-character as npm:openai does", async () => {
  await same({ parts: bytesSplitEvery(TEXT_STREAM, 7) });
  await same({ parts: bytesSplitEvery(TEXT_STREAM, 50) });
  await same({ parts: [TEXT_STREAM] });
});

Deno.test("streamChatCompletion() reads CRLF and CR line ends as npm:openai does", async () => {
  const crlf = TEXT_STREAM.replaceAll("\n", "\r\n");
  assertEquals((await same({ parts: [crlf] })).chunks.length, 4);
  // A CRLF split between two reads, inside and between events.
  const cut = crlf.indexOf("\r\n") + 1;
  await same({ parts: [crlf.slice(0, cut), crlf.slice(cut)] });
  await same({ parts: bytesSplitEvery(crlf, 3) });
  assertEquals((await same({ parts: [TEXT_STREAM.replaceAll("\n", "\r")] })).chunks.length, 4);
});

Deno.test("streamChatCompletion() skips comments, ids and unknown fields as npm:openai does", async () => {
  const { chunks } = await same({
    parts: [
      ": keep-alive\n\n",
      "id: 1\nretry: 100\nevent: message\n" + event(chunk({ content: "a" })),
      ":comment\nfoo: bar\n" + event(chunk({ content: "b" })),
      `data:${JSON.stringify(chunk({}, "stop"))}\n\n`,
      "data: [DONE]\n\n",
    ],
  });
  assertEquals(chunks.length, 3);
});

Deno.test("streamChatCompletion() joins multi-line data and reads a last event without a blank line", async () => {
  const { chunks } = await same({
    parts: [
      'data: {"choices": [{"index": 0,\ndata: "delta": {"content": "x"}}]}\n\n',
      `data: ${JSON.stringify(chunk({}, "stop"))}`,
    ],
  });
  assertEquals(chunks.length, 2);
});

Deno.test("streamChatCompletion() stops at [DONE] and ignores what follows, as npm:openai does", async () => {
  const { chunks } = await same({
    parts: [event(chunk({ content: "a" })), "data: [DONE]\n\n", "data: {not json\n\n"],
  });
  assertEquals(chunks.length, 1);
  // Without [DONE] the stream ends with the body.
  await same({ parts: [event(chunk({ content: "a" })), event(chunk({}, "stop"))] });
});

Deno.test("streamChatCompletion() hands on tool-call deltas split over reads unchanged", async () => {
  const calls = event(chunk({
    tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "ls" } }],
  })) +
    event(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] })) +
    event(chunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "."}' } }] })) +
    event(chunk({
      tool_calls: [{ index: 1, id: "call_2", function: { name: "read", arguments: {} } }],
    })) +
    event(chunk({}, "tool_calls")) +
    "data: [DONE]\n\n";
  const { chunks } = await same({ parts: bytesSplitEvery(calls, 11) });
  assertEquals(chunks.length, 5);
});

Deno.test("streamChatCompletion() reports error events inside a stream as npm:openai does", async () => {
  const openai = await same({
    parts: [
      event(chunk({ content: "par" })),
      event({ error: { message: "model crashed while generating", type: "server_error" } }),
    ],
  });
  assertEquals(openai.chunks.length, 1);
  assertEquals(openai.end, {
    kind: "provider_stream",
    baseUrl: (openai.end as { baseUrl: string }).baseUrl,
    message: "the server reported: model crashed while generating",
  });
  // llama-server: the status in `code`, and a context overflow with its numbers.
  const llama = await same({
    parts: [event({
      error: {
        code: 400,
        message: "the request (5000 tokens) exceeds the available context size (4096 tokens)",
        type: "exceed_context_size_error",
        n_prompt_tokens: 5000,
        n_ctx: 4096,
      },
    })],
  });
  assert(typeof llama.end === "object" && llama.end.kind === "provider_http");
  await same({ parts: [event({ error: "a bare string" })] });
  // An `event: error` with or without an `error` field.
  await same({ parts: ['event: error\ndata: {"message": "overloaded"}\n\n'] });
  await same({ parts: ['event: error\ndata: {"error": {"message": "overloaded"}}\n\n'] });
  await same({ parts: ["event: error\ndata: null\n\n"] });
  // A falsy `error` field is no error.
  assertEquals((await same({ parts: [event({ error: null, choices: [] })] })).end, "done");
});

Deno.test("streamChatCompletion() reports malformed JSON in an event", async () => {
  const { end } = await same({ parts: [event(chunk({ content: "a" })), "data: {not json\n\n"] });
  assert(typeof end === "object" && end.kind === "provider_stream", JSON.stringify(end));
  await using server = startServer({ parts: ["data: {not json\n\n"] });
  const ours = await streamChatCompletion({ baseUrl: server.baseUrl }, BODY, {
    signal: new AbortController().signal,
    timeoutMs: 5000,
    onChunk() {},
  });
  assert(ours.kind === "failed");
  const error = describeError(ours.failure, { ...OPTIONS, baseUrl: server.baseUrl }).error;
  assertEquals(
    error.kind === "provider_stream" && error.message,
    'malformed JSON in an event: "{not json"',
  );
});

Deno.test("streamChatCompletion() reports error statuses of each server as npm:openai does", async () => {
  const json = { "content-type": "application/json" };
  const bodies: [number, string, Record<string, string>][] = [
    // OpenAI
    [
      401,
      '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}',
      json,
    ],
    [
      429,
      '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}',
      json,
    ],
    [
      400,
      `{"error":{"message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`,
      json,
    ],
    // vLLM
    [
      400,
      '{"object":"error","message":"This model\'s maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).","type":"BadRequestError","param":null,"code":400}',
      json,
    ],
    [
      400,
      '{"object":"error","message":"Tool call id must be a string of length 9","type":"BadRequestError","code":400}',
      json,
    ],
    [
      404,
      '{"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","code":404}',
      json,
    ],
    [
      422,
      '{"detail":[{"loc":["body","messages"],"msg":"field required","type":"value_error.missing"}]}',
      json,
    ],
    // Ollama
    [404, '{"error":"model \\"llama9\\" not found, try pulling it first"}', json],
    [400, '{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}', json],
    // llama-server
    [
      400,
      '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}',
      json,
    ],
    [
      500,
      '{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}',
      json,
    ],
    [503, '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}', json],
    // LM Studio
    [
      400,
      '{"error":"Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens"}',
      json,
    ],
    [
      404,
      '{"error":{"message":"Model does not exist","type":"invalid_request_error","param":"model","code":"model_not_found"}}',
      json,
    ],
    // Proxies and odd bodies
    [500, "Internal Server Error", { "content-type": "text/plain" }],
    [502, "<html><body><h1>502 Bad Gateway</h1></body></html>", { "content-type": "text/html" }],
    [500, "", json],
    [500, '"just a string"', json],
    [500, "null", json],
    [500, "[1, 2]", json],
    [500, '{"unexpected": true}', json],
    [500, '{"error": {"msg": "nested"}}', json],
    [500, '{"message": {"text": "not a string"}}', json],
  ];
  for (const [status, body, headers] of bodies) {
    const { end } = await same({ status, headers, parts: body === "" ? [] : [body] });
    assert(typeof end === "object" && end.kind === "provider_http", `${status} ${body}`);
    assertEquals(end.status, status);
  }
});

/**
 * A server that writes a chunked 200 stream's first parts and closes the socket, as a crashed
 * model server does; it serves two requests.
 */
function startClosingServer(parts: string[]) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const encoder = new TextEncoder();
  const served = (async () => {
    for (let i = 0; i < 2; i++) {
      const connection = await listener.accept();
      const buffer = new Uint8Array(64 * 1024);
      let request = "";
      while (!/\r\n\r\n[^]*\}$/.test(request)) {
        const read = await connection.read(buffer);
        if (read === null) break;
        request += new TextDecoder().decode(buffer.subarray(0, read));
      }
      const head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
        "transfer-encoding: chunked\r\n\r\n";
      const chunked = parts.map((part) => {
        const bytes = encoder.encode(part);
        return `${bytes.length.toString(16)}\r\n${part}\r\n`;
      });
      await connection.write(encoder.encode(head + chunked.join("")));
      connection.close();
    }
  })();
  return {
    baseUrl: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/v1`,
    async [Symbol.asyncDispose]() {
      listener.close();
      await served.catch(() => {});
    },
  };
}

Deno.test("streamChatCompletion() keeps what streamed when the server closes early", async () => {
  await using server = startClosingServer([event(chunk({ content: "some" })), 'data: {"choi']);
  const sdk = await viaSdk(server.baseUrl);
  const { reads: _, ...ours } = await viaClient(server.baseUrl);
  assertEquals(ours, sdk);
  assertEquals(ours.chunks.length, 1);
  assert(typeof ours.end === "object" && ours.end.kind === "provider_stream", JSON.stringify(ours));
  assert(ours.end.message.startsWith("the connection closed mid-stream: "), ours.end.message);
  // Closed cleanly after half an event: the half is parsed and is not JSON.
  await same({ parts: [event(chunk({ content: "some" })), 'data: {"choi'] });
});

Deno.test("streamChatCompletion() reports a refused connection as npm:openai does", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(),
  );
  const baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  await server.shutdown();
  const sdk = await viaSdk(baseUrl);
  const { reads: _, ...ours } = await viaClient(baseUrl);
  assertEquals(ours, sdk);
  assert(typeof sdk.end === "object" && sdk.end.kind === "provider_unreachable");
  assert(sdk.end.cause.startsWith("connection refused"), sdk.end.cause);
});

Deno.test("streamChatCompletion() times out without headers as npm:openai does", async () => {
  const { end } = await same({ delayMs: 600, parts: [TEXT_STREAM] }, { timeoutMs: 150 });
  assert(typeof end === "object" && end.kind === "provider_unreachable", JSON.stringify(end));
});

Deno.test("streamChatCompletion() stops quietly when aborted mid-stream, as npm:openai does", async () => {
  const { chunks, end } = await same(
    { parts: [event(chunk({ content: "a" })), event(chunk({ content: "b" }))], hang: true },
    { abortAfter: 2 },
  );
  assertEquals(end, "aborted");
  assertEquals(chunks.length, 2);
});

Deno.test("streamChatCompletion() differs from npm:openai on an event without data: it skips it", async () => {
  // npm:openai parses the empty data of `event: ping` and fails; no server sends one in a Chat
  // Completions stream, and a stream that did is better read on.
  await using server = startServer({
    parts: ["event: ping\n\n", event(chunk({}, "stop")), "data: [DONE]\n\n"],
  });
  const sdk = await viaSdk(server.baseUrl);
  assert(typeof sdk.end === "object" && sdk.end.kind === "provider_stream");
  const { reads: _, ...ours } = await viaClient(server.baseUrl);
  assertEquals(ours, { chunks: [chunk({}, "stop")], end: "done" });
});

/** Both model lists against one answer. */
async function sameList(answer: Answer): Promise<Result> {
  await using server = startServer(answer);
  let sdk: Result;
  try {
    const page = await sdkClient(server.baseUrl, 5000).models.list();
    sdk = { ok: true, value: page.data };
  } catch (error) {
    sdk = { ok: false, error: described(sdkFailure(error), server.baseUrl) };
  }
  const listed = await fetchModelList({ baseUrl: server.baseUrl }, { timeoutMs: 5000 });
  const ours: Result = listed.ok ? listed : {
    ok: false,
    error: listed.error === "aborted" ? "aborted" : described(listed.error, server.baseUrl),
  };
  assertEquals(ours, sdk);
  assertEquals(server.recorded[1], server.recorded[0]);
  return ours;
}
type Result = { ok: true; value: unknown[] } | { ok: false; error: AgentError | "aborted" };

Deno.test("fetchModelList() lists models and reports failures as npm:openai does", async () => {
  const json = { "content-type": "application/json" };
  const listed = await sameList({
    headers: json,
    parts: [
      '{"object":"list","data":[{"id":"qwen3","object":"model","max_model_len":32768},{"id":"b"}]}',
    ],
  });
  assert(listed.ok && listed.value.length === 2);
  await sameList({ headers: json, parts: ['{"object":"list","data":[]}'] });
  await sameList({ headers: json, parts: ['{"models": []}'] });
  await sameList({ headers: { "content-type": "text/plain" }, parts: ["not json"] });
  await sameList({
    status: 404,
    headers: { "content-type": "text/plain" },
    parts: ["404 page not found"],
  });
  await sameList({
    status: 401,
    headers: json,
    parts: ['{"error":{"message":"Invalid API key"}}'],
  });
  await sameList({ status: 500, headers: json, parts: [] });
});

Deno.test("streamChatCompletion() sends the request npm:openai sent", async () => {
  await using server = startServer({ parts: [TEXT_STREAM] });
  await viaSdk(`${server.baseUrl}/`);
  await streamChatCompletion({ baseUrl: `${server.baseUrl}/`, apiKey: "" }, BODY, {
    signal: new AbortController().signal,
    timeoutMs: 5000,
    onChunk() {},
  });
  assertEquals(server.recorded[1], server.recorded[0]);
  assertEquals(server.recorded[0], {
    method: "POST",
    path: "/v1/chat/completions",
    headers: {
      accept: "application/json",
      authorization: "Bearer no-key",
      "content-type": "application/json",
    },
    body: BODY,
  });
});
