// A scripted Anthropic Messages API server for tests: real HTTP on 127.0.0.1 speaking the
// streaming event sequence (message_start, content blocks with text, thinking, signature and
// input_json deltas, message_delta, message_stop, ping, error). It takes the same reply
// scripts as fake_llm_server.ts, so one scenario runs against both wire formats, records
// every request with its headers and checks the tool_use / tool_result pairing.

import { ReplyBuilder } from "./fake_llm_server.ts";

export { reply } from "./fake_llm_server.ts";

/** A reply with Anthropic-only parts: signed thinking, error events, retry-after. */
export class AnthropicReplyBuilder extends ReplyBuilder {
  /** @internal */ retryAfterSeconds: number | undefined;
  /** @internal */ readonly blocks = new Map<number, { signature?: string; redacted?: string }>();

  /** A thinking block with this signature (default `sig_<n>`). */
  thinking(text: string, options: { chunks?: number; signature?: string } = {}): this {
    this.reasoning(text, options.chunks === undefined ? {} : { chunks: options.chunks });
    this.blocks.set(this.parts.length - 1, {
      signature: options.signature ?? `sig_${this.parts.length}`,
    });
    return this;
  }

  /** A redacted_thinking block carrying `data`. */
  redactedThinking(data: string): this {
    this.reasoning("");
    this.blocks.set(this.parts.length - 1, { redacted: data });
    return this;
  }

  /** Sends an `error` event (e.g. "overloaded_error") after the parts so far and stops. */
  errorEvent(type: string, message: string): this {
    this.rawFrames([{ type: "error", error: { type, message } }]);
    this.finish(null);
    this.noDone();
    return this;
  }

  /** Adds `retry-after` to an httpError answer. */
  retryAfter(seconds: number): this {
    this.retryAfterSeconds = seconds;
    return this;
  }
}

/**
 * Starts an Anthropic-only reply script.
 *
 * @example
 * ```ts
 * import { anthropicReply } from "./fake_anthropic_server.ts";
 * const r = anthropicReply().thinking("hm").toolCall("ls", {});
 * if (r.parts.length !== 2) throw new Error();
 * ```
 */
export function anthropicReply(): AnthropicReplyBuilder {
  return new AnthropicReplyBuilder();
}

/** A block of a recorded request message. */
export interface RecordedBlock {
  type: string;
  [key: string]: unknown;
}

/** A Messages API request body as the server received it. */
export interface RecordedAnthropicRequest {
  model?: string;
  system?: string;
  max_tokens?: number;
  messages: { role: string; content: string | RecordedBlock[] }[];
  tools?: { name: string; description: string; input_schema: Record<string, unknown> }[];
  stream?: boolean;
  [key: string]: unknown;
}

/** A running fake server. */
export interface FakeAnthropicServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1/messages`: selects the Anthropic provider by itself. */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<port>`. */
  readonly root: string;
  readonly requests: RecordedAnthropicRequest[];
  /** Request headers of each messages request, in order. */
  readonly headers: Headers[];
  /** Pairing violations ("request 2: ..."); expect it empty. */
  readonly pairingErrors: string[];
  close(): Promise<void>;
}

/** Options of {@linkcode startFakeAnthropicServer}. */
export interface FakeAnthropicServerOptions {
  /** Ids listed by GET /v1/models; default `["fake-claude"]`. */
  models?: string[];
  /** Answer GET /props with this n_ctx, as llama-server does; default: 404. */
  nCtx?: number;
}

/**
 * Checks the Messages API pairing rules of one request: every tool_use of an assistant
 * message is answered by exactly one tool_result in the next message, a user message, where
 * tool results come before any other block; every tool_result answers such a tool_use.
 *
 * @example
 * ```ts
 * import { checkAnthropicPairing } from "./fake_anthropic_server.ts";
 * const problems = checkAnthropicPairing([
 *   { role: "user", content: [{ type: "text", text: "go" }] },
 *   { role: "assistant", content: [{ type: "tool_use", id: "a", name: "ls", input: {} }] },
 *   { role: "user", content: [{ type: "text", text: "hi" }] },
 * ]);
 * if (problems.length !== 1) throw new Error(problems.join());
 * ```
 */
export function checkAnthropicPairing(
  messages: RecordedAnthropicRequest["messages"],
): string[] {
  const problems: string[] = [];
  const blocksOf = (m: RecordedAnthropicRequest["messages"][number] | undefined) =>
    m === undefined ? [] : typeof m.content === "string" ? [] : m.content;
  messages.forEach((message, i) => {
    const blocks = blocksOf(message);
    for (const block of blocks) {
      if (block.type === "text" && block.text === "") {
        problems.push(`message ${i}: an empty text block`);
      }
    }
    if (message.role === "user") {
      const previous = messages[i - 1];
      const asked = previous?.role === "assistant"
        ? blocksOf(previous).filter((b) => b.type === "tool_use").map((b) => String(b.id))
        : [];
      let seenOther = false;
      const answered = new Set<string>();
      for (const block of blocks) {
        if (block.type !== "tool_result") {
          seenOther = true;
          continue;
        }
        const id = String(block.tool_use_id);
        if (seenOther) problems.push(`message ${i}: tool_result "${id}" comes after other blocks`);
        if (!asked.includes(id)) {
          problems.push(`message ${i}: tool_result "${id}" answers no tool_use`);
        }
        if (answered.has(id)) problems.push(`message ${i}: tool_use "${id}" is answered twice`);
        answered.add(id);
      }
      for (const id of asked) {
        if (!answered.has(id)) problems.push(`message ${i}: tool_use "${id}" has no tool_result`);
      }
    } else if (message.role === "assistant") {
      const asked = blocks.filter((b) => b.type === "tool_use");
      const next = messages[i + 1];
      if (asked.length > 0 && next?.role !== "user") {
        problems.push(`message ${i}: tool_use blocks not followed by a user message`);
      }
      for (const block of asked) {
        if (!/^[a-zA-Z0-9_-]+$/.test(String(block.id))) {
          problems.push(`message ${i}: tool_use id "${block.id}" has characters the API refuses`);
        }
      }
    } else {
      problems.push(`message ${i}: role "${message.role}" is not user or assistant`);
    }
  });
  if (messages[0] !== undefined && messages[0].role !== "user") {
    problems.push("the first message is not from the user");
  }
  return problems;
}

/**
 * Starts a fake Messages API server on a free loopback port. POST /v1/messages answers with
 * the next scripted reply (a 500 `api_error` when the script is exhausted).
 *
 * @param script One reply per expected request, in order.
 * @param options Model list and /props.
 * @returns The running server; close it when done.
 *
 * @example
 * ```ts
 * import { reply, startFakeAnthropicServer } from "./fake_anthropic_server.ts";
 * await using server = startFakeAnthropicServer([reply().text("hi")]);
 * const res = await fetch(server.baseUrl, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "m", max_tokens: 10, messages: [], stream: true }),
 * });
 * const body = await res.text();
 * if (!body.includes('"text_delta"') || !body.includes("event: message_stop")) throw new Error(body);
 * ```
 */
export function startFakeAnthropicServer(
  script: readonly ReplyBuilder[],
  options: FakeAnthropicServerOptions = {},
): FakeAnthropicServer {
  const replies = [...script];
  const requests: RecordedAnthropicRequest[] = [];
  const headers: Headers[] = [];
  const pairingErrors: string[] = [];
  const closing = new AbortController();
  const models = options.models ?? ["fake-claude"];

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    if (req.method === "GET" && path === "/v1/models") {
      return json(200, {
        data: models.map((id) => ({ type: "model", id, display_name: id })),
        has_more: false,
      });
    }
    if (req.method === "GET" && path === "/props" && options.nCtx !== undefined) {
      return json(200, { default_generation_settings: { n_ctx: options.nCtx } });
    }
    if (req.method !== "POST" || path !== "/v1/messages") {
      return errorBody(404, "not_found_error", `fake server: no route ${req.method} ${path}`);
    }
    const number = requests.length + 1;
    const text = await req.text();
    let body: RecordedAnthropicRequest;
    try {
      body = JSON.parse(text);
    } catch {
      body = { messages: [], unparsed: text };
      pairingErrors.push(`request ${number}: the body is not JSON`);
    }
    requests.push(body);
    headers.push(req.headers);
    if (req.headers.get("anthropic-version") !== "2023-06-01") {
      pairingErrors.push(`request ${number}: no anthropic-version header`);
    }
    for (
      const problem of checkAnthropicPairing(Array.isArray(body.messages) ? body.messages : [])
    ) {
      pairingErrors.push(`request ${number}: ${problem}`);
    }
    const next = replies.shift();
    if (next === undefined) {
      return errorBody(
        500,
        "api_error",
        `fake server: no scripted reply left for request ${number}`,
      );
    }
    if (next.delayMs > 0) await sleep(next.delayMs, closing.signal);
    if (next.error) {
      const { status, body: error } = next.error;
      const extra = next instanceof AnthropicReplyBuilder && next.retryAfterSeconds !== undefined
        ? { "retry-after": String(next.retryAfterSeconds) }
        : {};
      return typeof error === "string"
        ? new Response(error, { status, headers: { "content-type": "text/plain", ...extra } })
        : new Response(JSON.stringify(error), {
          status,
          headers: { "content-type": "application/json", ...extra },
        });
    }
    return new Response(streamReply(next, body.model ?? "fake-claude", closing.signal), {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  });

  const close = async () => {
    closing.abort();
    await server.shutdown();
  };
  const root = `http://127.0.0.1:${server.addr.port}`;
  return {
    baseUrl: `${root}/v1/messages`,
    root,
    requests,
    headers,
    pairingErrors,
    close,
    [Symbol.asyncDispose]: close,
  };
}

function streamReply(script: ReplyBuilder, model: string, closing: AbortSignal): ReadableStream {
  const encoder = new TextEncoder();
  const frames = buildEvents(script, model);
  const cancelled = new AbortController();
  const stop = AbortSignal.any([closing, cancelled.signal]);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = frames[sent];
      if (script.dropAfter === sent || (next === undefined && script.dropAfter !== undefined)) {
        controller.error("fake server: connection dropped as scripted");
        return;
      }
      if (next !== undefined) {
        sent++;
        controller.enqueue(encoder.encode(next));
        return;
      }
      if (script.endless && !stop.aborted) {
        controller.enqueue(encoder.encode(script.endless.frame));
        return;
      }
      if (script.hangs) await sleep(Infinity, stop);
      if (!cancelled.signal.aborted) controller.close();
    },
    cancel() {
      cancelled.abort();
    },
  });
}

/** The event sequence of one scripted reply, as the Messages API streams it. */
function buildEvents(script: ReplyBuilder, model: string): string[] {
  const extra = script instanceof AnthropicReplyBuilder ? script.blocks : new Map();
  const usage = script.usageTokens;
  const events: string[] = [event({
    type: "message_start",
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage?.prompt ?? 0, output_tokens: 1 },
    },
  })];
  events.push(event({ type: "ping" }));
  let index = 0;
  let toolCalls = 0;
  script.parts.forEach((part, position) => {
    if (part.kind === "raw") {
      for (const raw of part.frames) {
        events.push(typeof raw === "string" ? `${raw}\n\n` : event(raw));
      }
      return;
    }
    const i = index++;
    const start = (block: Record<string, unknown>) =>
      events.push(event({ type: "content_block_start", index: i, content_block: block }));
    const delta = (d: Record<string, unknown>) =>
      events.push(event({ type: "content_block_delta", index: i, delta: d }));
    if (part.kind === "content" && part.field === "content") {
      start({ type: "text", text: "" });
      for (const piece of split(part.text, part.chunks)) delta({ type: "text_delta", text: piece });
    } else if (part.kind === "content") {
      const signed = extra.get(position);
      if (signed?.redacted !== undefined) {
        start({ type: "redacted_thinking", data: signed.redacted });
      } else {
        start({ type: "thinking", thinking: "", signature: "" });
        for (const piece of split(part.text, part.chunks)) {
          delta({ type: "thinking_delta", thinking: piece });
        }
        delta({ type: "signature_delta", signature: signed?.signature ?? `sig_${position + 1}` });
      }
    } else {
      const { name, args, options } = part;
      const id = options.id === undefined || options.id === null
        ? `toolu_fake_${++toolCalls}`
        : options.id;
      if (options.id !== undefined && options.id !== null) toolCalls++;
      start({ type: "tool_use", id, name, input: {} });
      const text = typeof args === "string" ? args : JSON.stringify(args);
      for (const piece of split(text, options.split ?? 1)) {
        delta({ type: "input_json_delta", partial_json: piece });
      }
    }
    events.push(event({ type: "content_block_stop", index: i }));
  });
  if (script.endless) return [...events, script.endless.first];
  if (script.hangs) return events;
  const finish = script.finishReason === undefined
    ? (toolCalls > 0 ? "tool_calls" : "stop")
    : script.finishReason;
  if (finish !== null) {
    const stopReason = finish === "tool_calls"
      ? "tool_use"
      : finish === "length"
      ? "max_tokens"
      : "end_turn";
    events.push(event({
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage?.completion ?? 1 },
    }));
  }
  if (script.sendDone) events.push(event({ type: "message_stop" }));
  return events;
}

function event(data: Record<string, unknown>): string {
  return `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
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

function errorBody(status: number, type: string, message: string): Response {
  return json(status, { type: "error", error: { type, message } });
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
