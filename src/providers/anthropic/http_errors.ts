// Errors for users from the Messages API: refused connections, HTTP error bodies
// (`{"type":"error","error":{"type":"overloaded_error","message":...}}`), rate limits with
// `retry-after`, and error events inside a stream become `provider_*` AgentErrors with the fix.

import type { AgentError } from "../../errors.ts";
import { type RefusalNumbers, refusalNumbers } from "../context_refusal.ts";
import type { HttpResponse } from "../http_request.ts";

/**
 * The error for a fetch that failed before any answer.
 *
 * @param root The server's root URL.
 * @param error What fetch threw (Deno puts the socket error in `cause`).
 * @returns A `provider_unreachable` error.
 *
 * @example
 * ```ts
 * import { unreachableError } from "./http_errors.ts";
 * const e = unreachableError("http://h:8080", new Error("x", { cause: new Error("ECONNREFUSED") }));
 * if (e.kind !== "provider_unreachable" || !e.cause.startsWith("connection refused")) throw new Error();
 * ```
 */
export function unreachableError(root: string, error: unknown): AgentError {
  const messages: string[] = [];
  for (let e: unknown = error; e !== undefined && messages.length < 4;) {
    messages.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  const all = messages.join(" ");
  let cause: string;
  if (/dns error|failed to lookup|Name or service not known|nodename nor servname/i.test(all)) {
    const host = URL.canParse(root) ? new URL(root).hostname : root;
    cause = `cannot resolve host "${host}": check the host name in --base-url`;
  } else if (/refused|os error 111|ECONNREFUSED/i.test(all)) {
    cause = "connection refused: start the model server or pass --base-url";
  } else {
    cause = `${messages.at(-1) ?? "unknown error"}: check --base-url`;
  }
  return { kind: "provider_unreachable", baseUrl: root, cause };
}

/**
 * Whether a fetch or stream failure was an abort.
 *
 * @example
 * ```ts
 * import { isAbort } from "./http_errors.ts";
 * if (!isAbort(new DOMException("", "AbortError"), undefined)) throw new Error();
 * ```
 */
export function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof DOMException && error.name === "AbortError");
}

/** The error type and message of an error body (Anthropic's or llama-server's shape). */
function readErrorBody(body: string): { type: string; message: string } {
  try {
    const parsed: unknown = JSON.parse(body);
    const outer = typeof parsed === "object" && parsed !== null
      ? parsed as Record<string, unknown>
      : {};
    const inner = typeof outer.error === "object" && outer.error !== null
      ? outer.error as Record<string, unknown>
      : outer;
    const message = typeof inner.message === "string"
      ? inner.message
      : typeof outer.error === "string"
      ? outer.error
      : "";
    return { type: typeof inner.type === "string" ? inner.type : "", message };
  } catch {
    return { type: "", message: body.replace(/\s+/g, " ").trim().slice(0, 300) };
  }
}

/**
 * The hint for an error type or status; `retryAfter` is the `retry-after` header.
 *
 * @param type The error's `type` (e.g. "overloaded_error"), or "".
 * @param status The HTTP status (0 for an error event inside a stream).
 * @param context Model name and retry-after header.
 * @returns The fix to add after the server's words, or undefined.
 *
 * @example
 * ```ts
 * import { errorHint } from "./http_errors.ts";
 * if (!errorHint("rate_limit_error", 429, { model: "m", retryAfter: "12" })?.includes("12 s")) throw new Error();
 * ```
 */
export function errorHint(
  type: string,
  status: number,
  context: { model: string; retryAfter?: string | null; message?: string },
): string | undefined {
  if (type === "authentication_error" || status === 401) {
    return "pass --api-key or set ANTHROPIC_API_KEY";
  }
  if (type === "permission_error" || status === 403) return "check the API key's permissions";
  if (type === "rate_limit_error" || status === 429) {
    const seconds = Number(context.retryAfter);
    return context.retryAfter && Number.isFinite(seconds)
      ? `rate limited: try again in ${Math.ceil(seconds)} s`
      : "rate limited: wait a moment and try again";
  }
  if (type === "overloaded_error" || status === 529) {
    return "the API is overloaded: try again in a moment";
  }
  if (type === "request_too_large" || status === 413) {
    return "the conversation is too large: start a new session";
  }
  if (/prompt is too long|context|too many tokens|exceeds/i.test(context.message ?? "")) {
    return "start a new session or raise the server's context size";
  }
  if (type === "not_found_error" || status === 404) {
    return /model/i.test(context.message ?? "")
      ? `check the model name "${context.model}" or pick another with --model`
      : "check --base-url (the Messages API is at /v1/messages)";
  }
  if (type === "api_error" || status >= 500) return "the server failed: try again";
  return undefined;
}

/** A failed HTTP answer: the error, and the numbers of a context refusal. */
export interface HttpFailure {
  error: AgentError;
  /** Set when the server refused the request as longer than its window. */
  contextExceeded?: RefusalNumbers;
}

/**
 * The error for a failed HTTP answer, in the server's words with the fix, and whether it was a
 * context refusal (Anthropic's "prompt is too long: N tokens > M maximum", llama-server's
 * `exceed_context_size_error` with `n_ctx`), so the conversation can cut and try again.
 *
 * @param root The server's root URL.
 * @param model The model name.
 * @param response The answer that is not ok (its body is read).
 * @returns A `provider_http` error, with the refusal's numbers when it was one.
 *
 * @example
 * ```ts
 * import { httpFailure } from "./http_errors.ts";
 * const body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
 * const { error } = await httpFailure("http://h", "m", new Response(body, { status: 529 }));
 * if (error.kind !== "provider_http" || error.message !== "Overloaded: the API is overloaded: try again in a moment") {
 *   throw new Error(JSON.stringify(error));
 * }
 * ```
 */
export async function httpFailure(
  root: string,
  model: string,
  response: Pick<HttpResponse, "status" | "statusText" | "headers" | "text">,
): Promise<HttpFailure> {
  const body = await response.text().catch(() => "");
  const { type, message } = readErrorBody(body);
  const words = (message || response.statusText || type || "no detail").replace(/\.$/, "");
  const hint = errorHint(type, response.status, {
    model,
    retryAfter: response.headers.get("retry-after"),
    message: words,
  });
  const error: AgentError = {
    kind: "provider_http",
    baseUrl: root,
    status: response.status,
    message: hint ? `${words}: ${hint}` : words,
  };
  const refused = type === "exceed_context_size_error" ||
    /prompt is too long|exceeds the available context|maximum context length/i.test(words);
  if (!refused) return { error };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch { /* the numbers come from the words alone */ }
  return { error, contextExceeded: refusalNumbers(parsed, words) };
}
