// Kimi K2 calls, built from special tokens:
// `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>`
// `{json}<|tool_call_end|>...<|tool_calls_section_end|>`. The id's `functions.` prefix and
// `:IDX` suffix are dropped; the singular `<|tool_call_section_begin|>` spelling is accepted.

import {
  complete,
  type DetectContext,
  type Detector,
  endOfRun,
  INCOMPLETE,
  INVALID,
  jsonValueEnd,
  type RegionPiece,
  type RegionResult,
  skipSpace,
  tagAt,
  tryJson,
} from "./shared.ts";
import { isRecord } from "../../platform/json_values.ts";

const K = {
  sectionBegin: ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"],
  sectionEnd: ["<|tool_calls_section_end|>", "<|tool_call_section_end|>"],
  callBegin: "<|tool_call_begin|>",
  argumentBegin: "<|tool_call_argument_begin|>",
  callEnd: "<|tool_call_end|>",
};

/** One call from `<|tool_call_begin|>` at `at`: the call and the index after its end token. */
function kimiCall(
  text: string,
  at: number,
  final: boolean,
): { call: RegionPiece; end: number } | "incomplete" | "invalid" {
  const idStart = at + K.callBegin.length;
  const argumentAt = text.indexOf(K.argumentBegin, idStart);
  const id = text.slice(
    idStart,
    argumentAt < 0 ? Math.min(text.length, idStart + 200) : argumentAt,
  );
  const idLike = /^\s*[A-Za-z_][\w.-]*(:\d*)?\s*$/;
  if (argumentAt < 0) {
    // Still writing the id (or the argument token): wait while it looks like one.
    const tag = id.indexOf("<");
    const written = tag < 0 ? id : id.slice(0, tag);
    if (tag >= 0 && !K.argumentBegin.startsWith(id.slice(tag))) return "invalid";
    if (final || id.length >= 200 || (written.trim() !== "" && !idLike.test(written))) {
      return "invalid";
    }
    return "incomplete";
  }
  if (!idLike.test(id)) return "invalid";
  const name = id.trim().replace(/:\d*$/, "");
  const valueStart = skipSpace(text, argumentAt + K.argumentBegin.length);
  if (valueStart >= text.length) return final ? "invalid" : "incomplete";
  const valueEnd = jsonValueEnd(text, valueStart);
  if (valueEnd === "incomplete") return final ? "invalid" : "incomplete";
  if (valueEnd === "invalid") return "invalid";
  const args = tryJson(text.slice(valueStart, valueEnd));
  if (!args || !isRecord(args.value)) return "invalid";
  const call: RegionPiece = { type: "call", name, arguments: JSON.stringify(args.value) };
  const next = skipSpace(text, valueEnd);
  if (final && next >= text.length) return { call, end: text.length };
  const endTag = tagAt(text, next, [K.callEnd], final);
  if (endTag === "incomplete") return "incomplete";
  if (endTag === "invalid") return "invalid";
  return { call, end: next + K.callEnd.length };
}

function parseKimi(text: string, start: number, { final }: DetectContext): RegionResult {
  let i = start;
  const section = K.sectionBegin.find((tag) => text.startsWith(tag, start));
  if (section !== undefined) i += section.length;
  const calls: RegionPiece[] = [];
  let end = i;
  for (;;) {
    i = skipSpace(text, i);
    const begin = tagAt(text, i, [K.callBegin], final);
    if (begin === "incomplete") return INCOMPLETE;
    if (begin === "invalid") break;
    const read = kimiCall(text, i, final);
    if (read === "incomplete") return INCOMPLETE;
    if (read === "invalid") return INVALID;
    calls.push(read.call);
    i = end = read.end;
  }
  if (calls.length === 0) return INVALID;
  return section === undefined
    ? complete(end, calls)
    : endOfRun(text, end, final, K.sectionEnd, [K.callBegin], calls);
}

/** Kimi K2: `<|tool_calls_section_begin|>` and the calls in it. */
export const kimiSection: Detector = {
  opener: K.sectionBegin[0]!,
  families: ["kimi"],
  parse: parseKimi,
};
/** Kimi K2: the section token as some builds spell it. */
export const kimiSectionSingular: Detector = {
  opener: K.sectionBegin[1]!,
  families: ["kimi"],
  parse: parseKimi,
};
/** Kimi K2: a call written without the section token. */
export const kimiCallBegin: Detector = {
  opener: K.callBegin,
  families: ["kimi"],
  parse: parseKimi,
};
