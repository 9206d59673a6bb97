// One small JSON request to a model server's side endpoint (/props, /v1/models, /tokenize,
// ...): a short timeout, the API key when there is one, and undefined instead of an error, for
// probes whose failure only means "this server does not say".

import { httpRequest } from "./http_request.ts";

/** Options of {@linkcode fetchJson}. */
export interface FetchJsonOptions {
  /** A JSON body to POST; a GET without it. */
  body?: unknown;
  /** Bearer token, sent when given. */
  apiKey?: string;
  /** Default 3 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Fetches JSON; undefined for a failed request, an error status or a body that is not JSON.
 *
 * @param url The endpoint.
 * @param options Body, API key, timeout and abort signal.
 * @returns The parsed body, or undefined.
 *
 * @example
 * ```ts
 * import { fetchJson } from "./fetch_json.ts";
 * if (await fetchJson("http://127.0.0.1:9/props", { timeoutMs: 300 }) !== undefined) {
 *   throw new Error("nothing listens on port 9");
 * }
 * ```
 */
export async function fetchJson(url: string, options: FetchJsonOptions = {}): Promise<unknown> {
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 3000)];
  if (options.signal) signals.push(options.signal);
  const post = options.body !== undefined;
  try {
    const response = await httpRequest(url, {
      ...(post ? { method: "POST", body: JSON.stringify(options.body) } : {}),
      headers: {
        ...(post ? { "content-type": "application/json" } : {}),
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      signal: AbortSignal.any(signals),
    });
    if (!response.ok) {
      await response.body.cancel();
      return undefined;
    }
    return await response.json();
  } catch {
    return undefined;
  }
}
