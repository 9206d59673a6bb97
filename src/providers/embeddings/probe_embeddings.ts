// What `harness doctor` says about embeddings: which model search_code would use (configured or
// found, as a run resolves it) and whether it answers, with the length of its vectors. One
// short request; never throws.

import { formatAgentError } from "../../errors.ts";
import { type EmbeddingSetup, resolveEmbedder } from "./embedding_setup.ts";

/** The embedding model found and how it answered, or why there is none. */
export type EmbeddingProbe =
  | { status: "ok"; model: string; baseUrl: string; dimensions: number }
  | { status: "failed"; model: string; baseUrl: string; problem: string }
  | { status: "off" | "none" };

/**
 * Resolves the embedding model as a run does and asks it to embed one short text.
 *
 * @param setup The settings and the model server.
 * @param signal Cancels the request.
 * @returns Its model, URL and vector length; the server's error; or "off" / "none".
 *
 * @example
 * ```ts
 * import { probeEmbeddings } from "./probe_embeddings.ts";
 * const off = await probeEmbeddings({ embeddingModel: "off", server: { provider: "ollama" } });
 * if (off.status !== "off") throw new Error();
 * ```
 */
export async function probeEmbeddings(
  setup: EmbeddingSetup,
  signal?: AbortSignal,
): Promise<EmbeddingProbe> {
  if (setup.embeddingModel === "off") return { status: "off" };
  const embedder = await resolveEmbedder(setup);
  if (!embedder) return { status: "none" };
  const { model, baseUrl } = embedder.endpoint;
  const answer = await embedder.embed(["harness doctor"], signal);
  if (!answer.ok) {
    return { status: "failed", model, baseUrl, problem: formatAgentError(answer.error) };
  }
  return { status: "ok", model, baseUrl, dimensions: answer.value[0]!.length };
}
