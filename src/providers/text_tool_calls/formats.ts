// The table of detectors, one per opener that models write as text. Here: `<tool_call>`
// (Hermes/Qwen JSON, Qwen3-Coder XML, GLM, xLAM and Granite lists), `<function=...>`,
// Llama `<|python_tag|>` and `<|python_start|>`, Mistral `[TOOL_CALLS]`, LM Studio
// `[TOOL_REQUEST]` and Seed-OSS `<seed:tool_call>`. Other families have their own modules
// (special_tokens, kimi, invoke_xml, json_tags, llama_json); answers with no opener (a bare
// JSON or pythonic list) are in bare_calls.ts. A detector answers `incomplete` only while more
// text could change its answer.

import { jsonBlock } from "./json_block.ts";
import { parsePythonCalls } from "./python_literal.ts";
import {
  complete,
  type DetectContext,
  type Detector,
  endOfRun,
  type FormatFamily,
  INCOMPLETE,
  INVALID,
  isPartialOf,
  jsonCallRun,
  jsonValueEnd,
  type RegionPiece,
  type RegionResult,
  skipSpace,
  tryJson,
} from "./shared.ts";
import { parseFunctionBody, parseFunctionElements } from "./xml_function.ts";
import {
  deepseekCallBegin,
  deepseekCallsBegin,
  harmonyChannel,
  harmonyStart,
} from "./special_tokens.ts";
import { parseGlmCall } from "./glm.ts";
import { kimiCallBegin, kimiSection, kimiSectionSingular } from "./kimi.ts";
import { minimaxM2, step3Call, step3Calls } from "./invoke_xml.ts";
import { granite, internlm, longcat, phi4Functools, toolCallsTag } from "./json_tags.ts";
import { llamaJson } from "./llama_json.ts";
import { isRecord } from "../../platform/json_values.ts";

/**
 * A block between an opener and a closing tag; without the close it runs to the end. A JSON
 * body is read value by value (json_block.ts), so the tag may appear inside its strings.
 */
function closedBlock(
  text: string,
  start: number,
  tags: { open: string; close: string; bodyStarts: readonly string[] },
  context: DetectContext,
  parseBody: (body: string) => RegionPiece[] | undefined,
): RegionResult {
  const bodyStart = start + tags.open.length;
  const first = skipSpace(text, bodyStart);
  if (first >= text.length) return context.final ? INVALID : INCOMPLETE;
  if (!tags.bodyStarts.some((s) => text.startsWith(s, first))) {
    return !context.final && isPartialOf(text, first, tags.bodyStarts) ? INCOMPLETE : INVALID;
  }
  if (text[first] === "{" || text[first] === "[") {
    return jsonBlock(text, first, { close: tags.close, context });
  }
  const close = text.indexOf(tags.close, bodyStart);
  if (close < 0 && !context.final) return INCOMPLETE;
  const calls = parseBody(text.slice(bodyStart, close < 0 ? text.length : close));
  if (!calls) return INVALID;
  return complete(close < 0 ? text.length : close + tags.close.length, calls);
}

const hermes: Detector = {
  opener: "<tool_call>",
  families: ["hermes", "qwen_xml", "glm", "xlam", "granite"],
  parse(text, start, context) {
    const bodyStart = start + "<tool_call>".length;
    // GLM writes the tool's name right after the tag; the others a JSON value or XML.
    if (/[A-Za-z_]/.test(text[skipSpace(text, bodyStart)] ?? "")) {
      return parseGlmCall(text, bodyStart, context);
    }
    return closedBlock(
      text,
      start,
      { open: "<tool_call>", close: "</tool_call>", bodyStarts: ["{", "[", "<function="] },
      context,
      (body) => parseFunctionElements(body, context.tools),
    );
  },
};

const seedOss: Detector = {
  opener: "<seed:tool_call>",
  families: ["seed_oss"],
  parse(text, start, context) {
    return closedBlock(
      text,
      start,
      { open: "<seed:tool_call>", close: "</seed:tool_call>", bodyStarts: ["<function="] },
      context,
      (body) => parseFunctionElements(body, context.tools),
    );
  },
};

const lmStudio: Detector = {
  opener: "[TOOL_REQUEST]",
  families: ["lm_studio"],
  parse(text, start, context) {
    return closedBlock(
      text,
      start,
      { open: "[TOOL_REQUEST]", close: "[END_TOOL_REQUEST]", bodyStarts: ["{"] },
      context,
      () => undefined,
    );
  },
};

const functionTag: Detector = {
  opener: "<function=",
  families: ["qwen_xml", "llama_json"],
  parse(text, start, { final, tools }) {
    const nameStart = start + "<function=".length;
    const name = /^[\w.-]*/.exec(text.slice(nameStart))![0];
    const afterName = nameStart + name.length;
    if (afterName >= text.length) return final ? INVALID : INCOMPLETE;
    if (name === "" || text[afterName] !== ">") return INVALID;
    const close = text.indexOf("</function>", start);
    if (close < 0 && !final) return INCOMPLETE;
    const call = parseFunctionBody(text.slice(nameStart, close < 0 ? text.length : close), tools);
    if (!call) return INVALID;
    if (close < 0) return complete(text.length, [call]);
    let end = close + "</function>".length;
    const next = skipSpace(text, end);
    if (text.startsWith("</tool_call>", next)) end = next + "</tool_call>".length;
    else if (!final && (next >= text.length || isPartialOf(text, next, ["</tool_call>"]))) {
      return INCOMPLETE;
    }
    return complete(end, [call]);
  },
};

const LLAMA_END = ["<|eom_id|>", "<|eot_id|>"];

const pythonTag: Detector = {
  opener: "<|python_tag|>",
  families: ["llama_json"],
  parse(text, start, { final }) {
    const run = jsonCallRun(text, start + "<|python_tag|>".length, ";", final);
    if (run.status === "incomplete") return final ? INVALID : INCOMPLETE;
    if (run.status === "invalid") return INVALID;
    return endOfRun(text, run.end, final, LLAMA_END, [";"], run.calls);
  },
};

const pythonStart: Detector = {
  opener: "<|python_start|>",
  families: ["pythonic"],
  parse(text, start, { final }) {
    const bodyStart = start + "<|python_start|>".length;
    const close = text.indexOf("<|python_end|>", bodyStart);
    if (close < 0 && !final) return INCOMPLETE;
    const body = text.slice(bodyStart, close < 0 ? text.length : close).trim();
    const calls = parsePythonCalls(body);
    if (!calls) return INVALID;
    return complete(
      close < 0 ? text.length : close + "<|python_end|>".length,
      calls.map((c) => ({ type: "call", name: c.name, arguments: JSON.stringify(c.args) })),
    );
  },
};

const mistral: Detector = {
  opener: "[TOOL_CALLS]",
  families: ["mistral", "xlam"],
  parse: parseMistral,
};

function parseMistral(text: string, start: number, { final }: DetectContext): RegionResult {
  const calls: RegionPiece[] = [];
  let i = skipSpace(text, start + "[TOOL_CALLS]".length);
  for (;;) {
    if (i >= text.length) return final ? INVALID : INCOMPLETE;
    let end: number;
    if (text[i] === "[" || text[i] === "{") {
      // Before tokenizer v11: a JSON list of {"name", "arguments"} objects.
      const run = jsonCallRun(text, i, undefined, final);
      if (run.status === "incomplete") return final ? INVALID : INCOMPLETE;
      if (run.status === "invalid") return INVALID;
      calls.push(...run.calls);
      end = run.end;
    } else {
      // Tokenizer v11+: name, optional [CALL_ID]id, [ARGS] (v13) or nothing, then the object.
      const name = /^[\w.-]+/.exec(text.slice(i))?.[0];
      if (name === undefined) return INVALID;
      let j = i + name.length;
      if (j >= text.length || isPartialOf(text, j, ["[CALL_ID]", "[ARGS]"])) {
        return final ? INVALID : INCOMPLETE;
      }
      if (text.startsWith("[CALL_ID]", j)) {
        const args = text.indexOf("[ARGS]", j);
        if (args < 0) return final ? INVALID : INCOMPLETE;
        j = args;
      }
      if (text.startsWith("[ARGS]", j)) j += "[ARGS]".length;
      j = skipSpace(text, j);
      if (j >= text.length) return final ? INVALID : INCOMPLETE;
      const valueEnd = jsonValueEnd(text, j);
      if (valueEnd === "incomplete") return final ? INVALID : INCOMPLETE;
      if (valueEnd === "invalid") return INVALID;
      const args = tryJson(text.slice(j, valueEnd));
      if (!args || !isRecord(args.value)) return INVALID;
      calls.push({ type: "call", name, arguments: JSON.stringify(args.value) });
      end = valueEnd;
    }
    const next = skipSpace(text, end);
    if (text.startsWith("[TOOL_CALLS]", next)) {
      i = skipSpace(text, next + "[TOOL_CALLS]".length);
      continue;
    }
    return endOfRun(text, end, final, ["</s>"], ["[TOOL_CALLS]"], calls);
  }
}

/**
 * Control tokens that only a tokenizer writes: one not read as part of a call (a stray end
 * token, `[TOOL_CALLS]` before prose) is dropped from the answer. These come last, so the
 * format's own detector reads the token first. (Harmony's and Llama's tokens are left: people
 * do write about them.)
 */
const STRAY_TOKENS: Detector[] = [
  // Not `[ARGS]`: usage lines write it ("run [ARGS]").
  { families: ["mistral", "xlam"], tokens: ["[TOOL_CALLS]"] },
  {
    families: ["kimi"],
    tokens: [
      "<|tool_calls_section_begin|>",
      "<|tool_call_section_begin|>",
      "<|tool_call_begin|>",
      "<|tool_call_argument_begin|>",
      "<|tool_call_end|>",
      "<|tool_calls_section_end|>",
      "<|tool_call_section_end|>",
    ],
  },
  {
    families: ["internlm"],
    tokens: ["<|action_start|>", "<|plugin|>", "<|interpreter|>", "<|action_end|>"],
  },
  { families: ["granite"], tokens: ["<|tool_call|>"] },
  {
    families: ["step3"],
    tokens: [
      "<｜tool_calls_begin｜>",
      "<｜tool_call_begin｜>",
      "<｜tool_sep｜>",
      "<｜tool_call_end｜>",
      "<｜tool_calls_end｜>",
    ],
  },
  {
    families: ["deepseek"],
    tokens: [
      "<｜tool▁calls▁begin｜>",
      "<｜tool▁call▁begin｜>",
      "<｜tool▁sep｜>",
      "<｜tool▁call▁end｜>",
      "<｜tool▁calls▁end｜>",
    ],
  },
].flatMap(({ families, tokens }) =>
  tokens.map((token): Detector => ({
    opener: token,
    families: families as FormatFamily[],
    parse: (_text, start) => complete(start + token.length, []),
  }))
);

/** Every detector with an opener, tried in this order where its opener starts. */
export const DETECTORS: readonly Detector[] = [
  hermes,
  functionTag,
  pythonTag,
  pythonStart,
  mistral,
  lmStudio,
  deepseekCallsBegin,
  deepseekCallBegin,
  harmonyStart,
  harmonyChannel,
  kimiSection,
  kimiSectionSingular,
  kimiCallBegin,
  minimaxM2,
  toolCallsTag,
  granite,
  internlm,
  longcat,
  seedOss,
  step3Calls,
  step3Call,
  phi4Functools,
  llamaJson,
  ...STRAY_TOKENS,
];
