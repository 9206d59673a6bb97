// Asks an OpenAI-compatible server's own tokenizer how long a request's prompt is: vLLM's
// /tokenize takes the chat messages and answers `count`; llama-server renders its chat template
// with /apply-template and counts the prompt with /tokenize. The first way that answers is
// kept for the session; a server with neither is not asked again. Never throws.

import { isRecord } from "../../platform/json_values.ts";
import { fetchJson } from "../fetch_json.ts";

/** Which way of counting works on this server, once known. */
export type TokenizeWay = "vllm" | "llama-server" | "none";

/** The chat request to count, as it goes on the wire. */
export interface WireRequest {
  model: string;
  messages: unknown[];
  tools?: unknown[];
}

/** Options of {@linkcode countPromptTokens}. */
export interface CountOptions {
  apiKey?: string;
  /** Per-request timeout; default 5 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Counts the prompt tokens of a chat request with the server's tokenizer.
 *
 * @param baseUrl The endpoint with its version path (`http://127.0.0.1:8080/v1`).
 * @param request The model, wire messages and wire tools.
 * @param state Which way works, updated on the first call.
 * @param options API key, timeout and abort signal.
 * @returns The token count, or undefined when the server cannot say.
 *
 * @example
 * ```ts
 * import { countPromptTokens } from "./count_tokens.ts";
 * const state: { way?: "vllm" | "llama-server" | "none" } = {};
 * const count = await countPromptTokens("http://127.0.0.1:9/v1",
 *   { model: "m", messages: [] }, state, { timeoutMs: 300 });
 * if (count !== undefined || state.way !== "none") throw new Error(String(count));
 * ```
 */
export async function countPromptTokens(
  baseUrl: string,
  request: WireRequest,
  state: { way?: TokenizeWay },
  options: CountOptions = {},
): Promise<number | undefined> {
  const root = baseUrl.replace(/\/+$/, "").replace(/\/v\d+$/, "");
  const post = (path: string, body: unknown) =>
    fetchJson(`${root}${path}`, {
      body,
      timeoutMs: options.timeoutMs ?? 5000,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  if (state.way === "none") return undefined;
  if (state.way !== "llama-server") {
    const answer = await post("/tokenize", { ...request, add_generation_prompt: true });
    const count = isRecord(answer) ? answer.count : undefined;
    if (typeof count === "number") {
      state.way = "vllm";
      return count;
    }
    if (state.way === "vllm") return undefined;
  }
  const { model: _model, ...chat } = request;
  const rendered = await post("/apply-template", chat);
  const prompt = isRecord(rendered) ? rendered.prompt : undefined;
  const tokenized = typeof prompt === "string"
    ? await post("/tokenize", { content: prompt, add_special: true })
    : undefined;
  const tokens = isRecord(tokenized) ? tokenized.tokens : undefined;
  if (Array.isArray(tokens)) {
    state.way = "llama-server";
    return tokens.length;
  }
  state.way ??= "none";
  return undefined;
}
