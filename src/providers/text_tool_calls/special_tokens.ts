// Formats built from special tokens: DeepSeek V3/R1 (`<｜tool▁calls▁begin｜>` with a fenced
// JSON block per call) and V3.1 (`NAME<｜tool▁sep｜>{...}`), and gpt-oss harmony messages
// leaking raw (`<|channel|>commentary to=functions.NAME ... <|message|>{...}<|call|>`).

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
  tryJson,
} from "./shared.ts";
import { isRecord } from "../../platform/json_values.ts";

const DS = {
  callsBegin: "<｜tool▁calls▁begin｜>",
  callsEnd: "<｜tool▁calls▁end｜>",
  callBegin: "<｜tool▁call▁begin｜>",
  callEnd: "<｜tool▁call▁end｜>",
  sep: "<｜tool▁sep｜>",
};

/** One DeepSeek call: V3/R1 `function<sep>NAME\n```json{...}````, V3.1 `NAME<sep>{...}`. */
function deepseekCall(before: string, after: string): RegionPiece | undefined {
  const trimmed = after.trim();
  let name: string;
  let json: string;
  if (trimmed.startsWith("{")) {
    name = before.trim();
    json = trimmed;
  } else {
    const newline = trimmed.indexOf("\n");
    name = (newline < 0 ? trimmed : trimmed.slice(0, newline)).trim();
    const rest = newline < 0 ? "" : trimmed.slice(newline + 1).trim();
    json = /^```[\w-]*\s*([\s\S]*?)\s*```$/.exec(rest)?.[1] ?? rest;
  }
  const args = tryJson(json === "" ? "{}" : json);
  if (!/^[\w.-]+$/.test(name) || !args || !isRecord(args.value)) return undefined;
  return { type: "call", name, arguments: JSON.stringify(args.value) };
}

function parseDeepseek(text: string, start: number, { final }: DetectContext): RegionResult {
  const calls: RegionPiece[] = [];
  let i = text.startsWith(DS.callsBegin, start) ? start + DS.callsBegin.length : start;
  let end = i;
  for (;;) {
    i = skipSpace(text, i);
    if (text.startsWith(DS.callBegin, i)) {
      let callEnd = text.indexOf(DS.callEnd, i);
      if (callEnd < 0) {
        if (!final) return INCOMPLETE;
        callEnd = text.length;
      }
      const sep = text.indexOf(DS.sep, i);
      if (sep < 0 || sep > callEnd) return INVALID;
      const call = deepseekCall(
        text.slice(i + DS.callBegin.length, sep),
        text.slice(sep + DS.sep.length, callEnd),
      );
      if (!call) return INVALID;
      calls.push(call);
      i = end = Math.min(text.length, callEnd + DS.callEnd.length);
      continue;
    }
    if (calls.length === 0) {
      return !final && (i >= text.length || isPartialOf(text, i, [DS.callBegin]))
        ? INCOMPLETE
        : INVALID;
    }
    return endOfRun(text, end, final, [DS.callsEnd], [DS.callBegin], calls);
  }
}

/** DeepSeek: the `<｜tool▁calls▁begin｜>` section. */
export const deepseekCallsBegin: Detector = {
  opener: DS.callsBegin,
  families: ["deepseek"],
  parse: parseDeepseek,
};
/** DeepSeek: a call written without the section token. */
export const deepseekCallBegin: Detector = {
  opener: DS.callBegin,
  families: ["deepseek"],
  parse: parseDeepseek,
};

const HARMONY_CHANNELS = ["analysis", "commentary", "final"];

/** One harmony message: header up to <|message|>, body up to its terminator. */
function parseHarmony(text: string, start: number, { final }: DetectContext): RegionResult {
  const headerEnd = text.indexOf("<|message|>", start);
  const channelAt = text.indexOf("<|channel|>", start);
  if (channelAt >= 0 && (headerEnd < 0 || channelAt < headerEnd)) {
    const word = skipSpace(text, channelAt + "<|channel|>".length);
    if (!HARMONY_CHANNELS.some((c) => text.startsWith(c, word))) {
      return !final && (word >= text.length || isPartialOf(text, word, HARMONY_CHANNELS))
        ? INCOMPLETE
        : INVALID;
    }
  } else if (text.startsWith("<|start|>", start)) {
    const role = skipSpace(text, start + "<|start|>".length);
    if (!text.startsWith("assistant", role)) {
      return !final && (role >= text.length || isPartialOf(text, role, ["assistant"]))
        ? INCOMPLETE
        : INVALID;
    }
  }
  if (headerEnd < 0) {
    // A header is one short line; anything else is not harmony.
    const header = text.slice(start);
    return !final && header.length < 300 && !header.includes("\n") ? INCOMPLETE : INVALID;
  }
  const header = text.slice(start, headerEnd);
  if (header.includes("\n")) return INVALID;
  const bodyStart = headerEnd + "<|message|>".length;
  let bodyEnd = text.length;
  let end = text.length;
  for (const token of ["<|end|>", "<|call|>", "<|return|>", "<|start|>", "<|channel|>"]) {
    const at = text.indexOf(token, bodyStart);
    if (at >= 0 && at < bodyEnd) {
      bodyEnd = at;
      end = token === "<|start|>" || token === "<|channel|>" ? at : at + token.length;
    }
  }
  if (bodyEnd === text.length && !final) return INCOMPLETE;
  const body = text.slice(bodyStart, bodyEnd);
  const recipient = /to=([^\s<]+)/.exec(header)?.[1];
  if (recipient !== undefined) {
    const args = tryJson(body.trim() === "" ? "{}" : body.trim());
    if (!args || !isRecord(args.value)) return INVALID;
    return complete(end, [{
      type: "call",
      name: recipient,
      arguments: JSON.stringify(args.value),
    }]);
  }
  const channel = /<\|channel\|>\s*(\w+)/.exec(header)?.[1];
  return complete(end, [{ type: channel === "analysis" ? "reasoning" : "text", text: body }]);
}

/** gpt-oss harmony: a message starting `<|start|>assistant`. */
export const harmonyStart: Detector = {
  opener: "<|start|>",
  families: ["harmony"],
  parse: parseHarmony,
};
/** gpt-oss harmony: a message starting at `<|channel|>`. */
export const harmonyChannel: Detector = {
  opener: "<|channel|>",
  families: ["harmony"],
  parse: parseHarmony,
};
