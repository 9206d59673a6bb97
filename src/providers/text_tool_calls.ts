// Tool calls written as text: when a server does not parse a model's tool-call markup, this
// module finds it in the answer text, turns it into calls and removes it from what the user
// sees. One left-to-right scanner serves both the final parse and the streaming filter, so
// what streams is what the final turn says. Formats: see text_tool_calls/formats.ts.

import type { ToolSchema } from "../messages.ts";
import { parseBareCalls } from "./text_tool_calls/bare_calls.ts";
import { DETECTORS } from "./text_tool_calls/formats.ts";
import { type RegionPiece, type ToolIndex, toolIndex } from "./text_tool_calls/shared.ts";

/** A call found in text: the offered tool's name and its arguments as JSON object text. */
export interface TextToolCall {
  name: string;
  arguments: string;
}

/** The result of parsing one complete answer. */
export interface TextToolCallParse {
  /** The answer with markup and reasoning removed. */
  text: string;
  /** `<think>` blocks and harmony analysis. */
  reasoning: string;
  calls: TextToolCall[];
}

/** What the streaming filter lets through. */
export type TextStreamPiece =
  | { type: "text" | "reasoning"; text: string }
  | { type: "call"; name: string };

type Piece = RegionPiece | { type: "think_end" };

interface ScanState {
  pos: number;
  inThink: boolean;
  fence: { char: string; length: number } | undefined;
  /** Visible non-space text was seen (bare JSON calls count only before it). */
  sawContent: boolean;
}

const THINK_OPEN = "<think>";
const THINK_CLOSE = "</think>";
const OPENERS = [THINK_OPEN, THINK_CLOSE, ...DETECTORS.map((d) => d.opener)];

class PieceList {
  readonly pieces: Piece[] = [];
  add(type: "text" | "reasoning", text: string): void {
    if (text === "") return;
    const last = this.pieces.at(-1);
    if (last?.type === type) last.text += text;
    else this.pieces.push({ type, text });
  }
  push(piece: Piece): void {
    if (piece.type === "text" || piece.type === "reasoning") this.add(piece.type, piece.text);
    else this.pieces.push(piece);
  }
}

/** A fence line at `pos`: undecided while the text ends inside its marker. */
function fenceAt(
  text: string,
  pos: number,
  final: boolean,
): "undecided" | undefined | { char: string; length: number; lineEnd: number; rest: string } {
  const match = /^ {0,3}(`+|~+)?/.exec(text.slice(pos, pos + 4096))!;
  const markerEnd = pos + match[0].length;
  if (markerEnd >= text.length && !final && text.length - pos < 4) return "undecided";
  const marker = match[1];
  if (marker === undefined || marker.length < 3) return undefined;
  const newline = text.indexOf("\n", markerEnd);
  const lineEnd = newline < 0 ? text.length : newline + 1;
  return { char: marker[0]!, length: marker.length, lineEnd, rest: text.slice(markerEnd, lineEnd) };
}

/**
 * Scans from `state.pos`, deciding every position it passes. When `final` is false it stops
 * at the first place more text could change the answer (a possible opener, an unclosed
 * region) and returns the state to resume from.
 */
function scan(
  text: string,
  start: ScanState,
  final: boolean,
  tools: ToolIndex,
): { pieces: Piece[]; state: ScanState } {
  const out = new PieceList();
  let { pos, inThink, fence, sawContent } = start;
  const context = { final, tools };
  const text1 = (from: number, to: number) => {
    const chunk = text.slice(from, to);
    out.add("text", chunk);
    if (/\S/.test(chunk)) sawContent = true;
  };
  scanning: while (pos < text.length) {
    if (inThink) {
      const close = text.indexOf(THINK_CLOSE, pos);
      if (close >= 0) {
        out.add("reasoning", text.slice(pos, close));
        pos = close + THINK_CLOSE.length;
        inThink = false;
        continue;
      }
      let keep = 0;
      for (let n = THINK_CLOSE.length - 1; n > 0 && !final; n--) {
        if (text.endsWith(THINK_CLOSE.slice(0, n))) {
          keep = n;
          break;
        }
      }
      out.add("reasoning", text.slice(pos, Math.max(pos, text.length - keep)));
      pos = Math.max(pos, text.length - keep);
      break;
    }
    const lineStart = pos === 0 || text[pos - 1] === "\n";
    if (lineStart) {
      const line = fenceAt(text, pos, final);
      if (line === "undecided") break;
      if (fence) {
        const closes = line !== undefined && line.char === fence.char &&
          line.length >= fence.length && line.rest.trim() === "";
        const lineComplete = line !== undefined && (line.rest.endsWith("\n") || final);
        if (closes && !lineComplete) break;
        if (closes) fence = undefined;
      } else if (line !== undefined) {
        if (line.rest === "" && !final) break; // "```" may still grow: the length matters
        fence = { char: line.char, length: line.length };
        text1(pos, line.lineEnd);
        pos = line.lineEnd;
        continue;
      }
    }
    if (fence) {
      const newline = text.indexOf("\n", pos);
      const end = newline < 0 ? text.length : newline + 1;
      text1(pos, end);
      pos = end;
      continue;
    }
    const ch = text[pos]!;
    if (ch === "`") {
      // Inline code: markup inside it is quoted, not called. It closes on the same line.
      let run = 1;
      while (text[pos + run] === "`") run++;
      if (pos + run >= text.length && !final) break;
      let j = pos + run;
      let closed = -1;
      while (j < text.length && text[j] !== "\n") {
        if (text[j] === "`") {
          let k = 1;
          while (text[j + k] === "`") k++;
          if (k === run) {
            if (j + k >= text.length && !final) break scanning;
            closed = j + k;
            break;
          }
          j += k;
        } else j++;
      }
      if (closed < 0 && j >= text.length && !final) break;
      const end = closed < 0 ? pos + run : closed;
      text1(pos, end);
      pos = end;
      continue;
    }
    if (ch === "<" || ch === "[") {
      if (
        !final && OPENERS.some((o) => o.length > text.length - pos && o.startsWith(text.slice(pos)))
      ) {
        break;
      }
      if (text.startsWith(THINK_OPEN, pos)) {
        inThink = true;
        pos += THINK_OPEN.length;
        continue;
      }
      if (text.startsWith(THINK_CLOSE, pos)) {
        out.push({ type: "think_end" });
        pos += THINK_CLOSE.length;
        sawContent = false; // what came before was reasoning: a bare call may follow
        continue;
      }
      let handled = false;
      for (const detector of DETECTORS) {
        if (!text.startsWith(detector.opener, pos)) continue;
        const region = detector.parse(text, pos, context);
        if (region.status === "incomplete") break scanning;
        if (region.status === "invalid") continue;
        const offered = region.pieces.every((p) =>
          p.type !== "call" || tools.resolve(p.name) !== undefined
        );
        if (offered) {
          for (const piece of region.pieces) {
            if (piece.type === "call") out.push({ ...piece, name: tools.resolve(piece.name)! });
            else if (piece.type === "text") {
              out.add("text", piece.text);
              if (/\S/.test(piece.text)) sawContent = true;
            } else out.push(piece);
          }
        } else text1(pos, region.end);
        pos = region.end;
        handled = true;
        break;
      }
      if (handled) continue;
    }
    if (!sawContent && (ch === "{" || ch === "[")) {
      const region = parseBareCalls(text, pos, final);
      if (region.status === "incomplete") break;
      if (region.status === "complete") {
        const offered = region.pieces.every((p) =>
          p.type !== "call" || tools.resolve(p.name) !== undefined
        );
        if (offered) {
          for (const piece of region.pieces) {
            out.push(
              piece.type === "call" ? { ...piece, name: tools.resolve(piece.name)! } : piece,
            );
          }
        } else text1(pos, region.end);
        pos = region.end;
        continue;
      }
    }
    // Plain text up to the next character that may start something.
    let next = pos + 1;
    if (ch !== "\n") {
      while (next < text.length && !"<[`\n{".includes(text[next]!)) next++;
      if (text[next] === "\n") next++;
    }
    text1(pos, next);
    pos = next;
  }
  return { pieces: out.pieces, state: { pos, inThink, fence, sawContent } };
}

const INITIAL: ScanState = { pos: 0, inThink: false, fence: undefined, sawContent: false };

/**
 * Parses tool-call markup out of a complete answer. Calls count only when they name an
 * offered tool and are not quoted in a code fence or inline code; everything else stays text.
 * `<think>` blocks (and text before an unopened `</think>`) become reasoning.
 *
 * @param text The model's answer text.
 * @param tools The tools offered in the request.
 * @returns The visible text, reasoning and calls (arguments as JSON object text).
 *
 * @example
 * ```ts
 * import { parseTextToolCalls } from "./text_tool_calls.ts";
 * const tools = [{ name: "get_weather", description: "", parameters: {} }];
 * const parsed = parseTextToolCalls(
 *   'Checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</tool_call>',
 *   tools,
 * );
 * if (parsed.text !== "Checking.") throw new Error(parsed.text);
 * if (parsed.calls[0]?.arguments !== '{"city":"Tokyo"}') throw new Error();
 * ```
 */
export function parseTextToolCalls(
  text: string,
  tools: readonly ToolSchema[],
): TextToolCallParse {
  const { pieces } = scan(text, INITIAL, true, toolIndex(tools));
  let visible = "";
  let reasoning = "";
  const calls: TextToolCall[] = [];
  let extracted = false;
  for (const piece of pieces) {
    if (piece.type === "text") visible += piece.text;
    else if (piece.type === "reasoning") {
      reasoning += piece.text;
      extracted = true;
    } else if (piece.type === "call") {
      calls.push({ name: piece.name, arguments: piece.arguments });
      extracted = true;
    } else {
      // `</think>` without `<think>`: the template opened the block, so what came before
      // it is reasoning (only the first such tag; later ones are dropped).
      if (!extracted) {
        reasoning = visible + reasoning;
        visible = "";
      }
      extracted = true;
    }
  }
  if (!extracted) return { text, reasoning: "", calls };
  return { text: visible.trim(), reasoning: reasoning.trim(), calls };
}

/**
 * The streaming side of {@linkcode parseTextToolCalls}: feed text deltas in, get back the
 * text that is certainly visible, reasoning, and the calls found so far. It holds back
 * only what may be the start of markup (or a region still open).
 *
 * @example
 * ```ts
 * import { TextToolCallStream } from "./text_tool_calls.ts";
 * const stream = new TextToolCallStream([{ name: "ls", description: "", parameters: {} }]);
 * const out = [...stream.push("Hi <tool"), ...stream.push('_call>{"name":"ls"}</tool_call>')];
 * if (out[0]?.type !== "text" || out[0].text !== "Hi ") throw new Error();
 * if (out[1]?.type !== "call") throw new Error();
 * ```
 */
export class TextToolCallStream {
  #buffer = "";
  #scannedLength = 0;
  #state: ScanState = INITIAL;
  #tools: ToolIndex;

  constructor(tools: readonly ToolSchema[]) {
    this.#tools = toolIndex(tools);
  }

  /** Adds a delta; returns what can be shown now. */
  push(delta: string): TextStreamPiece[] {
    this.#buffer += delta;
    // A long held region (a big call's arguments) is rescanned only after it grew by an
    // eighth, so streaming stays near-linear; end() always decides everything.
    const held = this.#buffer.length - this.#state.pos;
    if (held > 4096 && this.#buffer.length - this.#scannedLength < held / 8) return [];
    this.#scannedLength = this.#buffer.length;
    return this.#run(false);
  }

  /** Ends the stream; returns everything still held back, decided. */
  end(): TextStreamPiece[] {
    return this.#run(true);
  }

  #run(final: boolean): TextStreamPiece[] {
    const { pieces, state } = scan(this.#buffer, this.#state, final, this.#tools);
    this.#state = state;
    const out: TextStreamPiece[] = [];
    for (const piece of pieces) {
      if (piece.type === "call") out.push({ type: "call", name: piece.name });
      else if (piece.type !== "think_end") out.push(piece);
    }
    return out;
  }
}
