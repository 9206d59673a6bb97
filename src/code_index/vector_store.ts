// Semantic search's vectors, beside the code graph in the workspace's SQLite database: one row
// per (embedding model, chunk hash) with the 8-bit vector and its scale (vector_math.ts). Rows
// are keyed by content, so they follow the graph's chunks as files change: chunks without a
// vector are embedded on the next search, vectors no chunk uses any more are pruned.

import type { DatabaseSync, SQLOutputValue } from "node:sqlite";
import { quantize, type VectorMatrix } from "./vector_math.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS embeddings (
  model TEXT NOT NULL,
  hash TEXT NOT NULL,
  scale REAL NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (model, hash)
) WITHOUT ROWID;
`;

/** A chunk that has no vector yet for the model. */
export interface PendingChunk {
  path: string;
  hash: string;
  text: string;
}

/** The searchable chunks of one model: where each row is, and the vectors. */
export interface LoadedVectors extends VectorMatrix {
  paths: string[];
  lines: Int32Array;
  endLines: Int32Array;
}

function str(value: SQLOutputValue | undefined): string {
  return typeof value === "string" ? value : String(value ?? "");
}

/** Reads and writes the vectors of one graph database. */
export class VectorStore {
  /** @param db The graph store's database (graph_store.ts). */
  constructor(readonly db: DatabaseSync) {
    db.exec(SCHEMA);
  }

  /**
   * Chunks with no vector for `model`, one per distinct text, in path order.
   *
   * @param model The embedding model.
   * @param visible Whether a path may be read now (the read grant and --deny-read): a chunk
   *   indexed under wider flags in an earlier run is never sent to be embedded.
   */
  pending(model: string, visible: (path: string) => boolean): PendingChunk[] {
    const rows = this.db.prepare(`
      SELECT c.path, c.hash, c.text FROM chunks c
      WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.hash = c.hash)
      ORDER BY c.path, c.line`).all(model);
    const seen = new Set<string>();
    const out: PendingChunk[] = [];
    for (const row of rows) {
      const hash = str(row.hash);
      const path = str(row.path);
      if (seen.has(hash) || !visible(path)) continue;
      seen.add(hash);
      out.push({ path, hash, text: str(row.text) });
    }
    return out;
  }

  /** Stores the vectors of some chunks (normalised and quantised), in one transaction. */
  put(model: string, items: readonly { hash: string; vector: Float32Array }[]): void {
    const insert = this.db.prepare(
      "INSERT OR REPLACE INTO embeddings (model, hash, scale, vector) VALUES (?, ?, ?, ?)",
    );
    this.db.exec("BEGIN IMMEDIATE");
    try {
      for (const { hash, vector } of items) {
        const { q, scale } = quantize(vector);
        insert.run(model, hash, scale, new Uint8Array(q.buffer, q.byteOffset, q.byteLength));
      }
      this.db.exec("COMMIT");
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  /**
   * Every chunk that has a vector for `model`, with the vectors as one matrix. Vectors of
   * another length than the most common one (a model replaced under the same name) are left
   * out.
   */
  load(model: string): LoadedVectors {
    const rows = this.db.prepare(`
      SELECT c.path, c.line, c.end_line, e.scale, e.vector FROM chunks c
      JOIN embeddings e ON e.model = ? AND e.hash = c.hash`).all(model);
    const lengths = new Map<number, number>();
    for (const row of rows) {
      const n = (row.vector as Uint8Array).byteLength;
      lengths.set(n, (lengths.get(n) ?? 0) + 1);
    }
    const dimensions = [...lengths].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
    const kept = rows.filter((row) => (row.vector as Uint8Array).byteLength === dimensions);
    const q = new Int8Array(kept.length * dimensions);
    const scales = new Float32Array(kept.length);
    const lines = new Int32Array(kept.length);
    const endLines = new Int32Array(kept.length);
    const paths: string[] = [];
    kept.forEach((row, i) => {
      const bytes = row.vector as Uint8Array;
      q.set(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), i * dimensions);
      scales[i] = Number(row.scale);
      lines[i] = Number(row.line);
      endLines[i] = Number(row.end_line);
      paths.push(str(row.path));
    });
    return { dimensions, count: kept.length, q, scales, lines, endLines, paths };
  }

  /** Deletes every vector of `model` (its answers changed length: it is another model now). */
  forget(model: string): void {
    this.db.prepare("DELETE FROM embeddings WHERE model = ?").run(model);
  }

  /** Deletes vectors that no chunk has any more; returns how many. */
  prune(): number {
    const result = this.db.prepare(
      "DELETE FROM embeddings WHERE hash NOT IN (SELECT hash FROM chunks)",
    ).run();
    return Number(result.changes);
  }

  /** Chunks in the graph, and those with a vector for `model`. */
  counts(model: string): { chunks: number; embedded: number } {
    const row = this.db.prepare(`
      SELECT (SELECT count(*) FROM chunks) AS chunks,
        (SELECT count(*) FROM chunks c JOIN embeddings e ON e.model = ? AND e.hash = c.hash)
          AS embedded`).get(model);
    return { chunks: Number(row?.chunks ?? 0), embedded: Number(row?.embedded ?? 0) };
  }
}
