// The HTTP side of the OpenAI-compatible provider: `POST /chat/completions` streamed as
// server-sent events and `GET /models`, over http_request.ts, in place of npm:openai (whose import
// alone cost a -p run about five times an empty script; bench/startup.ts). Every failure is a
// ClientFailure value shaped as npm:openai reported it; tests/providers/
// chat_client_differential_test.ts holds the two to the same answers.

import { type Result } from "../../errors.ts";
import { readServerSentEvents } from "../sse_stream.ts";
import { countBytes } from "../received_bytes.ts";
import { quietTimer } from "../../platform/quiet_timer.ts";
import { httpRequest, type HttpResponse } from "../http_request.ts";

/** Where requests go. */
export interface ChatEndpoint {
  /** Endpoint including the version path, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Bearer token; local servers usually need none. */
  apiKey?: string;
}

/** Why a request failed, before it is described for the user (http_errors.ts). */
export type ClientFailure =
  /** No response headers within the time allowed. */
  | { kind: "timeout" }
  /** The request failed: refused, unknown host, TLS. */
  | { kind: "connection"; cause: unknown }
  /**
   * An error status. `error` is the server's error value (a JSON body's `error` field, else
   * the JSON body); `message` the text npm:openai made of it ("status code (no body)" when
   * there is none).
   */
  | { kind: "http"; status: number; error: unknown; message: string }
  /** An error event inside a 200 stream (`{"error": ...}`, or `event: error`). */
  | { kind: "error_event"; error: unknown; message: string }
  /** An event whose data is not JSON. */
  | { kind: "malformed"; data: string }
  /** The body broke off while it was read. */
  | { kind: "broken"; cause: unknown };

/** How a streamed request ended. */
export type ChatStreamEnd =
  | { kind: "done" }
  | { kind: "aborted" }
  | { kind: "failed"; failure: ClientFailure };

/** Options of {@linkcode streamChatCompletion}. */
export interface StreamChatOptions {
  /** Aborts the request or the stream; the end is then `aborted`. */
  signal: AbortSignal;
  /** How long to wait for the response headers. */
  timeoutMs: number;
  /** Receives every parsed event before the next one is read. */
  onChunk(chunk: unknown): void;
  /** Receives the size of every read of the body, before it is parsed. */
  onReceived?(bytes: number): void;
}

/** The sentinel that ends an OpenAI stream. */
const DONE = "[DONE]";

/**
 * Posts a streamed Chat Completions request and hands each event's JSON to `onChunk`. Reads
 * stop at `data: [DONE]`, at the end of the body, or at the first failure. Never throws.
 *
 * @param endpoint Base URL and key.
 * @param body The request body (`stream: true` is the caller's).
 * @param options Abort signal, header timeout and the chunk callback.
 * @returns How the stream ended.
 *
 * @example
 * ```ts
 * import { streamChatCompletion } from "./chat_client.ts";
 * const end = await streamChatCompletion({ baseUrl: "http://127.0.0.1:9/v1" }, { stream: true }, {
 *   signal: new AbortController().signal,
 *   timeoutMs: 1000,
 *   onChunk: () => {},
 * });
 * if (end.kind !== "failed" || end.failure.kind !== "connection") throw new Error(end.kind);
 * ```
 */
export async function streamChatCompletion(
  endpoint: ChatEndpoint,
  body: unknown,
  options: StreamChatOptions,
): Promise<ChatStreamEnd> {
  const { signal } = options;
  const timer = new AbortController();
  // A quiet timer (quiet_timer.ts): the request it guards keeps the process alive.
  const timeout = quietTimer(options.timeoutMs, () => timer.abort());
  const sent = await send(endpoint, "/chat/completions", { signal, deadline: timer.signal, body });
  timeout.cancel();
  if (!sent.ok) {
    return sent.error === "aborted" ? { kind: "aborted" } : { kind: "failed", failure: sent.error };
  }
  const response = sent.value;
  const failed = (failure: ClientFailure): ChatStreamEnd =>
    signal.aborted ? { kind: "aborted" } : { kind: "failed", failure };
  if (!response.ok) return failed(await statusFailure(response));
  if (!response.body) return failed({ kind: "broken", cause: "the response has no body" });
  const source = options.onReceived ? countBytes(response.body, options.onReceived) : response.body;
  try {
    for await (const event of readServerSentEvents(source)) {
      if (signal.aborted) return { kind: "aborted" };
      if (event.data === DONE) return { kind: "done" };
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        return failed({ kind: "malformed", data: event.data });
      }
      const error = errorOfEvent(event.event, data);
      if (error !== undefined) {
        return failed({
          kind: "error_event",
          error,
          message: errorMessage(error, undefined) ?? "(no status code or body)",
        });
      }
      options.onChunk(data);
    }
  } catch (cause) {
    return failed({ kind: "broken", cause });
  }
  return signal.aborted ? { kind: "aborted" } : { kind: "done" };
}

/** The error an event carries, as npm:openai found it: an `error` event, or an `error` field. */
function errorOfEvent(name: string, data: unknown): unknown {
  const field = isObject(data) ? data.error : undefined;
  if (name === "error") return field ?? data;
  return field ? field : undefined;
}

/**
 * Lists the server's models (`GET /models`): the `data` array of the answer, empty when the
 * answer has none. Never throws.
 *
 * @param endpoint Base URL and key.
 * @param options Abort signal and the time allowed for the whole answer.
 * @returns The entries, or why the request failed ("aborted" when the signal fired).
 *
 * @example
 * ```ts
 * import { fetchModelList } from "./chat_client.ts";
 * const listed = await fetchModelList({ baseUrl: "http://127.0.0.1:9/v1" }, { timeoutMs: 1000 });
 * if (listed.ok || listed.error === "aborted" || listed.error.kind !== "connection") {
 *   throw new Error(JSON.stringify(listed));
 * }
 * ```
 */
export async function fetchModelList(
  endpoint: ChatEndpoint,
  options: { signal?: AbortSignal; timeoutMs: number },
): Promise<Result<unknown[], ClientFailure | "aborted">> {
  const signal = options.signal ?? new AbortController().signal;
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const sent = await send(endpoint, "/models", { signal, deadline });
  if (!sent.ok) return sent;
  const response = sent.value;
  const failed = (failure: ClientFailure): Result<never, ClientFailure | "aborted"> => ({
    ok: false,
    error: signal.aborted ? "aborted" : deadline.aborted ? { kind: "timeout" } : failure,
  });
  if (!response.ok) return failed(await statusFailure(response));
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    return failed({ kind: "broken", cause });
  }
  const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (text === "" || !(type.includes("application/json") || type.endsWith("+json"))) {
    return { ok: true, value: [] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return failed({ kind: "malformed", data: text });
  }
  const data = isObject(parsed) ? parsed.data : undefined;
  return { ok: true, value: Array.isArray(data) ? data : [] };
}

/**
 * Sends one request. `deadline` aborts it as a timeout: for a stream it covers the wait for
 * the response headers (as npm:openai's `timeout` did; the stream watchdog bounds the rest).
 */
async function send(
  endpoint: ChatEndpoint,
  path: string,
  request: { signal: AbortSignal; deadline: AbortSignal; body?: unknown },
): Promise<Result<HttpResponse, ClientFailure | "aborted">> {
  const { signal, deadline, body } = request;
  if (signal.aborted) return { ok: false, error: "aborted" };
  try {
    const response = await httpRequest(endpointUrl(endpoint.baseUrl, path), {
      method: body === undefined ? "GET" : "POST",
      headers: {
        accept: "application/json",
        // npm:openai always sent a key ("no-key" for local servers, which ignore it).
        authorization: `Bearer ${endpoint.apiKey || "no-key"}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.any([signal, deadline]),
    });
    return { ok: true, value: response };
  } catch (cause) {
    if (signal.aborted) return { ok: false, error: "aborted" };
    if (deadline.aborted) return { ok: false, error: { kind: "timeout" } };
    return { ok: false, error: { kind: "connection", cause } };
  }
}

/**
 * The URL of `path` under a base URL, kept as npm:openai built it: a query of the base URL
 * (Azure's `?api-version=`) stays at the end.
 *
 * @example
 * ```ts
 * import { endpointUrl } from "./chat_client.ts";
 * if (endpointUrl("http://h/v1/", "/models") !== "http://h/v1/models") throw new Error();
 * if (endpointUrl("http://h/v1?a=1", "/models") !== "http://h/v1/models?a=1") throw new Error();
 * ```
 */
export function endpointUrl(baseUrl: string, path: string): string {
  if (!baseUrl.includes("?")) {
    return baseUrl + (baseUrl.endsWith("/") && path.startsWith("/") ? path.slice(1) : path);
  }
  const base = new URL(baseUrl);
  const query = base.search;
  base.search = "";
  base.hash = "";
  const root = base.toString();
  return root + (root.endsWith("/") && path.startsWith("/") ? path.slice(1) : path) + query;
}

/**
 * An error status as npm:openai read it: a JSON body's `error` field is the error, else the
 * whole JSON body; a body that is not JSON is the message.
 */
async function statusFailure(response: HttpResponse): Promise<ClientFailure> {
  const text = await response.text().catch((error) =>
    error instanceof Error ? error.message : String(error)
  );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const error = isObject(json) ? (json.error ?? json) : undefined;
  return {
    kind: "http",
    status: response.status,
    error,
    message: errorMessage(error, json ? undefined : text) ?? "status code (no body)",
  };
}

/** npm:openai's message of an error: its `message`, else its JSON, else the body text. */
function errorMessage(error: unknown, text: string | undefined): string | undefined {
  const message = isObject(error) ? error.message : undefined;
  if (message) return typeof message === "string" ? message : JSON.stringify(message);
  if (error) return JSON.stringify(error);
  return text || undefined;
}

/** An object or an array: what npm:openai reads fields of. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
