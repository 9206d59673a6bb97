// Type guard for the untyped JSON that Ollama sends (/api/chat lines, /api/show and /api/tags
// bodies, error bodies). Shared by the wire conversion, the stream reader, the /api/show
// parser and the provider so that none of them trusts the shape of what a server sends.

/**
 * Tells whether a value is a plain JSON object (not null, not an array).
 *
 * @param value Any parsed JSON value.
 * @returns `true` when `value` can be read as a record of fields.
 *
 * @example
 * ```ts
 * import { isObject } from "./json_values.ts";
 * if (!isObject({ model: "qwen3" }) || isObject([1]) || isObject(null)) throw new Error();
 * ```
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
