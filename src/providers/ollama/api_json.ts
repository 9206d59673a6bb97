// Ollama's own API root, and one JSON request to it (/api/tags, /api/show) with the provider's
// errors: a refused connection and an error status become the `provider_*` AgentErrors of
// http_errors.ts, and a body that is not JSON reads as undefined (the caller's parser copes).

import { type AgentError, err, ok, type Result } from "../../errors.ts";
import { errorText, httpError, unreachableError } from "./http_errors.ts";
import { httpRequest, type HttpResponse } from "../http_request.ts";

/**
 * Ollama's root URL: the base URL without a trailing slash, /v1 or /api.
 *
 * @example
 * ```ts
 * import { ollamaRoot } from "./api_json.ts";
 * if (ollamaRoot("http://127.0.0.1:11434/v1/") !== "http://127.0.0.1:11434") throw new Error();
 * ```
 */
export function ollamaRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/(v1|api)$/, "");
}

/**
 * GETs an endpoint, or POSTs `body` as JSON, and parses the answer.
 *
 * @param root The server's root URL.
 * @param request The path (`/api/show`), the model the errors name, and an optional body and
 *   abort signal.
 * @returns The parsed body (undefined when it is not JSON), or the error for the user.
 *
 * @example
 * ```ts
 * import { ollamaApiJson } from "./api_json.ts";
 * const r = await ollamaApiJson("http://127.0.0.1:9", { path: "/api/tags", model: "m" });
 * if (r.ok || r.error.kind !== "provider_unreachable") throw new Error();
 * ```
 */
export async function ollamaApiJson(
  root: string,
  request: { path: string; model: string; body?: unknown; signal?: AbortSignal | undefined },
): Promise<Result<unknown, AgentError>> {
  const { body, signal } = request;
  let response: HttpResponse;
  try {
    response = await httpRequest(`${root}${request.path}`, {
      ...(body === undefined ? {} : {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return err(unreachableError(root, error));
  }
  if (!response.ok) {
    const text = await errorText(response);
    return err(httpError(root, request.model, { status: response.status, text }));
  }
  return ok(await response.json().catch(() => undefined));
}
