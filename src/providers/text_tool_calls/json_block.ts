// JSON calls inside a closed block (Hermes `<tool_call>{...}</tool_call>`, LM Studio's
// `[TOOL_REQUEST]`). Like llama.cpp's server parser, each value is read bracket by bracket,
// respecting strings, and only then is the closing tag required, so a tag inside a string
// argument does not end the block. Relaxed JSON (single quotes, trailing commas, Python
// constants) is repaired; a block that still does not parse but names an offered tool becomes
// a call whose arguments fail to parse, so the agent loop tells the model what was wrong.

import { parsePythonLiteral } from "./python_literal.ts";
import {
  callFromObject,
  complete,
  type DetectContext,
  INCOMPLETE,
  INVALID,
  type RegionPiece,
  type RegionResult,
  tryJson,
} from "./shared.ts";
import { isRecord } from "../../platform/json_values.ts";

/** Where a block's values and body end; `end` is after the closing tag (or the text's end). */
type BlockScan =
  | { status: "incomplete" }
  | { status: "truncated" }
  | { status: "read" | "broken"; values: string[]; bodyEnd: number; end: number };

const UNDECIDED: BlockScan = { status: "incomplete" };

/**
 * Parses JSON, or failing that the relaxed JSON models write: single-quoted strings, trailing
 * commas and Python's True/False/None (read as a Python literal).
 *
 * @param text The whole value, e.g. `{'path': 'a.txt',}`.
 * @returns The value, or undefined when the text is neither.
 *
 * @example
 * ```ts
 * import { parseRelaxedJson } from "./json_block.ts";
 * const parsed = parseRelaxedJson("{'a': [1, True, None,],}");
 * if (JSON.stringify(parsed?.value) !== '{"a":[1,true,null]}') throw new Error();
 * ```
 */
export function parseRelaxedJson(text: string): { value: unknown } | undefined {
  return tryJson(text) ?? parsePythonLiteral(text.trim());
}

/**
 * After the structure broke at `at`: the block runs to the next closing tag. With no closing
 * tag in the whole text, values read before `at` are an unclosed block and the rest is text.
 */
function brokenFrom(
  text: string,
  at: number,
  options: { close: string; final: boolean; values: string[] },
): BlockScan {
  const found = text.indexOf(options.close, at);
  if (found >= 0) {
    return { status: "broken", values: [], bodyEnd: found, end: found + options.close.length };
  }
  if (!options.final) return UNDECIDED;
  // No closing tag and nothing read whole: the block was cut off, which is no call.
  return options.values.length > 0
    ? { status: "read", values: options.values, bodyEnd: at, end: at }
    : { status: "truncated" };
}

/**
 * Reads bracketed values from `from` (separated by space, `,` or `;`) up to `close`. Strings
 * in either quote are skipped whole, so `close` counts only outside them. Without `final`
 * it answers incomplete until the closing tag or a broken structure decides the block.
 */
function scanBlock(text: string, from: number, close: string, final: boolean): BlockScan {
  const stack: string[] = [];
  const values: string[] = [];
  let quote = "";
  let valueStart = from;
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== "") {
      if (ch === "\\") i++;
      else if (ch === quote) quote = "";
      continue;
    }
    if (text.startsWith(close, i)) {
      // A closing tag outside strings ends the block, even with brackets left open.
      const status = stack.length === 0 && values.length > 0 ? "read" : "broken";
      return { status, values, bodyEnd: i, end: i + close.length };
    }
    if (stack.length === 0) {
      if (/\s/.test(ch) || (values.length > 0 && (ch === "," || ch === ";"))) continue;
      if (ch !== "{" && ch !== "[") {
        if (!close.startsWith(text.slice(i))) return brokenFrom(text, i, { close, final, values });
        // Only the start of the closing tag is left: it may still arrive, or was cut off.
        return final ? { status: "read", values, bodyEnd: i, end: text.length } : UNDECIDED;
      }
      valueStart = i;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "{") stack.push("}");
    else if (ch === "[") stack.push("]");
    else if (ch === "}" || ch === "]") {
      if (stack.pop() !== ch) return brokenFrom(text, i, { close, final, values: [] });
      if (stack.length === 0) values.push(text.slice(valueStart, i + 1));
    }
  }
  if (!final) return UNDECIDED;
  if (quote === "" && stack.length === 0) {
    return { status: "read", values, bodyEnd: text.length, end: text.length };
  }
  // The text ended inside a string or value: the block runs to the first closing tag.
  return brokenFrom(text, from, { close, final, values: [] });
}

/** Calls from the block's values, or undefined when one is not a call object. */
function callsFrom(values: readonly string[]): RegionPiece[] | undefined {
  const calls: RegionPiece[] = [];
  for (const text of values) {
    const parsed = parseRelaxedJson(text);
    if (!parsed) return undefined;
    const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    if (items.length === 0) return undefined;
    for (const item of items) {
      const call = callFromObject(item);
      if (!call) return undefined;
      calls.push(call);
    }
  }
  return calls.length > 0 ? calls : undefined;
}

const NAME = /(?:^|\W)["']?name["']?\s*:\s*["']([^"'\n]+)["']/;
const ARGUMENTS = /(?:^|\W)["']?(?:arguments|parameters)["']?\s*:\s*/;

/**
 * A block that is not a call object but names an offered tool: its arguments as written, so
 * argument parsing fails and the model is told why. When the arguments alone parse (say the
 * outer object was broken), they are used.
 */
function brokenCall(body: string, context: DetectContext): RegionPiece | undefined {
  const name = NAME.exec(body)?.[1];
  if (name === undefined || context.tools.resolve(name) === undefined) return undefined;
  const source = body.trim();
  const key = ARGUMENTS.exec(source);
  let raw = key ? source.slice(key.index + key[0].length).trim() : "";
  if (raw === "") return { type: "call", name, arguments: source };
  // Without the brace that closed the outer object.
  if (source.startsWith("{") && raw.endsWith("}")) {
    const inner = raw.slice(0, -1).trimEnd();
    const parsed = parseRelaxedJson(raw) ?? parseRelaxedJson(inner);
    if (parsed && isRecord(parsed.value)) {
      return { type: "call", name, arguments: JSON.stringify(parsed.value) };
    }
    if (inner !== "") raw = inner;
  }
  return { type: "call", name, arguments: raw };
}

/**
 * Reads a closed block of JSON calls starting at its first `{` or `[`.
 *
 * @param text The text being scanned.
 * @param from Where the block's first value starts.
 * @param options The closing tag and the detector's context.
 * @returns The calls and the index after the closing tag, incomplete, or invalid (plain text).
 *
 * @example
 * ```ts
 * import { jsonBlock } from "./json_block.ts";
 * import { toolIndex } from "./shared.ts";
 * const tools = toolIndex([{ name: "write_file", description: "", parameters: {} }]);
 * const text = `{'name': 'write_file', 'arguments': {'content': '</tool_call>',},}</tool_call>`;
 * const block = jsonBlock(text, 0, { close: "</tool_call>", context: { final: true, tools } });
 * if (block.status !== "complete" || block.end !== text.length) throw new Error();
 * ```
 */
export function jsonBlock(
  text: string,
  from: number,
  options: { close: string; context: DetectContext },
): RegionResult {
  const scan = scanBlock(text, from, options.close, options.context.final);
  if (scan.status === "incomplete") return INCOMPLETE;
  if (scan.status === "truncated") return INVALID;
  const calls = scan.status === "read" ? callsFrom(scan.values) : undefined;
  if (calls) return complete(scan.end, calls);
  const call = brokenCall(text.slice(from, scan.bodyEnd), options.context);
  return call ? complete(scan.end, [call]) : INVALID;
}
