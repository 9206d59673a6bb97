// Tool calls with no opening marker, which count only when they are the whole answer:
// Llama 3.1/3.2 JSON (`{"name": ..., "parameters": {...}}`, several joined by `;`), a JSON
// list of such objects (Salesforce xLAM, also inside a ```json fence, which may follow one
// line of prose), and pythonic lists `[get_weather(city="Tokyo")]` (Llama 3.2, Llama 4).
// Inline Llama JSON is in llama_json.ts.

import { parsePythonCalls } from "./python_literal.ts";
import {
  jsonCallRun,
  jsonValueEnd,
  type RegionPiece,
  type RegionResult,
  skipSpace,
} from "./shared.ts";

const FIRST_KEYS = ['"name"', '"function"', '"type"'];
const END_TOKENS = /(\s*(<\|eom_id\|>|<\|eot_id\|>|<\|python_end\|>))+\s*$/;

/**
 * Whether the text from `from` can be the start of a bare call answer: "yes", "no", or
 * "maybe" when the text ends too soon to tell. Both the streaming and the final parse use
 * this gate, so a prefix rejected while streaming is rejected at the end too.
 */
export function bareGate(text: string, from: number): "yes" | "no" | "maybe" {
  const object = (at: number): "yes" | "no" | "maybe" => {
    const i = skipSpace(text, at + 1);
    if (i >= text.length) return "maybe";
    const rest = text.slice(i, i + 10);
    if (FIRST_KEYS.some((key) => rest.startsWith(key))) return "yes";
    return FIRST_KEYS.some((key) => key.startsWith(rest)) && i + rest.length >= text.length
      ? "maybe"
      : "no";
  };
  if (text[from] === "{") return object(from);
  if (text[from] !== "[") return "no";
  const i = skipSpace(text, from + 1);
  if (i >= text.length) return "maybe";
  if (text[i] === "{") return object(i);
  const name = /^[A-Za-z_][\w.-]*/.exec(text.slice(i))?.[0];
  if (name === undefined) return "no";
  const after = skipSpace(text, i + name.length);
  if (after >= text.length) return "maybe";
  return text[after] === "(" ? "yes" : "no";
}

/**
 * Parses a bare call answer running from `from` to the end of the text.
 *
 * @example
 * ```ts
 * import { parseBareCalls } from "./bare_calls.ts";
 * const r = parseBareCalls('{"name": "ls", "parameters": {}}', 0, true);
 * if (r.status !== "complete") throw new Error();
 * ```
 */
export function parseBareCalls(text: string, from: number, final: boolean): RegionResult {
  const gate = bareGate(text, from);
  if (gate === "no") return { status: "invalid" };
  if (!final) return { status: "incomplete" };
  if (gate === "maybe") return { status: "invalid" };
  const body = text.slice(from).replace(END_TOKENS, "").trimEnd();
  let calls: RegionPiece[] | undefined;
  const run = jsonCallRun(body, 0, ";", true);
  if (run.status === "ok" && skipSpace(body, run.end) >= body.length) calls = run.calls;
  else if (body.startsWith("[")) {
    calls = parsePythonCalls(body)?.map((c) => ({
      type: "call",
      name: c.name,
      arguments: JSON.stringify(c.args),
    }));
  }
  return calls ? { status: "complete", end: text.length, pieces: calls } : { status: "invalid" };
}

/**
 * Parses a fenced JSON list of calls (```` ```json ```` then `[{"name": ...}]`, as Salesforce
 * xLAM writes them) that is the whole rest of the answer (the scanner lets one line of prose
 * come before it). `bodyStart` is just after the fence line; a single object or anything
 * after the closing fence is not a call.
 *
 * @example
 * ```ts
 * import { parseFencedCalls } from "./bare_calls.ts";
 * const text = '```json\n[{"name": "ls", "arguments": {}}]\n```';
 * const r = parseFencedCalls(text, { bodyStart: 8, fence: "```" }, true);
 * if (r.status !== "complete") throw new Error();
 * ```
 */
export function parseFencedCalls(
  text: string,
  open: { bodyStart: number; fence: string },
  final: boolean,
): RegionResult {
  const i = skipSpace(text, open.bodyStart);
  if (i >= text.length) return final ? { status: "invalid" } : { status: "incomplete" };
  if (text[i] !== "[") return { status: "invalid" };
  const object = skipSpace(text, i + 1);
  if (object < text.length && text[object] !== "{") return { status: "invalid" };
  const gate = bareGate(text, i);
  if (gate === "no") return { status: "invalid" };
  if (!final) return { status: "incomplete" };
  const end = jsonValueEnd(text, i);
  if (typeof end !== "number") return { status: "invalid" };
  const close = new RegExp(`^\\s*\\n {0,3}${open.fence[0]}{${open.fence.length},}[ \\t]*(\\n|$)`)
    .exec(text.slice(end));
  if (!close) return { status: "invalid" };
  const rest = text.slice(end + close[0].length).replace(END_TOKENS, "");
  if (rest.trim() !== "") return { status: "invalid" };
  const run = jsonCallRun(text.slice(i, end), 0, undefined, true);
  if (run.status !== "ok") return { status: "invalid" };
  return { status: "complete", end: text.length, pieces: run.calls };
}
