// Llama 3.x JSON calls written inline: `{"name": NAME, "parameters": {...}}` objects (with an
// optional `"type": "function"`), anywhere outside code, with prose before or after and
// several joined by `;`. An object counts only with its "parameters" object, so a JSON value
// that merely has a "name" stays text. The whole-answer forms are in bare_calls.ts.

import { bareGate } from "./bare_calls.ts";
import {
  callFromObject,
  type Detector,
  endOfRun,
  INCOMPLETE,
  INVALID,
  jsonValueEnd,
  type RegionPiece,
  skipSpace,
  tryJson,
} from "./shared.ts";
import { isRecord } from "../../platform/json_values.ts";

const LLAMA_END = ["<|eom_id|>", "<|eot_id|>"];

/** Whether a parsed object carries its arguments the way Llama's template writes them. */
function hasParameters(value: unknown): boolean {
  return isRecord(value) && isRecord(value.parameters);
}

/** Llama 3.x: `{"name": ..., "parameters": {...}}` objects anywhere in prose. */
export const llamaJson: Detector = {
  opener: "{",
  families: ["llama_json"],
  parse(text, start, { final }) {
    const calls: RegionPiece[] = [];
    let i = start;
    for (;;) {
      const gate = bareGate(text, i);
      if (gate === "no" || (gate === "maybe" && final)) return INVALID;
      if (gate === "maybe") return INCOMPLETE;
      const end = jsonValueEnd(text, i);
      if (end === "incomplete") return final ? INVALID : INCOMPLETE;
      if (end === "invalid") return INVALID;
      const parsed = tryJson(text.slice(i, end));
      const call = parsed && hasParameters(parsed.value) ? callFromObject(parsed.value) : undefined;
      if (!call) return INVALID;
      calls.push(call);
      const next = skipSpace(text, end);
      if (text[next] !== ";") return endOfRun(text, end, final, LLAMA_END, [";"], calls);
      const after = skipSpace(text, next + 1);
      if (after >= text.length && !final) return INCOMPLETE;
      if (text[after] !== "{" || bareGate(text, after) === "no") {
        return endOfRun(text, next + 1, final, LLAMA_END, [], calls);
      }
      if (bareGate(text, after) === "maybe" && !final) return INCOMPLETE;
      i = after;
    }
  },
};
