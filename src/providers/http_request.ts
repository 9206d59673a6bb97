// Every HTTP request harness makes to a model server. A plain `http:` URL (a server on this
// machine or the LAN: llama.cpp, Ollama, LM Studio, vLLM) is sent over a TCP connection of its
// own, HTTP/1.1 with `connection: close`, and its answer read by http1_response.ts; anything
// else goes to fetch: https (TLS), a proxy named in the environment, credentials in the URL,
// and a redirect (the request is sent again through fetch, which follows it). The reason is
// start-up: Deno loads fetch's code (and the web streams it answers with) on first use, about
// 9 ms of a -p run's CPU before its first request, where a connection costs about 1 ms
// (tests/providers/openai_compat_lazy_builtins_test.ts keeps fetch off that path). Both paths
// answer with the same HttpResponse, whose body is an async iterable of bytes;
// tests/providers/http_request_test.ts holds them to the same requests and answers.

import {
  bodyFraming,
  BufferedSource,
  readBody,
  readResponseHead,
  type ResponseHead,
} from "./http1_response.ts";
import { bodyOf, bodyText, emptyBody, type ResponseBody } from "./response_body.ts";
import { REASONS } from "./http_reasons.ts";
import { concatBytes } from "../platform/concat_bytes.ts";

/** What a request sends. */
export interface HttpRequestInit {
  /** Default GET. */
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** An answer, the part of fetch's Response that harness reads. */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  readonly body: ResponseBody;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const PROXY_VARIABLES = ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];
/** The ports fetch refuses (the Fetch standard's "bad ports"): refused the same way here. */
const BAD_PORTS = new Set([
  1,
  7,
  9,
  11,
  13,
  15,
  17,
  19,
  20,
  21,
  22,
  23,
  25,
  37,
  42,
  43,
  53,
  69,
  77,
  79,
  87,
  95,
  101,
  102,
  103,
  104,
  109,
  110,
  111,
  113,
  115,
  117,
  119,
  123,
  135,
  137,
  139,
  143,
  161,
  179,
  389,
  427,
  465,
  512,
  513,
  514,
  515,
  526,
  530,
  531,
  532,
  540,
  548,
  554,
  556,
  563,
  587,
  601,
  636,
  989,
  990,
  993,
  995,
  1719,
  1720,
  1723,
  2049,
  3659,
  4045,
  4190,
  5060,
  5061,
  6000,
  6566,
  6665,
  6666,
  6667,
  6668,
  6669,
  6679,
  6697,
  10080,
]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TARGET = /^\/[\x21-\x7e]*$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Sends a request and resolves with the answer's head; the body streams from `body`. Rejects
 * as fetch does: a TypeError for a header fetch would refuse, the connection's error, or the
 * signal's reason once it fired.
 *
 * @param url The endpoint.
 * @param init Method, header fields, a text body and an abort signal.
 * @returns The answer.
 *
 * @example
 * ```ts
 * import { httpRequest } from "./http_request.ts";
 * const server = Deno.serve({ port: 0, onListen() {} }, (req) => new Response(req.method));
 * const answer = await httpRequest(`http://127.0.0.1:${server.addr.port}/`, { method: "POST" });
 * if (answer.status !== 200 || await answer.text() !== "POST") throw new Error();
 * await server.shutdown();
 * ```
 */
export async function httpRequest(url: string, init: HttpRequestInit = {}): Promise<HttpResponse> {
  const parsed = new URL(url);
  const plain = parsed.protocol === "http:" && parsed.username === "" && parsed.password === "" &&
    !BAD_PORTS.has(Number(parsed.port || 80)) && !proxied();
  if (!plain) {
    return await fetchRequest(url, init);
  }
  const response = await socketRequest(parsed, init);
  if (!REDIRECTS.has(response.status) || response.headers.get("location") === null) {
    return response;
  }
  await response.body.cancel();
  return await fetchRequest(url, init);
}

/**
 * The same request through fetch (https, proxies, redirects; and the differential test's
 * reference).
 *
 * @param url The endpoint.
 * @param init Method, header fields, a text body and an abort signal.
 */
export async function fetchRequest(url: string, init: HttpRequestInit = {}): Promise<HttpResponse> {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    ...(init.headers ? { headers: init.headers } : {}),
    ...(init.body !== undefined ? { body: init.body } : {}),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    headers: response.headers,
    body: response.body ?? emptyBody(),
    text: () => response.text(),
    json: () => response.json(),
  };
}

/** A proxy in the environment (or no permission to look): fetch knows what to do with it. */
function proxied(): boolean {
  try {
    return PROXY_VARIABLES.some((name) => (Deno.env.get(name) ?? "") !== "");
  } catch {
    return true;
  }
}

/** The request's bytes; throws the TypeError fetch would for a field it refuses. */
function requestBytes(url: URL, method: string, init: HttpRequestInit): Uint8Array {
  if (!TOKEN.test(method)) throw new TypeError(`Invalid method: "${method}"`);
  const target = `${url.pathname}${url.search}`;
  if (!TARGET.test(target)) throw new TypeError(`Invalid request target: "${target}"`);
  const fields: [string, string][] = [["host", url.host]];
  const given = new Set<string>();
  for (const [name, raw] of Object.entries(init.headers ?? {})) {
    // fetch's normalisation: HTTP whitespace off both ends; then only Latin-1 without control
    // characters (a tab aside) is sent, one byte a character, as fetch sends it.
    const value = raw.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
    if (!TOKEN.test(name)) throw new TypeError(`Invalid header name: "${name}"`);
    if (!FIELD_VALUE.test(value)) throw new TypeError(`Invalid header value of "${name}"`);
    given.add(name.toLowerCase());
    fields.push([name, value]);
  }
  if (!given.has("accept")) fields.push(["accept", "*/*"]);
  if (init.body !== undefined && !given.has("content-type")) {
    fields.push(["content-type", "text/plain;charset=UTF-8"]); // fetch's for a string body
  }
  if (!given.has("user-agent")) fields.push(["user-agent", `Deno/${Deno.version.deno}`]);
  const body = new TextEncoder().encode(init.body ?? "");
  if (init.body !== undefined || method === "POST" || method === "PUT") {
    fields.push(["content-length", String(body.byteLength)]);
  }
  fields.push(["connection", "close"]);
  const head = `${method} ${target} HTTP/1.1\r\n` +
    fields.map(([name, value]) => `${name}: ${value}\r\n`).join("") + "\r\n";
  // Latin-1, one byte a character (checked above); most heads are ASCII, which UTF-8 is too.
  const headBytes = /^[\t\n\r -~]*$/.test(head)
    ? new TextEncoder().encode(head)
    : Uint8Array.from(head, (char) => char.charCodeAt(0));
  return concatBytes([headBytes, body]);
}

/** The request over a connection of its own; the connection closes with the body. */
async function socketRequest(url: URL, init: HttpRequestInit): Promise<HttpResponse> {
  const method = (init.method ?? "GET").toUpperCase();
  const request = requestBytes(url, method, init);
  const { signal } = init;
  signal?.throwIfAborted();
  const reason = (error: unknown) => signal?.aborted ? signal.reason : error;
  let conn: Deno.TcpConn;
  try {
    conn = await Deno.connect({
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port === "" ? 80 : Number(url.port),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    throw reason(error);
  }
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    signal?.removeEventListener("abort", close);
    try {
      conn.close();
    } catch {
      // closed by the signal already
    }
  };
  signal?.addEventListener("abort", close, { once: true });
  // One read buffer per connection; each read hands out a copy of just what came.
  const buffer = new Uint8Array(64 * 1024);
  const reader = new BufferedSource({
    read: async () => {
      const count = await conn.read(buffer);
      return count === null ? null : buffer.slice(0, count);
    },
  });
  let head: ResponseHead;
  let pieces: AsyncGenerator<Uint8Array>;
  try {
    for (let written = 0; written < request.byteLength;) {
      written += await conn.write(request.subarray(written));
    }
    head = await readResponseHead(reader);
    const framing = bodyFraming(head, method);
    if (framing.kind === "none") close();
    pieces = readBody(reader, framing);
  } catch (error) {
    close();
    throw reason(error);
  }
  return answer(head, streamed(pieces, close, reason));
}

/** The body's pieces; the connection closes when they end, fail or are cancelled. */
function streamed(
  pieces: AsyncGenerator<Uint8Array>,
  close: () => void,
  reason: (error: unknown) => unknown,
): ResponseBody {
  async function* read(): AsyncGenerator<Uint8Array> {
    try {
      for await (const piece of pieces) yield piece;
    } catch (error) {
      throw reason(error);
    } finally {
      close();
    }
  }
  return bodyOf(read(), close);
}

function answer(head: ResponseHead, body: ResponseBody): HttpResponse {
  const text = async () => (await Array.fromAsync(bodyText(body))).join("");
  return {
    status: head.status,
    // fetch's: the standard reason of the code, whatever the server wrote after it.
    statusText: REASONS[head.status] ?? "",
    ok: head.status >= 200 && head.status <= 299,
    headers: { get: (name) => head.fields.get(name.toLowerCase()) ?? null },
    body,
    text,
    json: async () => JSON.parse(await text()),
  };
}
