// A deterministic stand-in for an embedding model: a hashed bag of words. Identifiers are split
// (camelCase, snake_case), words lower-cased, stop words dropped and a few suffixes stripped,
// then each word adds one to a hashed slot. Similar vectors mean shared words, not shared
// meaning: recall measured with it is a floor for what a real embedding model does.

const STOP = new Set(
  ("a an and are as at be by do does for from how in into is it its of on or the this to " +
    "what when where which who why with get set one two new").split(" "),
);

/**
 * The words of a text as the embedding counts them.
 *
 * @example
 * ```ts
 * import { words } from "./hashed_embedding.ts";
 * const w = words("parseToolCalls reads tool_calls");
 * if (w.join(" ") !== "parse tool call read tool call") throw new Error(w.join(" "));
 * ```
 */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !STOP.has(word))
    .map((word) => word.replace(/(ies)$/, "y").replace(/(ing|ed|s)$/, "") || word);
}

/** FNV-1a of a string. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A text's hashed bag of words.
 *
 * @param text Any text.
 * @param dimensions The vector's length (default 256).
 * @returns The counts per slot (all zero for a text without words).
 *
 * @example
 * ```ts
 * import { hashedBagOfWords } from "./hashed_embedding.ts";
 * const a = hashedBagOfWords("retry the request");
 * if (a.length !== 256 || a.reduce((s, x) => s + Math.abs(x), 0) !== 2) throw new Error();
 * ```
 */
export function hashedBagOfWords(text: string, dimensions = 256): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of words(text)) {
    const hash = fnv1a(word);
    // The sign spreads collisions out instead of letting them add up.
    vector[hash % dimensions]! += hash & 0x80000000 ? -1 : 1;
  }
  return vector;
}
