// The vector store and the search arithmetic under semantic search: chunks the read grant hides
// are neither handed out to be embedded nor returned, whatever the graph still holds; vectors
// follow chunks by content; 8-bit vectors score within 2% of exact cosine similarity.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { GraphStore } from "../../src/code_index/graph_store.ts";
import { definitionChunks } from "../../src/code_index/definition_chunks.ts";
import { SemanticSearch } from "../../src/code_index/semantic_search.ts";
import { normalize, quantize, topMatches } from "../../src/code_index/vector_math.ts";
import { VectorStore } from "../../src/code_index/vector_store.ts";
import { createEmbedder } from "../../src/providers/embeddings/embedder.ts";
import { startFakeEmbeddingServer } from "../helpers/fake_embedding_server.ts";

const FILES: Record<string, string> = {
  "src/retry.ts": "// Retry a failed request later.\nexport function retryLater() {}\n",
  "private/keys.ts": "// The launch codes.\nexport function launchCodes() {}\n",
};

/** A graph holding both files' definitions and chunks, as an earlier wide run left it. */
function graph(): GraphStore {
  const store = GraphStore.open(":memory:");
  for (const [path, text] of Object.entries(FILES)) {
    const name = path.includes("retry") ? "retryLater" : "launchCodes";
    const definitions = [{
      name,
      kind: "function",
      line: 2,
      endLine: 2,
      signature: text.split("\n")[1]!,
    }];
    store.putFile(
      { path, size: text.length, mtimeMs: 0, hash: path },
      "typescript",
      { definitions, references: [] },
      definitionChunks(path, text, definitions),
    );
  }
  return store;
}

const visible = (path: string) => !path.startsWith("private/");

function ollamaEmbedder(root: string) {
  return createEmbedder({ api: "ollama", baseUrl: root, model: "nomic-embed-text" });
}

Deno.test("VectorStore.pending() hands out only the chunks the read grant shows now", () => {
  const store = graph();
  try {
    const vectors = new VectorStore(store.db);
    assertEquals(vectors.pending("m", visible).map((c) => c.path), ["src/retry.ts"]);
    assertEquals(vectors.pending("m", () => true).map((c) => c.path).sort(), [
      "private/keys.ts",
      "src/retry.ts",
    ]);
  } finally {
    store.close();
  }
});

Deno.test("SemanticSearch.search() never returns a hidden chunk, even one with a vector", async () => {
  await using server = startFakeEmbeddingServer();
  const store = graph();
  try {
    const embedder = ollamaEmbedder(server.root);
    // The hidden chunk got its vector in an earlier run with wider flags.
    const vectors = new VectorStore(store.db);
    const hidden = vectors.pending("nomic-embed-text", () => true);
    const answer = await embedder.embed(hidden.map((c) => c.text));
    assert(answer.ok);
    vectors.put(
      "nomic-embed-text",
      hidden.map((c, i) => ({ hash: c.hash, vector: answer.value[i]! })),
    );
    const before = server.texts().length;

    const found = await new SemanticSearch(embedder).search(store, {
      query: "the launch codes",
      limit: 10,
      visible,
      generation: 1,
    });
    assert(found.ok);
    assertEquals(found.value.matches.map((m) => m.path), ["src/retry.ts"]);
    // Only the query was sent.
    assertEquals(server.texts().slice(before), ["the launch codes"]);
  } finally {
    store.close();
  }
});

Deno.test("VectorStore vectors follow chunks by content: a removed file's vectors are pruned", async () => {
  await using server = startFakeEmbeddingServer();
  const store = graph();
  try {
    const embedder = ollamaEmbedder(server.root);
    const search = new SemanticSearch(embedder);
    const query = { query: "retry", limit: 5, visible: () => true, generation: 1 };
    const first = await search.search(store, query);
    assert(first.ok);
    assertEquals(first.value.embedded, 2);
    store.removeFiles(["private/keys.ts"]);
    const second = await search.search(store, { ...query, generation: 2 });
    assert(second.ok);
    assertEquals([second.value.embedded, second.value.searched], [0, 1]);
    assertEquals(new VectorStore(store.db).counts("nomic-embed-text"), { chunks: 1, embedded: 1 });
    const rows = store.db.prepare("SELECT count(*) AS n FROM embeddings").get();
    assertEquals(Number(rows?.n), 1);
  } finally {
    store.close();
  }
});

Deno.test("quantize() keeps scores within 0.02 of exact cosine similarity", () => {
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
  const rows = Array.from({ length: 200 }, () => Float32Array.from({ length: 384 }, random));
  const query = normalize(Float32Array.from({ length: 384 }, random));
  const quantized = rows.map(quantize);
  const matrix = {
    dimensions: 384,
    count: rows.length,
    q: Int8Array.from(quantized.flatMap((r) => [...r.q])),
    scales: Float32Array.from(quantized.map((r) => r.scale)),
  };
  const scores = topMatches(matrix, query, { k: rows.length, keep: () => true });
  for (const { row, score } of scores) {
    const exact = normalize(rows[row]!).reduce((sum, v, i) => sum + v * query[i]!, 0);
    assert(Math.abs(score - exact) < 0.02, `row ${row}: ${score} vs ${exact}`);
  }
});
