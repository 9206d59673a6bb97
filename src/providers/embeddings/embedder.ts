// The embedding client for semantic code search: turns texts into vectors through the local
// model server. Three wire formats: Ollama's POST /api/embed, the OpenAI-compatible POST
// /v1/embeddings (llama-server started with --embeddings, LM Studio, vLLM, OpenAI) and
// llama-server's own POST /embedding, tried when /v1/embeddings is missing. Never throws:
// every failure, including an answer of the wrong shape, is an error Result.

import { type AgentError, err, ok, type Result } from "../../errors.ts";
import { isRecord } from "../../platform/json_values.ts";
import { errorText, isAbort, unreachableError } from "../ollama/http_errors.ts";
import { httpRequest, type HttpResponse } from "../http_request.ts";

/** Which wire format the server speaks. */
export type EmbeddingApi = "ollama" | "openai";

/** Where embeddings come from. */
export interface EmbeddingEndpoint {
  api: EmbeddingApi;
  /** Ollama's root URL, or the OpenAI-compatible base URL (ending in /v1). */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token (only to the chat server's own origin; see embedding_setup.ts). */
  apiKey?: string;
}

/** Turns texts into vectors of one model. */
export interface Embedder {
  readonly endpoint: EmbeddingEndpoint;
  /**
   * Embeds texts, one vector per text in order, all of the same length.
   *
   * @param texts At most {@linkcode MAX_BATCH} texts.
   * @param signal Cancels the request.
   */
  embed(
    texts: readonly string[],
    signal?: AbortSignal,
  ): Promise<Result<Float32Array[], AgentError>>;
}

/** Texts per request. */
export const MAX_BATCH = 64;
/** A vector longer than this is not an embedding (the largest common models have 4,096). */
const MAX_DIMENSIONS = 16_384;
/** An answer larger than this is refused before it is parsed. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Options of {@linkcode createEmbedder}. */
export interface EmbedderOptions {
  /** Milliseconds one request may take (default 120 s: a first request loads the model). */
  timeoutMs?: number;
}

/**
 * An embedder for an endpoint.
 *
 * @param endpoint The server, its wire format and the model.
 * @param options The request timeout.
 * @returns The embedder.
 *
 * @example
 * ```ts
 * import { createEmbedder } from "./embedder.ts";
 * const e = createEmbedder({ api: "ollama", baseUrl: "http://127.0.0.1:9", model: "m" });
 * const r = await e.embed(["x"]);
 * if (r.ok || r.error.kind !== "provider_unreachable") throw new Error();
 * ```
 */
export function createEmbedder(
  endpoint: EmbeddingEndpoint,
  options: EmbedderOptions = {},
): Embedder {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return {
    endpoint,
    async embed(texts, signal) {
      if (texts.length === 0) return ok([]);
      if (texts.length > MAX_BATCH) throw new Error(`embed() takes at most ${MAX_BATCH} texts`);
      const timeout = AbortSignal.timeout(timeoutMs);
      const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
      if (endpoint.api === "ollama") {
        return settled(
          await request(endpoint, "/api/embed", { model: endpoint.model, input: texts }, {
            signal: both,
            read: (body) => isRecord(body) ? body.embeddings : undefined,
            count: texts.length,
          }),
        );
      }
      const viaV1 = await request(
        endpoint,
        "/embeddings",
        { model: endpoint.model, input: texts, encoding_format: "float" },
        { signal: both, read: readOpenAIBody, count: texts.length, missing: true },
      );
      if (viaV1 !== "missing") return viaV1;
      // llama-server without the OpenAI route (older builds): its own /embedding at the root.
      const root = { ...endpoint, baseUrl: endpoint.baseUrl.replace(/\/v1$/, "") };
      return settled(
        await request(root, "/embedding", { content: texts }, {
          signal: both,
          read: readLlamaBody,
          count: texts.length,
        }),
      );
    },
  };
}

/** A request made without `missing` never answers "missing". */
function settled(
  result: Result<Float32Array[], AgentError> | "missing",
): Result<Float32Array[], AgentError> {
  if (result === "missing") throw new Error("unreachable: a route was missing without `missing`");
  return result;
}

/** `data[].embedding` in `index` order. */
function readOpenAIBody(body: unknown): unknown {
  if (!isRecord(body) || !Array.isArray(body.data)) return undefined;
  const items = [...body.data].filter(isRecord);
  items.sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
  return items.map((item) => item.embedding);
}

/**
 * llama-server's /embedding: `[{ index, embedding }]` where `embedding` is one pooled vector, or
 * (with --pooling none) one vector per token, which are averaged; older builds answer
 * `{ embedding }` for a single text.
 */
function readLlamaBody(body: unknown): unknown {
  const items = Array.isArray(body) ? body.filter(isRecord) : isRecord(body) ? [body] : [];
  items.sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
  return items.map((item) => {
    const e = item.embedding;
    if (Array.isArray(e) && Array.isArray(e[0])) return e.length === 1 ? e[0] : meanOf(e);
    return e;
  });
}

function meanOf(rows: unknown[]): unknown {
  const first = rows[0] as unknown[];
  const sum = new Array<number>(first.length).fill(0);
  for (const row of rows) {
    if (!Array.isArray(row) || row.length !== first.length) return undefined;
    for (let i = 0; i < row.length; i++) sum[i]! += Number(row[i]);
  }
  return sum.map((v) => v / rows.length);
}

/**
 * POSTs one request and checks its answer: `count` vectors of one length, finite numbers.
 * With `missing`, a 404 or 501 answer returns "missing" (the route does not exist).
 */
async function request(
  endpoint: EmbeddingEndpoint,
  path: string,
  payload: unknown,
  how: {
    signal: AbortSignal;
    read: (body: unknown) => unknown;
    count: number;
    missing?: boolean;
  },
): Promise<Result<Float32Array[], AgentError> | "missing"> {
  const url = `${endpoint.baseUrl}${path}`;
  const fail = (message: string, status = 200) =>
    err<AgentError>({ kind: "provider_http", baseUrl: url, status, message });
  let response: HttpResponse;
  try {
    response = await httpRequest(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
      },
      body: JSON.stringify(payload),
      signal: how.signal,
    });
  } catch (error) {
    if (isAbort(error, how.signal)) {
      return err({
        kind: "provider_unreachable",
        baseUrl: url,
        cause:
          how.signal.reason instanceof DOMException && how.signal.reason.name === "TimeoutError"
            ? "no answer in time: is the embedding model loading? Try again"
            : "cancelled",
      });
    }
    const reached = unreachableError(endpoint.baseUrl, error);
    return err(
      reached.kind === "provider_unreachable"
        ? {
          ...reached,
          cause: reached.cause.replace(/: start Ollama.*$/, ": is the server running?"),
        }
        : reached,
    );
  }
  if (how.missing && (response.status === 404 || response.status === 501)) {
    await response.body.cancel();
    return "missing";
  }
  if (!response.ok) {
    const text = await errorText(response);
    const hint = response.status === 404 || /not found|no such model/i.test(text)
      ? `: is "${endpoint.model}" an embedding model on this server? ` +
        (endpoint.api === "ollama"
          ? `Run "ollama pull ${endpoint.model}", or set "embedding_model"`
          : `Set "embedding_model" to one the server serves`)
      : "";
    return fail(`${text}${hint}`, response.status);
  }
  const length = Number(response.headers.get("content-length") ?? 0);
  if (length > MAX_RESPONSE_BYTES) {
    await response.body.cancel();
    return fail(`the answer is ${length} bytes, more than embeddings take`);
  }
  let body: unknown;
  try {
    const text = await response.text();
    if (text.length > MAX_RESPONSE_BYTES) return fail("the answer is larger than embeddings take");
    body = JSON.parse(text);
  } catch {
    return fail("the answer is not JSON");
  }
  return checkVectors(how.read(body), how.count, fail);
}

function checkVectors(
  raw: unknown,
  count: number,
  fail: (message: string) => { ok: false; error: AgentError },
): Result<Float32Array[], AgentError> {
  if (!Array.isArray(raw) || raw.length !== count) {
    return fail(
      `expected ${count} embedding${count === 1 ? "" : "s"}, got ${
        Array.isArray(raw) ? raw.length : "none"
      }: is "embedding_model" an embedding model?`,
    );
  }
  const vectors: Float32Array[] = [];
  let dimensions = -1;
  for (const item of raw) {
    if (!Array.isArray(item) || item.length === 0 || item.length > MAX_DIMENSIONS) {
      return fail("an embedding is not a list of 1 to 16,384 numbers");
    }
    if (dimensions !== -1 && item.length !== dimensions) {
      return fail(`embeddings of different lengths (${dimensions} and ${item.length})`);
    }
    dimensions = item.length;
    const vector = Float32Array.from(item, Number);
    if (vector.some((v) => !Number.isFinite(v))) return fail("an embedding holds a non-number");
    vectors.push(vector);
  }
  return ok(vectors);
}
