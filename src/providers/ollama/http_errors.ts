// Errors for users from Ollama's HTTP API: refused connections, error bodies, unknown models
// and models without tool support become `provider_*` or `usage` AgentErrors with the fix.
// The provider, the /api/show reader and the model lister call these instead of throwing.

import type { AgentError } from "../../errors.ts";
import { isRecord } from "../../platform/json_values.ts";
import type { HttpResponse } from "../http_request.ts";

/** What to do when Ollama itself failed (a crashed runner, out of memory). */
export const SERVER_FAILED_HINT =
  "see the Ollama server log for why, then try again (a smaller --num-ctx needs less memory)";

/**
 * The error for a fetch that failed before any answer, with the socket error from `cause`.
 *
 * @param root The server's root URL.
 * @param error What fetch threw.
 * @returns A `provider_unreachable` error that says how to start Ollama.
 *
 * @example
 * ```ts
 * import { unreachableError } from "./http_errors.ts";
 * const e = unreachableError("http://h:11434", new Error("x", { cause: new Error("ECONNREFUSED") }));
 * if (e.kind !== "provider_unreachable" || !e.cause.startsWith("connection refused")) {
 *   throw new Error();
 * }
 * ```
 */
export function unreachableError(root: string, error: unknown): AgentError {
  // Deno puts the socket error in `cause`: "fetch failed" alone says nothing.
  const messages: string[] = [];
  for (let e: unknown = error; e !== undefined && messages.length < 4;) {
    messages.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  const text = messages.at(-1) ?? "unknown error";
  const all = messages.join(" ");
  if (/dns error|failed to lookup|Name or service not known|nodename nor servname/i.test(all)) {
    const host = URL.canParse(root) ? new URL(root).hostname : root;
    return {
      kind: "provider_unreachable",
      baseUrl: root,
      cause: `cannot resolve host "${host}": check the host name in --base-url`,
    };
  }
  const refused = /refused|os error 111|ECONNREFUSED/i.test(all);
  return {
    kind: "provider_unreachable",
    baseUrl: root,
    cause: `${
      refused ? "connection refused" : text
    }: start Ollama with "ollama serve" or pass --base-url`,
  };
}

/**
 * Whether a fetch or stream failure was an abort.
 *
 * @param error What was thrown.
 * @param signal The request's signal, if any.
 * @returns `true` when the signal fired or the error is an AbortError.
 *
 * @example
 * ```ts
 * import { isAbort } from "./http_errors.ts";
 * if (!isAbort(new DOMException("", "AbortError"), undefined)) throw new Error();
 * if (isAbort(new Error("reset"), new AbortController().signal)) throw new Error();
 * ```
 */
export function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof DOMException && error.name === "AbortError");
}

/**
 * The server's words for a failed answer: the `error` field of a JSON body, else the text.
 *
 * @param response A response that is not ok.
 * @returns The detail, never empty.
 *
 * @example
 * ```ts
 * import { errorText } from "./http_errors.ts";
 * const text = await errorText(new Response('{"error":"model not found"}', { status: 404 }));
 * if (text !== "model not found") throw new Error(text);
 * ```
 */
export async function errorText(
  response: Pick<HttpResponse, "statusText" | "text">,
): Promise<string> {
  const body = await response.text().catch(() => "");
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed) && typeof parsed.error === "string") return parsed.error;
  } catch {
    // not JSON: use the text
  }
  return body.trim() || response.statusText || "no detail";
}

/**
 * The error for a model that cannot call tools.
 *
 * @param model The model name.
 * @returns A `usage` error that says how to check the model's capabilities.
 *
 * @example
 * ```ts
 * import { noToolsError } from "./http_errors.ts";
 * if (noToolsError("gemma").kind !== "usage") throw new Error();
 * ```
 */
export function noToolsError(model: string): AgentError {
  return {
    kind: "usage",
    message: `Model "${model}" does not support tools: pick a model whose capabilities ` +
      `include "tools" (ollama show ${model})`,
  };
}

/**
 * The error for a failed HTTP answer, with the fix for the common cases.
 *
 * @param root The server's root URL.
 * @param model The model name.
 * @param answer The HTTP status and the server's detail (from {@linkcode errorText}).
 * @returns `usage` for a model without tools, else `provider_http`.
 *
 * @example
 * ```ts
 * import { httpError } from "./http_errors.ts";
 * const e = httpError("http://h:11434", "qwen3", { status: 404, text: 'model "qwen3" not found' });
 * if (e.kind !== "provider_http" || !e.message.includes("ollama pull qwen3")) throw new Error();
 * ```
 */
export function httpError(
  root: string,
  model: string,
  answer: { status: number; text: string },
): AgentError {
  const { status, text } = answer;
  if (/does not support tools/i.test(text)) return noToolsError(model);
  const notFound = status === 404 && /not found/i.test(text);
  return {
    kind: "provider_http",
    baseUrl: root,
    status,
    message: notFound
      ? `${text}: pull it with "ollama pull ${model}" or pick one from "ollama list"`
      : status >= 500
      ? `${text}: ${SERVER_FAILED_HINT}`
      : text,
  };
}
