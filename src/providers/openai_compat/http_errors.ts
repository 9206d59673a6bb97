// Errors for users: turns what the client reports (timeouts, refused connections, HTTP errors,
// error events inside a stream, malformed or broken streams; chat_client.ts) into `provider_*`
// AgentErrors with the server's own words and a fix. The provider calls it for every failed
// request so that it never throws.

import type { AgentError } from "../../errors.ts";
import { isRecord } from "../../platform/json_values.ts";
import { type RefusalNumbers, refusalNumbers } from "../context_refusal.ts";
import type { ClientFailure } from "./chat_client.ts";

/** What {@linkcode describeError} needs to know about the provider. */
export interface DescribeErrorOptions {
  /** Endpoint the request went to. */
  baseUrl: string;
  /** Model name, used in the hint for an unknown model. */
  model: string;
  /** Request timeout in effect, quoted when a request times out. */
  timeoutMs: number;
}

/** What {@linkcode describeError} found. */
export interface DescribedError {
  error: AgentError;
  /** The server asks for short tool-call ids (Mistral on vLLM). */
  idsRejected: boolean;
  /** The request was longer than the server's window, with the numbers the server named. */
  contextExceeded?: RefusalNumbers;
}

/**
 * Describes a failed request for the user.
 *
 * @param failure What the client reported.
 * @param options Endpoint, model and timeout of the provider.
 * @returns The error, and whether the server rejected the tool-call ids (a 400 that asks for
 * short ids), in which case the provider retries with short ids.
 *
 * @example
 * ```ts
 * import { describeError } from "./http_errors.ts";
 * const options = { baseUrl: "http://127.0.0.1:9/v1", model: "qwen3", timeoutMs: 1000 };
 * const described = describeError({ kind: "malformed", data: "{not json" }, options);
 * if (described.error.kind !== "provider_stream" || described.idsRejected) {
 *   throw new Error(JSON.stringify(described));
 * }
 * ```
 */
export function describeError(
  failure: ClientFailure,
  options: DescribeErrorOptions,
): DescribedError {
  const { baseUrl, timeoutMs } = options;
  const stream = (message: string): DescribedError => ({
    error: { kind: "provider_stream", baseUrl, message },
    idsRejected: false,
  });
  switch (failure.kind) {
    case "timeout": {
      const within = timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`;
      const cause = `no response within ${within}: the server may still be loading the ` +
        `model; try again or raise --first-byte-timeout (config "first_byte_timeout")`;
      return { error: { kind: "provider_unreachable", baseUrl, cause }, idsRejected: false };
    }
    case "connection": {
      const cause = connectionCause(failure.cause, baseUrl);
      return { error: { kind: "provider_unreachable", baseUrl, cause }, idsRejected: false };
    }
    case "http":
    case "error_event":
      return describeServerError(failure, options);
    case "malformed":
      return stream(`malformed JSON in an event: "${preview(failure.data)}"`);
    case "broken":
      return stream(`the connection closed mid-stream: ${errorText(failure.cause)}`);
    default: {
      const never: never = failure;
      throw new Error(`unhandled client failure ${JSON.stringify(never)}`);
    }
  }
}

/** An error status, or an error event inside a stream, in the server's own words. */
function describeServerError(
  failure: Extract<ClientFailure, { kind: "http" | "error_event" }>,
  options: DescribeErrorOptions,
): DescribedError {
  const { baseUrl, model } = options;
  const message = serverMessage(failure.error) ?? clean(failure.message) ??
    "no error message in the response";
  const contextExceeded = contextError(failure.error, message);
  if (contextExceeded) {
    const status = failure.kind === "http" ? failure.status : 400;
    return {
      error: { kind: "provider_http", baseUrl, status, message: addHint(message, status, model) },
      idsRejected: false,
      contextExceeded,
    };
  }
  if (failure.kind === "error_event") {
    // An `{"error": ...}` event inside a 200 stream; llama.cpp puts the HTTP status in `code`.
    const code: unknown = isRecord(failure.error) ? failure.error.code : undefined;
    const status = typeof code === "number" && code >= 400 && code < 600 ? code : undefined;
    const withHint = addHint(message, status ?? 0, model);
    return {
      error: status === undefined
        ? { kind: "provider_stream", baseUrl, message: `the server reported: ${withHint}` }
        : { kind: "provider_http", baseUrl, status, message: withHint },
      idsRejected: false,
    };
  }
  const { status } = failure;
  const idsRejected = status === 400 && /tool[ _-]?call[ _-]?id|length of 9/i.test(message);
  return {
    error: { kind: "provider_http", baseUrl, status, message: addHint(message, status, model) },
    idsRejected,
  };
}

/** The start of an event's data, for a message. */
function preview(data: string): string {
  const flat = data.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 80)}...` : flat;
}

/**
 * Recognises a context-window error: llama-server's `exceed_context_size_error` (with
 * `n_ctx`), vLLM's 400 "This model's maximum context length is N tokens", OpenAI's
 * `context_length_exceeded`, LM Studio's and others' wording.
 */
function contextError(body: unknown, message: string): RefusalNumbers | undefined {
  const inner = isRecord(body) && isRecord(body.error) ? body.error : body;
  const type = isRecord(inner) ? inner.type ?? inner.code : undefined;
  const known = type === "exceed_context_size_error" || type === "context_length_exceeded";
  if (
    !known &&
    !/maximum context length|exceeds the available context|context (length|size|window) (exceeded|is exceeded)|context overflow|prompt is too long|too many tokens/i
      .test(message)
  ) {
    return undefined;
  }
  return refusalNumbers(body, message);
}

function connectionCause(cause: unknown, baseUrl: string): string {
  const text = errorText(cause) + (isRecord(cause) ? ` ${errorText(cause.cause)}` : "");
  if (/refused|ECONNREFUSED/i.test(text)) {
    const start = /:11434\b/.test(baseUrl)
      ? `start Ollama with "ollama serve"`
      : "start the model server";
    return `connection refused: ${start} or pass --base-url`;
  }
  if (/dns|lookup|getaddrinfo|name or service not known|nodename/i.test(text)) {
    return "host not found: check the host name in --base-url";
  }
  if (/certificate|tls|ssl/i.test(text)) return `TLS failed: ${text.trim()}`;
  return `connection failed: ${text.trim() || "no detail"}: check --base-url`;
}

/** Finds the server's own words in an error body (OpenAI, Ollama, vLLM, FastAPI, llama.cpp). */
function serverMessage(body: unknown): string | undefined {
  if (typeof body === "string") return clean(body);
  if (Array.isArray(body)) {
    const parts = body.map((item) => serverMessage(item)).filter((s) => s !== undefined);
    return parts.length > 0 ? parts.join("; ") : undefined;
  }
  if (!isRecord(body)) return undefined;
  for (const key of ["message", "error", "detail", "msg"]) {
    const found = serverMessage(body[key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

function addHint(message: string, status: number, model: string): string {
  let hint: string | undefined;
  if (status === 401 || status === 403) {
    hint = "pass --api-key or set HARNESS_API_KEY";
  } else if (/model/i.test(message) && /not found|does not exist|no such|unknown/i.test(message)) {
    hint = `check the model name "${model}" or pick another with --model` +
      ` (for Ollama: "ollama pull ${model}")`;
  } else if (/tools?.*(not supported|unsupported)|does not support tools|--jinja/i.test(message)) {
    hint = "use a model or chat template that supports tool calling";
  } else if (/context|too long|maximum.*tokens|n_ctx|exceeds/i.test(message)) {
    hint = "type /compact, start a new session, or raise the server's context size";
  } else if (status === 404) {
    hint = "check --base-url (it usually ends with /v1)";
  }
  return hint ? `${message}: ${hint}` : message;
}

function clean(text: string): string | undefined {
  const flat = text.replace(/\s+/g, " ").trim().replace(/\.$/, "");
  if (flat === "") return undefined;
  return flat.length > 300 ? `${flat.slice(0, 300)}...` : flat;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? "" : String(error);
}
