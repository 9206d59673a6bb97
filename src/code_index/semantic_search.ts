// What `search_code` does once the graph is up to date: embeds the chunks that have no vector
// yet (only those the read grant shows now), then the query, and returns the definitions
// whose chunks are most similar. The vectors of the whole workspace stay in memory between
// searches and are reloaded when the graph or the vectors changed.

import type { AgentError, Result } from "../errors.ts";
import { err, formatAgentError, ok } from "../errors.ts";
import { type Embedder, MAX_BATCH } from "../providers/embeddings/embedder.ts";
import type { GraphStore } from "./graph_store.ts";
import { normalize, topMatches } from "./vector_math.ts";
import { type LoadedVectors, VectorStore } from "./vector_store.ts";

/** One search_code call. */
export interface SemanticQuery {
  query: string;
  /** Only files under this folder, or this file. */
  path?: string;
  limit: number;
  /** Whether a workspace-relative path may be shown (read grant, --deny-read). */
  visible: (path: string) => boolean;
  signal?: AbortSignal;
  /** Changes whenever the graph changed (a file parsed or removed). */
  generation: number;
}

/** A match: the definition and how similar its chunk is to the query (cosine, -1 to 1). */
export interface SemanticMatch {
  path: string;
  line: number;
  endLine: number;
  signature: string;
  score: number;
}

/** What a search found, and what it embedded on the way. */
export interface SemanticAnswer {
  matches: SemanticMatch[];
  /** Chunks searched (those with a vector). */
  searched: number;
  /** Chunks embedded by this call. */
  embedded: number;
}

function under(prefix: string | undefined): (path: string) => boolean {
  const clean = (prefix ?? "").replace(/^\.\/?/, "").replace(/\/+$/, "");
  if (clean === "") return () => true;
  return (path) => path === clean || path.startsWith(`${clean}/`);
}

/** The search state of one workspace and one embedding model. */
export class SemanticSearch {
  #vectors: VectorStore | undefined;
  #loaded: { generation: number; vectors: LoadedVectors } | undefined;
  /** The graph generation whose chunks all have vectors: nothing to embed until it changes. */
  #complete: number | undefined;

  constructor(readonly embedder: Embedder) {}

  /**
   * Searches the graph by meaning.
   *
   * @param store The workspace's graph, already refreshed.
   * @param query The question and its scope.
   * @param retried Set on the second try, after the model's vector length changed.
   * @returns The best matches, or the embedding server's error (what was embedded is kept).
   */
  async search(
    store: GraphStore,
    query: SemanticQuery,
    retried = false,
  ): Promise<Result<SemanticAnswer, AgentError>> {
    this.#vectors ??= new VectorStore(store.db);
    const vectors = this.#vectors;
    const model = this.embedder.endpoint.model;
    const embedded = await this.#embedPending(vectors, query);
    if (!embedded.ok) return embedded;
    if (embedded.value > 0 || this.#loaded?.generation !== query.generation) {
      if (this.#loaded?.generation !== query.generation) vectors.prune();
      this.#loaded = { generation: query.generation, vectors: vectors.load(model) };
    }
    const loaded = this.#loaded!.vectors;
    const asked = await this.embedder.embed([query.query], query.signal);
    if (!asked.ok) return asked;
    const vector = asked.value[0]!;
    if (loaded.count > 0 && vector.length !== loaded.dimensions) {
      if (retried) {
        return err({
          kind: "usage",
          message: `"${model}" answers vectors of ${vector.length} numbers for the query but ` +
            `${loaded.dimensions} for the code: check "embedding_model"`,
        });
      }
      // The model changed under the same name: its old vectors cannot be compared.
      vectors.forget(model);
      this.#loaded = undefined;
      this.#complete = undefined;
      return await this.search(store, query, true);
    }
    const inScope = under(query.path);
    const seen = new Map<string, boolean>();
    const keep = (row: number) => {
      const path = loaded.paths[row]!;
      let ok = seen.get(path);
      if (ok === undefined) seen.set(path, ok = inScope(path) && query.visible(path));
      return ok;
    };
    const best = topMatches(loaded, normalize(vector), { k: query.limit, keep });
    const signature = store.db.prepare(
      "SELECT signature FROM definitions WHERE path = ? AND line = ? LIMIT 1",
    );
    const matches = best.map(({ row, score }) => {
      const path = loaded.paths[row]!;
      const line = loaded.lines[row]!;
      return {
        path,
        line,
        endLine: loaded.endLines[row]!,
        signature: String(signature.get(path, line)?.signature ?? ""),
        score,
      };
    });
    return ok({ matches, searched: loaded.count, embedded: embedded.value });
  }

  /** Embeds every visible chunk without a vector, a batch at a time; returns how many. */
  async #embedPending(
    vectors: VectorStore,
    query: SemanticQuery,
  ): Promise<Result<number, AgentError>> {
    if (this.#complete === query.generation) return ok(0);
    const model = this.embedder.endpoint.model;
    const pending = vectors.pending(model, query.visible);
    let done = 0;
    for (let start = 0; start < pending.length; start += MAX_BATCH) {
      const batch = pending.slice(start, start + MAX_BATCH);
      const answer = await this.embedder.embed(batch.map((c) => c.text), query.signal);
      if (!answer.ok) {
        if (done === 0) return answer;
        return err({
          kind: "usage",
          message: `Embedded ${done} of ${pending.length} definitions, then: ${
            formatAgentError(answer.error)
          } (search_code goes on from there next time)`,
        });
      }
      vectors.put(model, batch.map((c, i) => ({ hash: c.hash, vector: answer.value[i]! })));
      done += batch.length;
    }
    this.#complete = query.generation;
    return ok(done);
  }
}
