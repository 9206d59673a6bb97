// How deeply JSON or JSONC text nests, found by one loop over its characters. Parsers,
// validators and postMessage all recurse over nested values, and a hostile text (a model's
// tool-call arguments, a cloned repository's config) nested 10,000 deep overflows their stack;
// callers check this first. Comments and strings are skipped, so brackets inside them count
// for nothing.

/** Nesting allowed in tool-call arguments and config files: far past any real use. */
export const MAX_JSON_DEPTH = 64;

/**
 * The first depth past `limit` found in `text`, or the text's deepest nesting when it stays
 * within it. Counts `{` and `[` outside strings and comments (`//` and block comments, as in
 * JSONC); the text need not be valid JSON.
 *
 * @param text JSON or JSONC text.
 * @param limit Stop counting once the nesting passes this (default {@link MAX_JSON_DEPTH}).
 * @returns The depth (at most `limit + 1`).
 *
 * @example
 * ```ts
 * import { jsonDepth } from "./json_depth.ts";
 * if (jsonDepth('{"a": [1, {"b": "[[["}]}') !== 3) throw new Error();
 * if (jsonDepth("[".repeat(10_000), 64) !== 65) throw new Error();
 * ```
 */
export function jsonDepth(text: string, limit: number = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) { // a string: skip to its closing quote, past escapes
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) i++;
      }
    } else if (c === 0x2f && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
    } else if (c === 0x2f && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c === 0x7d || c === 0x5d) && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

/**
 * Parses JSON text only when it nests at most {@link MAX_JSON_DEPTH} levels: a model's
 * tool-call arguments are kept as text in the conversation, and every place that turns them
 * back into a value (wire formats, `-p` JSON output, editors) must not hand a 10,000-deep
 * value to code that recurses over it.
 *
 * @param text JSON text.
 * @returns `{ value }`, or undefined when the text is not JSON or nests too deep.
 *
 * @example
 * ```ts
 * import { parseShallowJson } from "./json_depth.ts";
 * if (parseShallowJson('{"a": 1}')?.value === undefined) throw new Error();
 * if (parseShallowJson("[".repeat(100) + "]".repeat(100)) !== undefined) throw new Error();
 * ```
 */
export function parseShallowJson(text: string): { value: unknown } | undefined {
  if (jsonDepth(text) > MAX_JSON_DEPTH) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
