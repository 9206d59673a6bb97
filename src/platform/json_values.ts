// Type guards for untyped JSON: what servers send (stream chunks, error bodies, model lists,
// /api/show), policy files and tool arguments. One home, so that no module trusts the shape of
// parsed JSON and none keeps its own copy of the guard.

/**
 * Tells whether a value is a plain JSON object (not null, not an array).
 *
 * @param value Any parsed JSON value.
 * @returns `true` when `value` can be read as a record of fields.
 *
 * @example
 * ```ts
 * import { isRecord } from "./json_values.ts";
 * if (!isRecord({ id: "qwen3" }) || isRecord([1]) || isRecord(null)) throw new Error("isRecord");
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads a string field that counts only when it holds text.
 *
 * @param value Any parsed JSON value.
 * @returns The string, or `undefined` for an empty string or a value of another type.
 *
 * @example
 * ```ts
 * import { nonEmptyString } from "./json_values.ts";
 * if (nonEmptyString("hi") !== "hi" || nonEmptyString("") !== undefined) {
 *   throw new Error("nonEmptyString");
 * }
 * ```
 */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Tells whether text parses as JSON.
 *
 * @param text Text such as streamed tool-call arguments.
 * @returns `true` when `JSON.parse(text)` succeeds.
 *
 * @example
 * ```ts
 * import { isJson } from "./json_values.ts";
 * if (!isJson('{"path":"a.txt"}') || isJson('{"path":')) throw new Error("isJson");
 * ```
 */
export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads a field only when the record holds it itself: keys from config files, policy rules
 * and models (`constructor`, `toString`) never reach what every object inherits.
 *
 * @param record Any object.
 * @param key A key from untrusted text.
 * @returns The record's own value, or `undefined`.
 *
 * @example
 * ```ts
 * import { ownField } from "./json_values.ts";
 * if (ownField({ a: 1 }, "a") !== 1 || ownField({}, "constructor") !== undefined) {
 *   throw new Error("ownField");
 * }
 * ```
 */
export function ownField<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
