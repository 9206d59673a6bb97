// Finds an embedding model on the local model server when `embedding_model` is not set: the
// first model whose name says it embeds (nomic-embed-text, mxbai-embed-large, all-minilm,
// bge-m3, snowflake-arctic-embed, e5, gte), from Ollama's /api/tags or an OpenAI-compatible
// /v1/models. Only a server on this machine is asked: code is never sent off the machine
// unless the user names a model for it. Never throws.

import { isRecord } from "../../platform/json_values.ts";
import type { EmbeddingApi } from "./embedder.ts";
import { httpRequest } from "../http_request.ts";

/** Names of embedding models (Ollama's library and the common GGUF names). */
const EMBEDDING_NAME = /embed|minilm|(^|[^a-z])(bge|e5|gte)([^a-z]|$)/i;

/**
 * Whether a URL's host is this machine (localhost, 127.0.0.0/8 or ::1).
 *
 * @example
 * ```ts
 * import { isLoopbackUrl } from "./find_embedding_model.ts";
 * if (!isLoopbackUrl("http://127.0.0.1:11434") || !isLoopbackUrl("http://localhost:8080/v1")) {
 *   throw new Error();
 * }
 * if (isLoopbackUrl("https://api.openai.com/v1") || isLoopbackUrl("http://127.0.0.1.example.com")) {
 *   throw new Error();
 * }
 * ```
 */
export function isLoopbackUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Whether a model's name says it is an embedding model.
 *
 * @example
 * ```ts
 * import { looksLikeEmbeddingModel } from "./find_embedding_model.ts";
 * for (const name of ["nomic-embed-text:latest", "all-minilm", "bge-m3", "text-embedding-3-small"]) {
 *   if (!looksLikeEmbeddingModel(name)) throw new Error(name);
 * }
 * if (looksLikeEmbeddingModel("qwen3:8b") || looksLikeEmbeddingModel("gemma3")) throw new Error();
 * ```
 */
export function looksLikeEmbeddingModel(name: string): boolean {
  return EMBEDDING_NAME.test(name);
}

/**
 * The first embedding model the server lists, if any.
 *
 * @param api The server's wire format.
 * @param baseUrl Ollama's root URL, or the OpenAI-compatible base URL.
 * @param options How long to wait (default 2 s) and the bearer key for the listing.
 * @returns The model's name, or undefined (not on this machine, none listed, no answer).
 *
 * @example
 * ```ts
 * import { findEmbeddingModel } from "./find_embedding_model.ts";
 * if (await findEmbeddingModel("ollama", "https://example.com") !== undefined) throw new Error();
 * ```
 */
export async function findEmbeddingModel(
  api: EmbeddingApi,
  baseUrl: string,
  options: { timeoutMs?: number; apiKey?: string } = {},
): Promise<string | undefined> {
  if (!isLoopbackUrl(baseUrl)) return undefined;
  try {
    const response = await httpRequest(`${baseUrl}${api === "ollama" ? "/api/tags" : "/models"}`, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 2000),
      ...(options.apiKey ? { headers: { authorization: `Bearer ${options.apiKey}` } } : {}),
    });
    if (!response.ok) {
      await response.body.cancel();
      return undefined;
    }
    const body: unknown = await response.json();
    const list = isRecord(body) ? (api === "ollama" ? body.models : body.data) : undefined;
    if (!Array.isArray(list)) return undefined;
    const names = list.filter(isRecord)
      .map((model) => model[api === "ollama" ? "name" : "id"])
      .filter((name): name is string => typeof name === "string");
    return names.find(looksLikeEmbeddingModel);
  } catch {
    return undefined;
  }
}
