// Which embedding model `search_code` uses, from the settings and the model server of the run:
// `embedding_model` on `embedding_base_url` (default: the model server, in its own wire
// format), or the first embedding model the local server lists. The API key goes only to the
// model server's own origin, never to another embedding server.

import { createEmbedder, type Embedder, type EmbeddingApi } from "./embedder.ts";
import { findEmbeddingModel } from "./find_embedding_model.ts";

/**
 * The model server in use, and the provider speaking to it ("ollama", "openai", ...; "auto":
 * not opened, so the URL's shape decides, as for `embedding_base_url`).
 */
export interface EmbeddingServer {
  baseUrl?: string;
  provider: string;
}

/** What the run knows that decides the embedding model. */
export interface EmbeddingSetup {
  /** `embedding_model` ("off": none). */
  embeddingModel?: string;
  /** `embedding_base_url`. */
  embeddingBaseUrl?: string;
  /** The model server in use. */
  server: EmbeddingServer;
  /** The model server's key. */
  apiKey?: string;
}

/**
 * The wire format of an embedding URL: an OpenAI-compatible one ends in `/v1`, anything else
 * is taken for Ollama's root.
 *
 * @example
 * ```ts
 * import { embeddingApiOf } from "./embedding_setup.ts";
 * if (embeddingApiOf("http://127.0.0.1:8081/v1") !== "openai") throw new Error();
 * if (embeddingApiOf("http://127.0.0.1:11434") !== "ollama") throw new Error();
 * ```
 */
export function embeddingApiOf(url: string): EmbeddingApi {
  return /\/v1$/.test(url.replace(/\/+$/, "")) ? "openai" : "ollama";
}

/** The embedding endpoint's base and wire format, or undefined when there is none. */
function where(setup: EmbeddingSetup): { baseUrl: string; api: EmbeddingApi } | undefined {
  if (setup.embeddingBaseUrl !== undefined) {
    return { baseUrl: setup.embeddingBaseUrl, api: embeddingApiOf(setup.embeddingBaseUrl) };
  }
  const { baseUrl } = setup.server;
  if (baseUrl === undefined) return undefined;
  const provider = setup.server.provider === "auto"
    ? embeddingApiOf(baseUrl)
    : setup.server.provider;
  // An in-process model or the Anthropic API has no embeddings: only a named server does.
  if (provider !== "ollama" && provider !== "openai") return undefined;
  return provider === "ollama"
    ? { baseUrl: baseUrl.replace(/\/v1$/, ""), api: "ollama" }
    : { baseUrl, api: "openai" };
}

function sameOrigin(a: string, b: string | undefined): boolean {
  return b !== undefined && URL.canParse(a) && URL.canParse(b) &&
    new URL(a).origin === new URL(b).origin;
}

/**
 * The embedder for `search_code`, or undefined (turned off, no server for it, or no model
 * configured or found).
 *
 * @param setup The settings and the model server.
 * @returns The embedder; asking the server's model list takes at most 2 seconds.
 *
 * @example
 * ```ts
 * import { resolveEmbedder } from "./embedding_setup.ts";
 * const e = await resolveEmbedder({
 *   embeddingModel: "nomic-embed-text",
 *   server: { baseUrl: "http://127.0.0.1:11434", provider: "ollama" },
 * });
 * if (e?.endpoint.api !== "ollama" || e.endpoint.model !== "nomic-embed-text") throw new Error();
 * if (await resolveEmbedder({ embeddingModel: "off", server: { provider: "ollama" } })) {
 *   throw new Error();
 * }
 * ```
 */
export async function resolveEmbedder(setup: EmbeddingSetup): Promise<Embedder | undefined> {
  if (setup.embeddingModel === "off") return undefined;
  const at = where(setup);
  if (!at) return undefined;
  const key = setup.apiKey !== undefined && sameOrigin(at.baseUrl, setup.server.baseUrl)
    ? { apiKey: setup.apiKey }
    : {};
  const model = setup.embeddingModel ?? await findEmbeddingModel(at.api, at.baseUrl, key);
  if (model === undefined) return undefined;
  return createEmbedder({ ...at, model, ...key });
}
