// Argument repair: before a tool call's arguments are validated, fix the mistakes local
// models make most (JSON inside a string, trailing commas, single quotes, bare keys, Python
// constants, numbers and booleans as strings). Also counts identical failing calls, so the
// loop can tell a model to stop repeating one. The parse stage (call_stages.ts) uses it as its
// ArgumentParser.

import { isRecord } from "../platform/json_values.ts";
import { schemaTypes } from "../platform/json_schema_types.ts";
import { argumentsTextProblem } from "../tools/argument_limits.ts";

type Schema = Record<string, unknown>;

function tryJson(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/**
 * Rewrites relaxed JSON as strict JSON in one pass over the text, outside strings only:
 * single-quoted strings, bare keys, trailing commas and Python's True/False/None.
 */
function relaxedToStrict(text: string, repairs: Set<string>): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (ch === "'") {
      let value = "";
      let j = i + 1;
      while (j < text.length && text[j] !== "'") {
        if (text[j] === "\\" && j + 1 < text.length) {
          const next = text[j + 1]!;
          const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r" };
          value += escapes[next] ?? next;
          j += 2;
        } else value += text[j++];
      }
      out += JSON.stringify(value);
      repairs.add("replaced single quotes with double quotes");
      i = j + 1;
    } else if (/[A-Za-z_$]/.test(ch)) {
      const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(i))![0];
      const python: Record<string, string> = { True: "true", False: "false", None: "null" };
      let after = i + word.length;
      while (after < text.length && /\s/.test(text[after]!)) after++;
      if (word in python) {
        out += python[word];
        repairs.add("replaced Python True/False/None with JSON true/false/null");
      } else if (text[after] === ":" && !["true", "false", "null"].includes(word)) {
        out += JSON.stringify(word);
        repairs.add("quoted bare keys");
      } else out += word;
      i += word.length;
    } else if (ch === ",") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === "}" || text[j] === "]") repairs.add("removed trailing commas");
      else out += ch;
      i++;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function fits(value: unknown, types: string[]): boolean {
  const type = typeOf(value);
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

/** Finds the sub-schema (object properties / array items) inside a possibly nullable schema. */
function findKey(schema: unknown, key: "properties" | "items"): unknown {
  if (!isRecord(schema)) return undefined;
  if (Object.hasOwn(schema, key)) return schema[key];
  for (const union of ["anyOf", "oneOf"]) {
    const options = schema[union];
    if (Array.isArray(options)) {
      for (const option of options) {
        const found = findKey(option, key);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined;
}

/** Coerces a value toward its schema where the intent is unambiguous; records each change. */
function coerce(value: unknown, schema: unknown, path: string, repairs: Set<string>): unknown {
  const types = schemaTypes(schema);
  if (types.length > 0 && !fits(value, types)) {
    const label = path === "" ? "the arguments" : `"${path}"`;
    if (typeof value === "string") {
      const trimmed = value.trim();
      if (
        (types.includes("number") || types.includes("integer")) && trimmed !== "" &&
        Number.isFinite(Number(trimmed)) && /^[-+]?[\d.]/.test(trimmed)
      ) {
        const number = Number(trimmed);
        if (types.includes("number") || Number.isInteger(number)) {
          repairs.add(`converted ${label} from a string to a number`);
          return number;
        }
      }
      if (types.includes("boolean") && /^(true|false)$/i.test(trimmed)) {
        repairs.add(`converted ${label} from a string to a boolean`);
        return trimmed.toLowerCase() === "true";
      }
      if (types.includes("object") || types.includes("array")) {
        const parsed = tryJson(trimmed);
        if ("value" in parsed && fits(parsed.value, types)) {
          repairs.add(`decoded ${label} from a JSON string`);
          return coerce(parsed.value, schema, path, repairs);
        }
      }
    } else if (
      types.includes("string") && (typeof value === "number" || typeof value === "boolean")
    ) {
      repairs.add(`converted ${label} from a ${typeof value} to a string`);
      return String(value);
    }
    return value;
  }
  if (isRecord(value)) {
    const properties = findKey(schema, "properties");
    if (!isRecord(properties)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = Object.hasOwn(properties, key)
        ? coerce(item, properties[key], path ? `${path}.${key}` : key, repairs)
        : item;
    }
    return out;
  }
  if (Array.isArray(value)) {
    const items = findKey(schema, "items");
    return items === undefined
      ? value
      : value.map((item, i) => coerce(item, items, `${path}[${i}]`, repairs));
  }
  return value;
}

/** A one-line example object built from the schema's properties, for error messages. */
function example(schema: Schema): string {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : Object.keys(properties);
  const sample: Record<string, unknown> = {};
  for (const key of required.filter((k): k is string => typeof k === "string").slice(0, 3)) {
    const type = schemaTypes(properties[key])[0] ?? "string";
    sample[key] = { string: "...", number: 1, integer: 1, boolean: true, array: [], object: {} }[
      type
    ] ?? "...";
  }
  return JSON.stringify(sample);
}

/**
 * Parses a tool call's argument text, repairing common mistakes, and coerces values toward
 * the tool's JSON Schema. An empty text means no arguments.
 *
 * @param text The arguments as the model wrote them.
 * @param schema The tool's JSON Schema (an object schema).
 * @returns The value and the repairs made, or a parse_error message for the model.
 *
 * @example
 * ```ts
 * import { repairArguments } from "./repair_arguments.ts";
 * const schema = { type: "object", properties: { n: { type: "integer" } } };
 * const r = repairArguments("{'n': '3',}", schema);
 * if (!("value" in r) || JSON.stringify(r.value) !== '{"n":3}') throw new Error();
 * ```
 */
export function repairArguments(
  text: string,
  schema: Record<string, unknown>,
): { value: unknown; repairs: string[] } | { error: string } {
  const repairs = new Set<string>();
  let source = text.trim();
  if (source === "") return { value: {}, repairs: [] };
  const fenced = /^```[\w-]*\s*([\s\S]*?)\s*```$/.exec(source);
  if (fenced) {
    source = fenced[1]!;
    repairs.add("removed a code fence around the arguments");
  }
  let parsed = tryJson(source);
  if ("error" in parsed) {
    const relaxed = tryJson(relaxedToStrict(source, repairs));
    if ("error" in relaxed) {
      return {
        error: `Arguments are not valid JSON: ${parsed.error}. Send the arguments as one JSON ` +
          `object with double-quoted keys and strings, e.g. ${example(schema)}`,
      };
    }
    parsed = relaxed;
  }
  let value = parsed.value;
  for (let depth = 0; typeof value === "string" && depth < 2; depth++) {
    const inner = tryJson(value.trim());
    if (!("value" in inner)) break;
    value = inner.value;
    repairs.add("decoded arguments given as a JSON string");
  }
  if (!isRecord(value)) {
    return {
      error: `Arguments must be a JSON object, got ${
        typeOf(value) === "integer"
          ? "a number"
          : `${/^[aeiou]/.test(typeOf(value)) ? "an" : "a"} ${typeOf(value)}`
      }: ${JSON.stringify(value).slice(0, 80)}. Send one JSON object, e.g. ${example(schema)}`,
    };
  }
  value = coerce(value, schema, "", repairs);
  return { value, repairs: [...repairs] };
}

/**
 * Canonical text of arguments: parsed and key-sorted when they are JSON, else with its spaces
 * collapsed, so two calls that differ only in formatting compare equal.
 *
 * @param args The arguments (raw text or a parsed value).
 * @returns Their canonical text.
 *
 * @example
 * ```ts
 * import { canonicalArguments } from "./repair_arguments.ts";
 * if (canonicalArguments('{"b": 1, "a": 2}') !== canonicalArguments({ a: 2, b: 1 })) {
 *   throw new Error();
 * }
 * ```
 */
export function canonicalArguments(args: unknown): string {
  let value = args;
  if (typeof args === "string") {
    // Past the limits, parsing and sorting would recurse too deep: compare the text.
    if (argumentsTextProblem(args) !== undefined) return args;
    const parsed = tryJson(args.trim() === "" ? "{}" : args);
    if (!("value" in parsed)) return args.replace(/\s+/g, " ").trim();
    value = parsed.value;
  }
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : isRecord(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]))
      : v;
  return JSON.stringify(sorted(value)) ?? "undefined";
}

/**
 * Counts identical failing calls (same tool, same normalised arguments, same error) so a
 * model stuck repeating one can be told to stop.
 *
 * @example
 * ```ts
 * import { RepeatedFailureTracker } from "./repair_arguments.ts";
 * const tracker = new RepeatedFailureTracker();
 * tracker.record("ls", '{"path": "x"}', "not_found");
 * tracker.record("ls", '{ "path":"x" }', "not_found");
 * if (!tracker.record("ls", { path: "x" }, "not_found")) throw new Error();
 * ```
 */
export class RepeatedFailureTracker {
  #counts = new Map<string, number>();

  /** @param limit How many identical failures are allowed before saying stop (default 3). */
  constructor(readonly limit = 3) {}

  /**
   * Records one failing call.
   *
   * @param name The tool name.
   * @param args The arguments (raw text or a parsed value).
   * @param errorKey What failed, e.g. the error type and message.
   * @returns True when this call reaches the limit: tell the model to stop repeating it.
   */
  record(name: string, args: unknown, errorKey: string): boolean {
    const key = JSON.stringify([name, canonicalArguments(args), errorKey]);
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    return count >= this.limit;
  }

  /** Forgets all counts (for a new user message). */
  reset(): void {
    this.#counts.clear();
  }

  /**
   * The message for the model when the limit is hit.
   *
   * @example
   * ```ts
   * import { RepeatedFailureTracker } from "./repair_arguments.ts";
   * const text = new RepeatedFailureTracker().stopMessage("ls");
   * if (!text.includes('"ls"')) throw new Error(text);
   * ```
   */
  stopMessage(name: string): string {
    return `This call to "${name}" failed the same way ${this.limit} times: stop repeating it. ` +
      "Change the arguments, use another tool, or answer with what you know";
  }
}
