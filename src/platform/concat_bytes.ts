// Joins byte chunks into one new array: what streams read in pieces (a command's output, a
// server's message, a file read) becomes one buffer.

/**
 * The chunks one after another, in a new array.
 *
 * @param chunks The pieces, in order.
 * @param total Their summed length, when the caller counted it already.
 * @returns A new array (never one of the chunks).
 *
 * @example
 * ```ts
 * import { concatBytes } from "./concat_bytes.ts";
 * const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]);
 * if (joined.join(",") !== "1,2,3") throw new Error(String(joined));
 * ```
 */
export function concatBytes(
  chunks: readonly Uint8Array[],
  total = chunks.reduce((n, chunk) => n + chunk.length, 0),
): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
