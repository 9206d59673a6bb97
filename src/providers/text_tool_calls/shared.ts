// Shared pieces of the text tool-call parsers: the region contract every format detector
// follows, a balanced-JSON scanner, and the normalisation of a parsed call into the
// canonical `{ name, arguments }` shape (arguments as JSON text of an object).

import type { ToolSchema } from "../../messages.ts";
import { isRecord } from "../../platform/json_values.ts";

/** A piece of a parsed region: visible text, reasoning, or one tool call. */
export type RegionPiece =
  | { type: "text" | "reasoning"; text: string }
  | { type: "call"; name: string; arguments: string };

/**
 * What a format detector found at an opener. `incomplete` means more text could change the
 * answer (only returned when the text is not final); `invalid` means the opener is plain text.
 */
export type RegionResult =
  | { status: "complete"; end: number; pieces: RegionPiece[] }
  | { status: "incomplete" }
  | { status: "invalid" };

/** The offered tools, by name. */
export interface ToolIndex {
  /** The offered tool a written name refers to, or undefined when none was offered. */
  resolve(name: string): string | undefined;
  /** The JSON Schema of an offered tool's parameters. */
  parameters(name: string): Record<string, unknown> | undefined;
}

/** Context handed to every detector. */
export interface DetectContext {
  /** True when the text is complete: decide instead of answering `incomplete`. */
  final: boolean;
  tools: ToolIndex;
}

/**
 * Reads the tag expected at `at` among `tags`: the one found, "incomplete" when the text ends
 * inside one (and is not final), or "invalid".
 *
 * @param text The text being scanned.
 * @param at Where the tag should start.
 * @param tags The tags that may stand there.
 * @param final True when no more text will come.
 * @returns The tag found, "incomplete" or "invalid".
 *
 * @example
 * ```ts
 * import { tagAt } from "./shared.ts";
 * if (tagAt("x</a>", 1, ["</a>"], true) !== "</a>") throw new Error();
 * if (tagAt("x</", 1, ["</a>"], false) !== "incomplete") throw new Error();
 * ```
 */
export function tagAt(
  text: string,
  at: number,
  tags: readonly string[],
  final: boolean,
): string | "incomplete" | "invalid" {
  for (const tag of tags) if (text.startsWith(tag, at)) return tag;
  if (!final && (at >= text.length || isPartialOf(text, at, tags))) return "incomplete";
  return "invalid";
}

/** A format recognised by the literal text it starts with. */
export interface Detector {
  opener: string;
  /** The format families this detector reads (for choosing dialects by chat template). */
  families: readonly FormatFamily[];
  /** The opener is a plain word (`functools[`): it counts only at the start of a word. */
  wordStart?: boolean;
  parse(text: string, start: number, context: DetectContext): RegionResult;
}

/** Special tokens (`<|name|>`, `<｜name｜>`, Mistral's `[TOOL_CALLS]`): never shown. */
export const CONTROL_TOKEN = /<\|\w+\|>|<｜[^｜<>\s]{1,40}｜>|\[(?:TOOL_CALLS|CALL_ID|ARGS)\]/g;

/** The format families recovered from text, one per model family's tool-call dialect. */
export const FORMAT_FAMILIES = [
  "hermes",
  "qwen_xml",
  "llama_json",
  "pythonic",
  "mistral",
  "lm_studio",
  "deepseek",
  "harmony",
  "glm",
  "kimi",
  "minimax",
  "granite",
  "internlm",
  "jamba",
  "phi4",
  "xlam",
  "seed_oss",
  "step3",
  "longcat",
] as const;

/** One of {@linkcode FORMAT_FAMILIES}. */
export type FormatFamily = typeof FORMAT_FAMILIES[number];

export const INCOMPLETE: RegionResult = { status: "incomplete" };
export const INVALID: RegionResult = { status: "invalid" };

/**
 * Builds the tool index for the tools offered in a request. A written name matches an offered
 * tool exactly, or after a `functions.` / `function.` namespace prefix.
 *
 * @example
 * ```ts
 * import { toolIndex } from "./shared.ts";
 * const tools = toolIndex([{ name: "ls", description: "", parameters: {} }]);
 * if (tools.resolve("functions.ls") !== "ls") throw new Error();
 * ```
 */
export function toolIndex(tools: readonly ToolSchema[]): ToolIndex {
  const byName = new Map(tools.map((tool) => [tool.name, tool.parameters]));
  const resolve = (name: string): string | undefined => {
    const trimmed = name.trim();
    if (byName.has(trimmed)) return trimmed;
    const bare = trimmed.replace(/^(functions?|tools?)\./, "");
    return byName.has(bare) ? bare : undefined;
  };
  return { resolve, parameters: (name) => byName.get(name) };
}

/**
 * Finds the end of the JSON object or array starting at `from`.
 *
 * @returns The index just after the closing bracket, "incomplete" when the text ends first,
 *   or "invalid" when `from` is not an opening bracket or brackets do not match.
 *
 * @example
 * ```ts
 * import { jsonValueEnd } from "./shared.ts";
 * if (jsonValueEnd('x{"a":"}"}y', 1) !== 10) throw new Error();
 * ```
 */
export function jsonValueEnd(text: string, from: number): number | "incomplete" | "invalid" {
  const first = text[from];
  if (first !== "{" && first !== "[") return "invalid";
  const stack: string[] = [];
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") stack.push("}");
    else if (ch === "[") stack.push("]");
    else if (ch === "}" || ch === "]") {
      if (stack.pop() !== ch) return "invalid";
      if (stack.length === 0) return i + 1;
    }
  }
  return "incomplete";
}

/** Parses JSON text, or returns undefined. */
export function tryJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * Canonical argument text: an object is stringified, a string holding a JSON object is
 * normalised, missing arguments are `{}`. Anything else is not a call.
 *
 * @example
 * ```ts
 * import { argumentsText } from "./shared.ts";
 * if (argumentsText('{"a": 1}') !== '{"a":1}') throw new Error();
 * ```
 */
export function argumentsText(value: unknown): string | undefined {
  if (value === undefined || value === null) return "{}";
  if (isRecord(value)) return JSON.stringify(value);
  if (typeof value === "string") {
    if (value.trim() === "") return "{}";
    const parsed = tryJson(value);
    if (parsed && isRecord(parsed.value)) return JSON.stringify(parsed.value);
  }
  return undefined;
}

/**
 * Reads one call from a parsed JSON object in the shapes models write:
 * `{"name", "arguments"}`, `{"name", "parameters"}` (Llama) or
 * `{"type": "function", "function": {"name", "arguments"}}`.
 *
 * @example
 * ```ts
 * import { callFromObject } from "./shared.ts";
 * const call = callFromObject({ name: "ls", parameters: { path: "." } });
 * if (call?.arguments !== '{"path":"."}') throw new Error();
 * ```
 */
export function callFromObject(
  value: unknown,
): { type: "call"; name: string; arguments: string } | undefined {
  if (!isRecord(value)) return undefined;
  const inner = isRecord(value.function) ? value.function : value;
  const name = inner.name;
  if (typeof name !== "string" || name.trim() === "") return undefined;
  const args = "arguments" in inner ? inner.arguments : inner.parameters;
  const text = argumentsText(args);
  return text === undefined ? undefined : { type: "call", name: name.trim(), arguments: text };
}

/** Index of the first non-whitespace character at or after `from` (or text.length). */
export function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/**
 * Whether the text from `from` to its end is a proper beginning of one of the `words`, so
 * that more text could still complete it.
 */
export function isPartialOf(text: string, from: number, words: readonly string[]): boolean {
  const rest = text.slice(from);
  return rest.length > 0 &&
    words.some((word) => word.length > rest.length && word.startsWith(rest));
}

/**
 * Parses a run of JSON call objects starting at `from`, separated by `separator` when given.
 * Used by formats whose calls are bare JSON objects.
 *
 * @returns The calls and the index after the last one, or incomplete/invalid.
 */
export function jsonCallRun(
  text: string,
  from: number,
  separator: string | undefined,
  final = false,
):
  | { status: "ok"; calls: RegionPiece[]; end: number; atEnd: boolean }
  | { status: "incomplete" }
  | { status: "invalid" } {
  const calls: RegionPiece[] = [];
  let i = skipSpace(text, from);
  for (;;) {
    if (i >= text.length) return { status: "incomplete" };
    const end = jsonValueEnd(text, i);
    if (end === "incomplete") return { status: "incomplete" };
    if (end === "invalid") return { status: "invalid" };
    const parsed = tryJson(text.slice(i, end));
    if (!parsed) return { status: "invalid" };
    const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    if (items.length === 0) return { status: "invalid" };
    for (const item of items) {
      const call = callFromObject(item);
      if (!call) return { status: "invalid" };
      calls.push(call);
    }
    const next = skipSpace(text, end);
    if (separator !== undefined && text.startsWith(separator, next)) {
      const after = skipSpace(text, next + separator.length);
      if (after >= text.length) {
        return final
          ? { status: "ok", calls, end: next + separator.length, atEnd: true }
          : { status: "incomplete" };
      }
      if (text[after] === "{" || text[after] === "[") {
        i = after;
        continue;
      }
    }
    return { status: "ok", calls, end, atEnd: next >= text.length };
  }
}

/** A complete region. */
export function complete(end: number, pieces: RegionPiece[]): RegionResult {
  return { status: "complete", end, pieces };
}

/** After a run of calls: consume an end token, or wait when more may follow. */
export function endOfRun(
  text: string,
  end: number,
  final: boolean,
  endTokens: readonly string[],
  continuations: readonly string[],
  calls: RegionPiece[],
): RegionResult {
  const next = skipSpace(text, end);
  for (const token of endTokens) {
    if (text.startsWith(token, next)) return complete(next + token.length, calls);
  }
  if (
    !final &&
    (next >= text.length || isPartialOf(text, next, [...endTokens, ...continuations]))
  ) {
    return INCOMPLETE;
  }
  return complete(end, calls);
}
