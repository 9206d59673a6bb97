// The arithmetic of semantic search: vectors are normalised to unit length and stored as 8-bit
// integers with one scale per vector (a quarter of float32's size, in memory and on disk); a
// query stays float32, so a score is a dot product, the cosine similarity within about 1%.
// topMatches keeps the best k in one pass over the rows.

/** A vector stored as `q * scale` (q: 8-bit integers). */
export interface QuantizedVector {
  scale: number;
  q: Int8Array;
}

/**
 * Normalises a vector to unit length and quantises it.
 *
 * @param vector The model's embedding.
 * @returns Its 8-bit form with the scale that restores it.
 *
 * @example
 * ```ts
 * import { quantize } from "./vector_math.ts";
 * const { q, scale } = quantize(Float32Array.of(3, 4));
 * if (q[1] !== 127 || Math.abs(q[0]! * scale - 0.6) > 0.01) throw new Error();
 * ```
 */
export function quantize(vector: Float32Array): QuantizedVector {
  let norm = 0;
  let max = 0;
  for (const v of vector) {
    norm += v * v;
    max = Math.max(max, Math.abs(v));
  }
  norm = Math.sqrt(norm);
  const q = new Int8Array(vector.length);
  if (norm === 0 || max === 0) return { scale: 0, q };
  const factor = 127 / max;
  for (let i = 0; i < vector.length; i++) q[i] = Math.round(vector[i]! * factor);
  return { scale: max / norm / 127, q };
}

/**
 * A vector scaled to unit length (for the query).
 *
 * @example
 * ```ts
 * import { normalize } from "./vector_math.ts";
 * const v = normalize(Float32Array.of(3, 4));
 * if (Math.abs(v[0]! - 0.6) > 1e-6) throw new Error();
 * ```
 */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm);
  return norm === 0 ? new Float32Array(vector.length) : vector.map((v) => v / norm);
}

/** Rows of quantised vectors, one after another. */
export interface VectorMatrix {
  dimensions: number;
  count: number;
  /** `count * dimensions` 8-bit components. */
  q: Int8Array;
  scales: Float32Array;
}

/**
 * The `k` rows most similar to `query` (cosine similarity), best first, among those `keep`
 * accepts.
 *
 * @param matrix The stored vectors.
 * @param query A unit-length query of the same dimensions.
 * @param options How many, and which rows may be returned.
 * @returns Row indexes and scores.
 *
 * @example
 * ```ts
 * import { quantize, topMatches } from "./vector_math.ts";
 * const rows = [Float32Array.of(1, 0), Float32Array.of(0, 1), Float32Array.of(1, 1)].map(quantize);
 * const matrix = {
 *   dimensions: 2, count: 3,
 *   q: Int8Array.from(rows.flatMap((r) => [...r.q])),
 *   scales: Float32Array.from(rows.map((r) => r.scale)),
 * };
 * const best = topMatches(matrix, Float32Array.of(1, 0), { k: 2, keep: () => true });
 * if (best[0]?.row !== 0 || best[1]?.row !== 2) throw new Error(JSON.stringify(best));
 * ```
 */
export function topMatches(
  matrix: VectorMatrix,
  query: Float32Array,
  options: { k: number; keep: (row: number) => boolean },
): { row: number; score: number }[] {
  const { dimensions, count, q, scales } = matrix;
  const best: { row: number; score: number }[] = [];
  for (let row = 0; row < count; row++) {
    let dot = 0;
    const base = row * dimensions;
    for (let i = 0; i < dimensions; i++) dot += q[base + i]! * query[i]!;
    const score = dot * scales[row]!;
    if (best.length === options.k && score <= best[best.length - 1]!.score) continue;
    if (!options.keep(row)) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.score < score) at--;
    best.splice(at, 0, { row, score });
    if (best.length > options.k) best.pop();
  }
  return best;
}
