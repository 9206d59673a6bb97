// A scripted OpenAI-compatible model server for tests: real HTTP on 127.0.0.1 speaking
// chat-completions SSE, one scripted reply per request (or a function that answers each). It
// records every request body and checks the tool-call pairing invariant, so tests can point
// the real provider (or the CLI as a subprocess, via --base-url) at it instead of mocking
// fetch. With `llamaServer` it also keeps a prompt cache and answers as llama-server does
// (prompt_cache.ts): usage and timings with the tokens reused, refusals over the window,
// /props, /tokenize and /apply-template.

import { type ChatBody, exceedContextBody, PromptCache, renderPrompt } from "./prompt_cache.ts";

/** A finish_reason to send; `null` sends no finish frame at all. */
export type FakeFinishReason = "stop" | "tool_calls" | "length" | null;

/** Options of {@linkcode ReplyBuilder.toolCall}. */
export interface FakeToolCallOptions {
  /** The call id; default `call_fake_<N>`; `null` sends no id. */
  id?: string | null;
  /** Send the arguments JSON in this many pieces after a name-only first delta; default 1. */
  split?: number;
  /** Send `arguments` as a JSON object in one delta, as Ollama does. */
  argsAsObject?: boolean;
  /** Tool-call `index` on the wire; default: the call's position in this reply. */
  index?: number;
}

/** A tool call as a request carried it (what a server receives; not validated). */
export interface RecordedToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: unknown };
}

/** One message of a recorded request (not validated beyond the pairing check). */
export interface RecordedMessage {
  role: string;
  content?: string | null;
  tool_calls?: RecordedToolCall[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** A chat-completions request body as the server received it. */
export interface RecordedRequest {
  model?: string;
  messages: RecordedMessage[];
  tools?: unknown[];
  stream?: boolean;
  [key: string]: unknown;
}

/** A running fake server. Close it with `close()` or `await using`. */
export interface FakeLlmServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1`; pass it as the provider's baseUrl or --base-url. */
  readonly baseUrl: string;
  /** Parsed bodies of the chat-completions requests received, in order. */
  readonly requests: RecordedRequest[];
  /** Tool-call pairing violations found in requests ("request 2: ..."); expect it empty. */
  readonly pairingErrors: string[];
  /** The prompt cache and its per-request counts, with `llamaServer`. */
  readonly cache: PromptCache | undefined;
  /**
   * When each chat request arrived and when its reply ended (performance.now(), ms), in
   * request order; `ended` stays undefined for an error answer or a dropped stream.
   */
  readonly times: { received: number; ended?: number }[];
  /** Stops the server; replies still hanging are cut. */
  close(): Promise<void>;
}

/** Options of {@linkcode startFakeLlmServer}. */
export interface FakeLlmServerOptions {
  /** Ids listed by GET /v1/models; default `["fake-model"]`; `null` answers 404. */
  models?: string[] | null;
  /**
   * Extra GET routes answered with JSON, by path (`/props`, `/api/v0/models`, `/api/ps`, or
   * `/v1/models` to replace the model list): the bodies each server states its window in.
   */
  routes?: Record<string, unknown>;
  /**
   * Answer as llama-server with one slot does: count tokens at `charsPerToken` characters,
   * reuse the prefix shared with the previous request, refuse a prompt of `window` tokens or
   * more, and report usage and timings (unless the reply sets its own `usage`).
   */
  llamaServer?: { charsPerToken: number; window: number };
  /** Answers a request before the routes above, when it returns a Response (e.g. embeddings). */
  handle?: (req: Request) => Promise<Response | undefined>;
}

/** Answers one chat request (numbered from 1); undefined means no reply is left. */
export type FakeResponder = (request: RecordedRequest, number: number) => ReplyBuilder | undefined;

type Part =
  | { kind: "content"; field: string; text: string; chunks: number }
  | { kind: "tool"; name: string; args: unknown; options: FakeToolCallOptions }
  | { kind: "raw"; frames: (string | Record<string, unknown>)[] };

/**
 * Describes the reply to one request. Content parts are sent in the order they are added,
 * then the finish frame, the usage frame and `data: [DONE]`.
 */
export class ReplyBuilder {
  /** @internal */ readonly parts: Part[] = [];
  /** @internal */ finishReason: FakeFinishReason | undefined;
  /** @internal */ usageTokens: { prompt: number; completion: number } | undefined;
  /** @internal */ sendDone = true;
  /** @internal */ error: { status: number; body: unknown } | undefined;
  /** @internal */ dropAfter: number | undefined;
  /** @internal */ delayMs = 0;
  /** @internal */ paceMs = 0;
  /** @internal */ hangs = false;
  /** @internal Set by a `llamaServer` fake: the request's prompt counts. */
  llamaUsage: { prompt: number; reused: number; charsPerToken: number } | undefined;
  /** @internal */ endless: { first: string; frame: string } | undefined;

  /** Streams `text` as `delta.content`, cut into `chunks` pieces. */
  text(text: string, options: { chunks?: number } = {}): this {
    this.parts.push({ kind: "content", field: "content", text, chunks: options.chunks ?? 1 });
    return this;
  }

  /** Streams reasoning in `delta.reasoning_content` (or `delta.reasoning`). */
  reasoning(
    text: string,
    options: { chunks?: number; field?: "reasoning_content" | "reasoning" } = {},
  ): this {
    const field = options.field ?? "reasoning_content";
    this.parts.push({ kind: "content", field, text, chunks: options.chunks ?? 1 });
    return this;
  }

  /** Streams one tool call; `args` that is a string is sent as it is (even if not JSON). */
  toolCall(name: string, args: unknown, options: FakeToolCallOptions = {}): this {
    this.parts.push({ kind: "tool", name, args, options });
    return this;
  }

  /** Sends a usage-only chunk (`choices: []`) after the finish frame. */
  usage(promptTokens: number, completionTokens: number): this {
    this.usageTokens = { prompt: promptTokens, completion: completionTokens };
    return this;
  }

  /** Sets the finish_reason; default "tool_calls" when the reply has tool calls, else "stop". */
  finish(reason: FakeFinishReason): this {
    this.finishReason = reason;
    return this;
  }

  /** Ends the stream without `data: [DONE]`. */
  noDone(): this {
    this.sendDone = false;
    return this;
  }

  /** Answers with this HTTP status instead of a stream; an object body is sent as JSON. */
  httpError(status: number, body: unknown = { error: { message: `fake error ${status}` } }): this {
    this.error = { status, body };
    return this;
  }

  /** Cuts the connection after sending `afterFrames` frames. */
  dropConnection(afterFrames = 0): this {
    this.dropAfter = afterFrames;
    return this;
  }

  /** Waits `ms` before answering (before the response headers). */
  delay(ms: number): this {
    this.delayMs = ms;
    return this;
  }

  /** Waits `ms` before each frame after the first, as a model generating tokens does. */
  pace(ms: number): this {
    this.paceMs = ms;
    return this;
  }

  /**
   * Sends frames as they are: an object becomes `data: <JSON>`, a string `data: <string>`
   * (see {@linkcode chunk} for the usual envelope). Add `.finish(null)` when the frames carry
   * their own finish_reason.
   */
  rawFrames(frames: (string | Record<string, unknown>)[]): this {
    this.parts.push({ kind: "raw", frames });
    return this;
  }

  /**
   * A stream that never ends: after the frames so far, sends `first` once, then `frame` again
   * and again until the client goes away. Both are sent as they are (wire text, not framed):
   * a whole `data: ...\n\n` frame per repeat, or a line that never ends.
   */
  forever(frame: string, first = ""): this {
    this.endless = { first, frame };
    return this;
  }

  /** Sends the frames so far, then keeps the stream open until the client goes away. */
  hang(): this {
    this.hangs = true;
    return this;
  }
}

/**
 * Starts a scripted reply.
 *
 * @returns A builder; chain calls, then pass it to {@linkcode startFakeLlmServer}.
 *
 * @example
 * ```ts
 * import { reply } from "./fake_llm_server.ts";
 * const r = reply().text("Reading it").toolCall("read_file", { path: "a" }).usage(10, 2);
 * if (!(r.parts.length === 2)) throw new Error();
 * ```
 */
export function reply(): ReplyBuilder {
  return new ReplyBuilder();
}

/**
 * Builds a chat.completion.chunk envelope around one delta, for {@linkcode ReplyBuilder.rawFrames}.
 *
 * @param delta The `choices[0].delta` object.
 * @param finishReason The `choices[0].finish_reason`; default null.
 * @returns The chunk object.
 *
 * @example
 * ```ts
 * import { chunk } from "./fake_llm_server.ts";
 * const c = chunk({ content: "hi" }, "stop");
 * if (JSON.stringify(c).indexOf('"finish_reason":"stop"') < 0) throw new Error();
 * ```
 */
export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
): Record<string, unknown> {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1700000000,
    model: "fake-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/**
 * Checks the wire pairing invariant of one request's messages: every assistant tool call is
 * answered by exactly one `tool` message right after its assistant message, and every `tool`
 * message answers such a call.
 *
 * @param messages The request's `messages`.
 * @returns One line per violation; empty when the request is well formed.
 *
 * @example
 * ```ts
 * import { checkToolPairing } from "./fake_llm_server.ts";
 * const problems = checkToolPairing([
 *   { role: "assistant", content: null, tool_calls: [{ id: "a", function: { name: "ls", arguments: "{}" } }] },
 *   { role: "user", content: "hi" },
 * ]);
 * if (problems.length !== 1) throw new Error(problems.join());
 * ```
 */
export function checkToolPairing(messages: readonly RecordedMessage[]): string[] {
  const problems: string[] = [];
  const seenIds = new Set<string>();
  let open: { ids: string[]; answered: Set<string> } | undefined;
  const close = () => {
    for (const id of open?.ids ?? []) {
      if (!open?.answered.has(id)) {
        problems.push(`tool call "${id}" has no tool message right after its assistant message`);
      }
    }
    open = undefined;
  };
  messages.forEach((message, i) => {
    if (typeof message !== "object" || message === null) {
      problems.push(`message ${i}: not an object`);
      return;
    }
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (open === undefined || typeof id !== "string" || !open.ids.includes(id)) {
        problems.push(
          `message ${i}: tool message answers "${id}", which is not a tool call right before it`,
        );
      } else if (open.answered.has(id)) {
        problems.push(`message ${i}: tool call "${id}" is answered twice`);
      } else {
        open.answered.add(id);
      }
      return;
    }
    close();
    if (message.role !== "assistant" || !Array.isArray(message.tool_calls)) return;
    if (message.tool_calls.length === 0) return;
    open = { ids: [], answered: new Set() };
    for (const call of message.tool_calls) {
      const id = call?.id;
      if (typeof id !== "string" || id === "") {
        problems.push(`message ${i}: a tool call has no id`);
        continue;
      }
      if (seenIds.has(id)) problems.push(`message ${i}: tool call id "${id}" is used twice`);
      seenIds.add(id);
      open.ids.push(id);
    }
  });
  close();
  return problems;
}

/**
 * Starts a fake OpenAI-compatible server on a free loopback port. POST /v1/chat/completions
 * answers with the next scripted reply (HTTP 500 "fake server: no scripted reply left for
 * request N" when the script is exhausted); GET /v1/models lists `options.models`.
 *
 * @param script One reply per expected chat request, in order.
 * @param options Model list.
 * @returns The running server; close it when done.
 *
 * @example
 * ```ts
 * import { reply, startFakeLlmServer } from "./fake_llm_server.ts";
 * await using server = startFakeLlmServer([reply().text("hi")]);
 * const res = await fetch(`${server.baseUrl}/chat/completions`, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "m", messages: [], stream: true }),
 * });
 * const body = await res.text();
 * if (!body.includes('"content":"hi"') || !body.endsWith("data: [DONE]\n\n")) throw new Error(body);
 * if (server.requests.length !== 1 || server.pairingErrors.length !== 0) throw new Error();
 * ```
 */
export function startFakeLlmServer(
  script: readonly ReplyBuilder[] | FakeResponder,
  options: FakeLlmServerOptions = {},
): FakeLlmServer {
  const replies = typeof script === "function" ? [] : [...script];
  const respond: FakeResponder = typeof script === "function" ? script : () => replies.shift();
  const cache = options.llamaServer ? new PromptCache(options.llamaServer) : undefined;
  const requests: RecordedRequest[] = [];
  const times: { received: number; ended?: number }[] = [];
  const pairingErrors: string[] = [];
  const closing = new AbortController();
  const models = options.models === undefined ? ["fake-model"] : options.models;

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    const handled = await options.handle?.(req);
    if (handled) return handled;
    if (req.method === "GET" && options.routes && path in options.routes) {
      return json(200, options.routes[path]);
    }
    if (cache) {
      const answered = await llamaServerRoute(req, path, cache);
      if (answered) return answered;
    }
    if (req.method === "GET" && path === "/v1/models") {
      if (models === null) return json(404, { error: { message: "fake server: no model list" } });
      return json(200, {
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })),
      });
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return json(404, { error: { message: `fake server: no route ${req.method} ${path}` } });
    }
    const number = requests.length + 1;
    const received = performance.now();
    const text = await req.text();
    let body: RecordedRequest;
    try {
      body = JSON.parse(text);
    } catch {
      body = { messages: [], unparsed: text };
      pairingErrors.push(`request ${number}: the body is not JSON`);
    }
    requests.push(body);
    const time: { received: number; ended?: number } = { received };
    times.push(time);
    const messages = Array.isArray(body.messages) ? body.messages : [];
    for (const problem of checkToolPairing(messages)) {
      pairingErrors.push(`request ${number}: ${problem}`);
    }
    // A prompt over the window is refused before any reply is used, as llama-server does.
    const prompt = cache ? renderPrompt(body as ChatBody) : "";
    if (cache && cache.tokens(prompt) >= cache.window) {
      return json(400, exceedContextBody(cache.take(prompt).prompt, cache.window));
    }
    const next = respond(body, number);
    if (next === undefined) {
      return json(500, {
        error: { message: `fake server: no scripted reply left for request ${number}` },
      });
    }
    if (next.delayMs > 0) await sleep(next.delayMs, closing.signal);
    if (next.error) {
      const { status, body: errorBody } = next.error;
      return typeof errorBody === "string"
        ? new Response(errorBody, { status, headers: { "content-type": "text/plain" } })
        : json(status, errorBody);
    }
    const count = cache?.take(prompt);
    if (count && next.usageTokens === undefined) {
      next.llamaUsage = {
        prompt: count.prompt,
        reused: count.reused,
        charsPerToken: cache!.charsPerToken,
      };
    }
    const stream = streamReply(next, body.model ?? "fake-model", closing.signal, () => {
      time.ended = performance.now();
    });
    return new Response(stream, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  });

  const close = async () => {
    closing.abort();
    await server.shutdown();
  };
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    pairingErrors,
    cache,
    times,
    close,
    [Symbol.asyncDispose]: close,
  };
}

function streamReply(
  script: ReplyBuilder,
  model: string,
  closing: AbortSignal,
  onEnd: () => void,
): ReadableStream {
  const encoder = new TextEncoder();
  const frames = buildFrames(script, model);
  const cancelled = new AbortController();
  const stop = AbortSignal.any([closing, cancelled.signal]);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = frames[sent];
      if (script.dropAfter === sent || (next === undefined && script.dropAfter !== undefined)) {
        // Deno.serve logs the reason; a string keeps that to one line without a stack.
        controller.error("fake server: connection dropped as scripted");
        return;
      }
      if (next !== undefined) {
        if (sent > 0 && script.paceMs > 0) await sleep(script.paceMs, stop);
        sent++;
        controller.enqueue(encoder.encode(next));
        return;
      }
      if (script.endless && !stop.aborted) {
        controller.enqueue(encoder.encode(script.endless.frame));
        return;
      }
      if (script.hangs) await sleep(Infinity, stop);
      // After a client cancel the stream is already closed.
      if (!cancelled.signal.aborted) {
        onEnd();
        controller.close();
      }
    },
    cancel() {
      cancelled.abort();
    },
  });
}

function buildFrames(script: ReplyBuilder, model: string): string[] {
  const envelope = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    frame({
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      created: 1700000000,
      model,
      choices,
      ...extra,
    });
  const delta = (d: Record<string, unknown>) =>
    envelope([{ index: 0, delta: d, finish_reason: null }]);
  const frames: string[] = [delta({ role: "assistant", content: "" })];
  let toolCalls = 0;
  for (const part of script.parts) {
    if (part.kind === "content") {
      for (const piece of split(part.text, part.chunks)) {
        frames.push(delta({ [part.field]: piece }));
      }
    } else if (part.kind === "raw") {
      for (const raw of part.frames) frames.push(frame(raw));
    } else {
      const { name, args, options } = part;
      const position = toolCalls++;
      const index = options.index ?? position;
      const id = options.id === undefined ? `call_fake_${position + 1}` : options.id;
      const head = { index, ...(id === null ? {} : { id }), type: "function" };
      if (options.argsAsObject) {
        frames.push(delta({ tool_calls: [{ ...head, function: { name, arguments: args } }] }));
        continue;
      }
      frames.push(delta({ tool_calls: [{ ...head, function: { name, arguments: "" } }] }));
      const text = typeof args === "string" ? args : JSON.stringify(args);
      for (const piece of split(text, options.split ?? 1)) {
        frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    }
  }
  if (script.endless) return [...frames, script.endless.first];
  if (script.hangs) return frames;
  const finish = script.finishReason === undefined
    ? (toolCalls > 0 ? "tool_calls" : "stop")
    : script.finishReason;
  if (finish !== null) frames.push(envelope([{ index: 0, delta: {}, finish_reason: finish }]));
  if (script.usageTokens) {
    const { prompt, completion } = script.usageTokens;
    frames.push(envelope([], {
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
      },
    }));
  } else if (script.llamaUsage) {
    frames.push(envelope([], llamaServerUsage(script, script.llamaUsage)));
  }
  if (script.sendDone) frames.push("data: [DONE]\n\n");
  return frames;
}

function frame(data: string | Record<string, unknown>): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

function split(text: string, pieces: number): string[] {
  const count = Math.max(1, Math.min(pieces, text.length));
  const size = Math.ceil(text.length / count);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = ms === Infinity ? undefined : setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** llama-server's last chunk: usage with the cached tokens, and timings (`cache_n`, `prompt_n`). */
function llamaServerUsage(
  script: ReplyBuilder,
  counts: { prompt: number; reused: number; charsPerToken: number },
): Record<string, unknown> {
  const generated = script.parts.map((part) =>
    part.kind === "content"
      ? part.text
      : part.kind === "tool"
      ? `${part.name}${typeof part.args === "string" ? part.args : JSON.stringify(part.args)}`
      : ""
  ).join("");
  const completion = Math.ceil(generated.length / counts.charsPerToken);
  const processed = counts.prompt - counts.reused;
  return {
    usage: {
      prompt_tokens: counts.prompt,
      completion_tokens: completion,
      total_tokens: counts.prompt + completion,
      prompt_tokens_details: { cached_tokens: counts.reused },
    },
    timings: {
      cache_n: counts.reused,
      prompt_n: processed,
      prompt_ms: processed / 10,
      predicted_n: completion,
      predicted_ms: completion,
    },
  };
}

/** llama-server's other routes: /props (the window), /tokenize and /apply-template. */
async function llamaServerRoute(
  req: Request,
  path: string,
  cache: PromptCache,
): Promise<Response | undefined> {
  if (req.method === "GET" && path === "/props") {
    return json(200, {
      default_generation_settings: { n_ctx: cache.window },
      total_slots: 1,
      chat_template: "{{ messages }}",
    });
  }
  if (req.method !== "POST" || (path !== "/tokenize" && path !== "/apply-template")) {
    return undefined;
  }
  let body: Record<string, unknown>;
  try {
    body = await req.json();
  } catch {
    return json(400, { error: { code: 400, message: "invalid JSON" } });
  }
  if (path === "/apply-template") return json(200, { prompt: renderPrompt(body as ChatBody) });
  if (typeof body.content !== "string") {
    return json(500, { error: { code: 500, message: '"content" must be provided' } });
  }
  cache.tokenizeCalls++;
  return json(200, { tokens: Array.from({ length: cache.tokens(body.content) }, (_, i) => i) });
}
