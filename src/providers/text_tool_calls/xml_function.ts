// Qwen3-Coder's XML calls, `<function=NAME><parameter=KEY>value</parameter></function>`,
// and the Llama 3.1 variant `<function=NAME>{"json": "args"}</function>`. XML values are
// text; they are coerced to the types the tool's JSON Schema declares, as server parsers do.

import { parsePythonLiteral } from "./python_literal.ts";
import { type RegionPiece, type ToolIndex, tryJson } from "./shared.ts";
import { isRecord } from "../../platform/json_values.ts";
import { schemaTypes } from "../../platform/json_schema_types.ts";

const FUNCTION_OPEN = "<function=";
const FUNCTION_CLOSE = "</function>";
const PARAMETER_OPEN = "<parameter=";
const PARAMETER_CLOSE = "</parameter>";

/**
 * Coerces an XML parameter's text to the type its schema declares. Text that does not fit
 * stays a string, so validation can say what is wrong.
 *
 * @example
 * ```ts
 * import { coerceParameter } from "./xml_function.ts";
 * if (coerceParameter("3", { type: "integer" }) !== 3) throw new Error();
 * if (coerceParameter("3", { type: "string" }) !== "3") throw new Error();
 * ```
 */
export function coerceParameter(text: string, schema: unknown): unknown {
  const types = schemaTypes(schema, { fromEnum: true }).filter((t) => t !== "null");
  const trimmed = text.trim();
  if (types.length === 0 || types.includes("string")) return text;
  if (trimmed.toLowerCase() === "null" || trimmed.toLowerCase() === "none") return null;
  for (const type of types) {
    if (
      (type === "integer" || type === "number") &&
      /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)
    ) {
      const number = Number(trimmed);
      if (type === "number" || Number.isInteger(number)) return number;
    }
    if (type === "boolean" && /^(true|false)$/i.test(trimmed)) {
      return trimmed.toLowerCase() === "true";
    }
    if (type === "object" || type === "array") {
      const parsed = tryJson(trimmed) ?? parsePythonLiteral(trimmed);
      if (parsed && (type === "array") === Array.isArray(parsed.value)) return parsed.value;
    }
  }
  return text;
}

/**
 * The declared properties of an offered tool's parameters, for coercing text values.
 *
 * @example
 * ```ts
 * import { schemaProperties } from "./xml_function.ts";
 * import { toolIndex } from "./shared.ts";
 * const tools = toolIndex([{ name: "ls", description: "", parameters: { properties: { n: {} } } }]);
 * if (!("n" in schemaProperties(tools, "ls"))) throw new Error();
 * ```
 */
export function schemaProperties(tools: ToolIndex, name: string): Record<string, unknown> {
  const resolved = tools.resolve(name);
  const schema = resolved === undefined ? undefined : tools.parameters(resolved);
  return isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
}

/** Removes the one newline models put after an opening tag and before a closing one. */
export function stripEdgeNewlines(value: string): string {
  return value.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
}

/**
 * Parses the body of one function element, from just after `<function=` to just before
 * `</function>` (or the end of the text).
 *
 * @returns A call piece, or undefined when the body is not a call.
 */
export function parseFunctionBody(body: string, tools: ToolIndex): RegionPiece | undefined {
  const close = body.indexOf(">");
  if (close < 0) return undefined;
  const name = body.slice(0, close).trim();
  if (!/^[\w.-]+$/.test(name)) return undefined;
  const inner = body.slice(close + 1);
  const trimmed = inner.trim();
  if (trimmed.startsWith("{")) {
    const parsed = tryJson(trimmed);
    return parsed && isRecord(parsed.value)
      ? { type: "call", name, arguments: JSON.stringify(parsed.value) }
      : undefined;
  }
  const properties = schemaProperties(tools, name);
  const args: Record<string, unknown> = {};
  let i = 0;
  for (;;) {
    const open = inner.indexOf(PARAMETER_OPEN, i);
    if (open < 0) {
      if (inner.slice(i).trim() !== "") return undefined;
      break;
    }
    if (inner.slice(i, open).trim() !== "") return undefined;
    const keyEnd = inner.indexOf(">", open);
    if (keyEnd < 0) return undefined;
    const key = inner.slice(open + PARAMETER_OPEN.length, keyEnd).trim();
    const valueStart = keyEnd + 1;
    const closeAt = inner.indexOf(PARAMETER_CLOSE, valueStart);
    const nextOpen = inner.indexOf(PARAMETER_OPEN, valueStart);
    // A missing </parameter> ends the value at the next parameter (models do drop it).
    const valueEnd = closeAt >= 0 && (nextOpen < 0 || closeAt < nextOpen)
      ? closeAt
      : (nextOpen >= 0 ? nextOpen : inner.length);
    args[key] = coerceParameter(
      stripEdgeNewlines(inner.slice(valueStart, valueEnd)),
      properties[key],
    );
    i = valueEnd === closeAt ? closeAt + PARAMETER_CLOSE.length : valueEnd;
  }
  return { type: "call", name, arguments: JSON.stringify(args) };
}

/**
 * Finds the function elements in a text (a `<tool_call>` body).
 *
 * @returns The calls, or undefined when the text holds anything else.
 */
export function parseFunctionElements(
  text: string,
  tools: ToolIndex,
): RegionPiece[] | undefined {
  const calls: RegionPiece[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf(FUNCTION_OPEN, i);
    if (open < 0) break;
    if (text.slice(i, open).trim() !== "") return undefined;
    const closeAt = text.indexOf(FUNCTION_CLOSE, open);
    const end = closeAt < 0 ? text.length : closeAt;
    const call = parseFunctionBody(text.slice(open + FUNCTION_OPEN.length, end), tools);
    if (!call) return undefined;
    calls.push(call);
    i = closeAt < 0 ? text.length : closeAt + FUNCTION_CLOSE.length;
  }
  if (text.slice(i).trim() !== "") return undefined;
  return calls.length > 0 ? calls : undefined;
}
