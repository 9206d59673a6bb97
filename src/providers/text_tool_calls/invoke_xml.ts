// XML `invoke` calls: MiniMax M2 `<minimax:tool_call><invoke name="NAME"><parameter
// name="KEY">VALUE</parameter></invoke></minimax:tool_call>`, and StepFun Step3, which wraps
// `<steptml:invoke>` elements in special tokens: `<｜tool_calls_begin｜><｜tool_call_begin｜>`
// `function<｜tool_sep｜><steptml:invoke name="NAME">...</steptml:invoke><｜tool_call_end｜>`
// `<｜tool_calls_end｜>` (vLLM's tests also leave out `function<｜tool_sep｜>`, name the tool
// after it, or put `<｜tool_sep｜>` between calls). Values are text, coerced to the tool's
// schema types.

import {
  complete,
  type DetectContext,
  type Detector,
  endOfRun,
  INCOMPLETE,
  INVALID,
  isPartialOf,
  type RegionPiece,
  type RegionResult,
  skipSpace,
  tagAt,
  type ToolIndex,
} from "./shared.ts";
import { coerceParameter, schemaProperties, stripEdgeNewlines } from "./xml_function.ts";

const NAME_ATTRIBUTE = /^\s+name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))\s*$/;

/** The `name` attribute of a tag's attribute text (` name="x"`), or undefined. */
function nameAttribute(attributes: string): string | undefined {
  const match = NAME_ATTRIBUTE.exec(attributes);
  const name = (match?.[1] ?? match?.[2] ?? match?.[3])?.trim();
  return name === undefined || name === "" ? undefined : name;
}

/**
 * Reads a run of `<PREFIXinvoke name="...">` elements, each holding `<PREFIXparameter
 * name="...">` elements; the text must hold nothing else.
 *
 * @param body The text between the block's markers.
 * @param prefix The element namespace: "" (MiniMax) or "steptml:" (Step3).
 * @returns The calls, or undefined when the text is anything else or an element is cut off.
 *
 * @example
 * ```ts
 * import { parseInvokes } from "./invoke_xml.ts";
 * import { toolIndex } from "./shared.ts";
 * const tools = toolIndex([{ name: "ls", description: "", parameters: {} }]);
 * const calls = parseInvokes('<invoke name="ls"><parameter name="p">.</parameter></invoke>', "", tools);
 * if (calls?.[0]?.type !== "call" || calls[0].arguments !== '{"p":"."}') throw new Error();
 * ```
 */
export function parseInvokes(
  body: string,
  prefix: string,
  tools: ToolIndex,
): RegionPiece[] | undefined {
  const invokeOpen = `<${prefix}invoke`;
  const invokeClose = `</${prefix}invoke>`;
  const parameterOpen = `<${prefix}parameter`;
  const parameterClose = `</${prefix}parameter>`;
  const calls: RegionPiece[] = [];
  let i = skipSpace(body, 0);
  while (i < body.length) {
    if (!body.startsWith(invokeOpen, i)) return undefined;
    const tagEnd = body.indexOf(">", i);
    const close = body.indexOf(invokeClose, i);
    if (tagEnd < 0 || close < 0 || close < tagEnd) return undefined;
    const name = nameAttribute(body.slice(i + invokeOpen.length, tagEnd));
    if (name === undefined) return undefined;
    const properties = schemaProperties(tools, name);
    const args: Record<string, unknown> = {};
    let j = skipSpace(body, tagEnd + 1);
    while (j < close) {
      if (!body.startsWith(parameterOpen, j)) return undefined;
      const keyEnd = body.indexOf(">", j);
      const valueEnd = body.indexOf(parameterClose, j);
      if (keyEnd < 0 || valueEnd < 0 || valueEnd < keyEnd || valueEnd > close) return undefined;
      const key = nameAttribute(body.slice(j + parameterOpen.length, keyEnd));
      if (key === undefined) return undefined;
      const value = stripEdgeNewlines(body.slice(keyEnd + 1, valueEnd));
      args[key] = coerceParameter(value, properties[key]);
      j = skipSpace(body, valueEnd + parameterClose.length);
    }
    calls.push({ type: "call", name, arguments: JSON.stringify(args) });
    i = skipSpace(body, close + invokeClose.length);
  }
  return calls.length > 0 ? calls : undefined;
}

const MINIMAX_OPEN = "<minimax:tool_call>";
const MINIMAX_CLOSE = "</minimax:tool_call>";

/** MiniMax M2: `<minimax:tool_call>` holding `<invoke>` elements. */
export const minimaxM2: Detector = {
  opener: MINIMAX_OPEN,
  families: ["minimax"],
  parse(text, start, { final, tools }) {
    const first = skipSpace(text, start + MINIMAX_OPEN.length);
    const invoke = tagAt(text, first, ["<invoke"], final);
    if (invoke === "incomplete") return INCOMPLETE;
    if (invoke === "invalid") return INVALID;
    const close = text.indexOf(MINIMAX_CLOSE, first);
    if (close < 0 && !final) return INCOMPLETE;
    const calls = parseInvokes(text.slice(first, close < 0 ? text.length : close), "", tools);
    if (!calls) return INVALID;
    return complete(close < 0 ? text.length : close + MINIMAX_CLOSE.length, calls);
  },
};

const STEP = {
  callsBegin: "<｜tool_calls_begin｜>",
  callsEnd: "<｜tool_calls_end｜>",
  callBegin: "<｜tool_call_begin｜>",
  callEnd: "<｜tool_call_end｜>",
  sep: "<｜tool_sep｜>",
  head: "function<｜tool_sep｜>",
  invoke: "<steptml:invoke",
};

/**
 * Where a call's `<steptml:invoke>` starts after `<｜tool_call_begin｜>`. The template writes
 * `function<｜tool_sep｜>` first; vLLM's tests also leave it out, or follow it with the tool's
 * name on a line of its own (`function<｜tool_sep｜>edit_file\n`).
 */
function step3Invoke(
  text: string,
  from: number,
  final: boolean,
): number | "incomplete" | "invalid" {
  const at = skipSpace(text, from);
  const head = tagAt(text, at, [STEP.head, STEP.invoke], final);
  if (head === STEP.invoke) return at;
  if (head !== STEP.head) return head === "incomplete" ? "incomplete" : "invalid";
  const afterHead = at + STEP.head.length;
  const name = /^[\w.-]*\s*/.exec(text.slice(afterHead, afterHead + 256))![0];
  const invoke = afterHead + name.length;
  if (invoke >= text.length) return final ? "invalid" : "incomplete";
  const tag = tagAt(text, invoke, [STEP.invoke], final);
  return tag === STEP.invoke ? invoke : tag === "incomplete" ? "incomplete" : "invalid";
}

function parseStep3(text: string, start: number, { final, tools }: DetectContext): RegionResult {
  const inSection = text.startsWith(STEP.callsBegin, start);
  let i = inSection ? start + STEP.callsBegin.length : start;
  const calls: RegionPiece[] = [];
  let end = i;
  for (;;) {
    i = skipSpace(text, i);
    // vLLM's tests put a stray `<｜tool_sep｜>` between two calls of a section.
    if (inSection && calls.length > 0 && text.startsWith(STEP.sep, i)) {
      i = skipSpace(text, i + STEP.sep.length);
    }
    const begin = tagAt(text, i, [STEP.callBegin], final);
    if (begin === "incomplete") return INCOMPLETE;
    if (begin === "invalid") break;
    const invoke = step3Invoke(text, i + STEP.callBegin.length, final);
    if (invoke === "incomplete") return INCOMPLETE;
    if (invoke === "invalid") return INVALID;
    const callEnd = text.indexOf(STEP.callEnd, invoke);
    if (callEnd < 0 && !final) return INCOMPLETE;
    const bodyEnd = callEnd < 0 ? text.length : callEnd;
    const found = parseInvokes(text.slice(invoke, bodyEnd), "steptml:", tools);
    if (!found) return INVALID;
    calls.push(...found);
    i = end = callEnd < 0 ? text.length : callEnd + STEP.callEnd.length;
  }
  if (calls.length === 0) {
    return !final && isPartialOf(text, i, [STEP.callBegin]) ? INCOMPLETE : INVALID;
  }
  return inSection
    ? endOfRun(text, end, final, [STEP.callsEnd], [STEP.callBegin, STEP.sep], calls)
    : complete(end, calls);
}

/** Step3: the `<｜tool_calls_begin｜>` section of calls. */
export const step3Calls: Detector = {
  opener: STEP.callsBegin,
  families: ["step3"],
  parse: parseStep3,
};
/** Step3: a call written without the section token. */
export const step3Call: Detector = {
  opener: STEP.callBegin,
  families: ["step3"],
  parse: parseStep3,
};
