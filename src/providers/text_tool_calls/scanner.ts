// The left-to-right scanner behind text tool calls: it walks the answer deciding each
// position (plain text, a reasoning block, a code fence or inline code, a detector's region),
// and stops where more streamed text could change the answer. parseTextToolCalls and
// TextToolCallStream in ../text_tool_calls.ts both run it, so streaming and the final parse agree.

import { parseBareCalls, parseFencedCalls } from "./bare_calls.ts";
import { DETECTORS } from "./formats.ts";
import {
  CONTROL_TOKEN,
  type Detector,
  FORMAT_FAMILIES,
  type FormatFamily,
  type RegionPiece,
  type ToolIndex,
} from "./shared.ts";

/** A scanned piece; `think_end` marks a `</think>` that had no opening tag. */
export type Piece = RegionPiece | { type: "think_end" };

/** Where a scan stopped, to resume from. */
export interface ScanState {
  pos: number;
  /** Inside a reasoning block: the tag that closes it. */
  thinkClose: string | undefined;
  fence: { char: string; length: number } | undefined;
  /** Visible non-space text was seen (bare JSON calls count only before it). */
  sawContent: boolean;
  /** A line break followed the visible text seen so far. */
  lineEnded: boolean;
  /** Visible text runs over more than one line (a fenced call list counts only before that). */
  manyLines: boolean;
}

/** Reasoning blocks: `<think>` (most families) and Seed-OSS's `<seed:think>`. */
const THINK_TAGS = [
  { open: "<think>", close: "</think>" },
  { open: "<seed:think>", close: "</seed:think>" },
];

/** The detectors in use and what the scanner derives from them. */
export interface Dialect {
  byFirst: Map<string, Detector[]>;
  openers: { text: string; wordStart: boolean }[];
  /** Finds the next character where markup may start. */
  stop: RegExp;
  /** Answers that are nothing but calls (bare JSON or pythonic lists, fenced xLAM lists). */
  bare: boolean;
  fenced: boolean;
}

/** The dialect reading the given families. */
export function dialectOf(families: readonly FormatFamily[]): Dialect {
  const detectors = DETECTORS.filter((d) => d.families.some((f) => families.includes(f)));
  const byFirst = new Map<string, Detector[]>();
  for (const detector of detectors) {
    const first = detector.opener[0]!;
    byFirst.set(first, [...(byFirst.get(first) ?? []), detector]);
  }
  const openers = [
    ...THINK_TAGS.flatMap((t) => [t.open, t.close]).map((text) => ({ text, wordStart: false })),
    ...detectors.map((d) => ({ text: d.opener, wordStart: d.wordStart === true })),
  ];
  const starts = new Set(["<", "`", "\n", "{", "[", ...byFirst.keys()]);
  const escaped = [...starts].map((c) => c.replace(/[\]\\^-]/g, "\\$&")).join("");
  return {
    byFirst,
    openers,
    stop: new RegExp(`[${escaped}]`, "g"),
    bare: ["llama_json", "pythonic", "xlam"].some((f) => families.includes(f as FormatFamily)),
    fenced: families.includes("xlam"),
  };
}

/** Every format family. */
export const ALL_FORMATS: Dialect = dialectOf(FORMAT_FAMILIES);

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

/** Whether the text from `pos` is a proper beginning of an opener, so it must wait. */
function maybeOpener(text: string, pos: number, dialect: Dialect): boolean {
  const left = text.length - pos;
  const wordStart = pos === 0 || !/\w/.test(text[pos - 1]!);
  return dialect.openers.some((o) =>
    o.text.length > left && (wordStart || !o.wordStart) && o.text.startsWith(text.slice(pos))
  );
}

/**
 * Scans from `state.pos`, deciding every position it passes. When `final` is false it stops
 * at the first place more text could change the answer (a possible opener, an unclosed
 * region) and returns the state to resume from.
 */
export function scan(
  text: string,
  start: ScanState,
  final: boolean,
  env: { tools: ToolIndex; dialect: Dialect },
): { pieces: Piece[]; state: ScanState } {
  const { tools, dialect } = env;
  const out = new PieceList();
  let { pos, thinkClose, fence, sawContent, lineEnded, manyLines } = start;
  const context = { final, tools };
  /** Notes visible text: whether any was seen, and whether it runs past its first line. */
  const seen = (chunk: string) => {
    if (manyLines) return;
    for (const ch of chunk) {
      if (ch === "\n") lineEnded = sawContent;
      else if (ch !== " " && ch !== "\t" && ch !== "\r") {
        if (lineEnded) {
          manyLines = true;
          return;
        }
        sawContent = true;
      }
    }
  };
  const text1 = (from: number, to: number) => {
    const chunk = text.slice(from, to);
    out.add("text", chunk);
    seen(chunk);
  };
  /** Takes a complete region: its calls when every one names an offered tool. */
  const take = (region: { end: number; pieces: RegionPiece[] }) => {
    const offered = region.pieces.every((p) =>
      p.type !== "call" || tools.resolve(p.name) !== undefined
    );
    if (offered) {
      for (const piece of region.pieces) {
        if (piece.type === "call") out.push({ ...piece, name: tools.resolve(piece.name)! });
        else if (piece.type === "text") {
          out.add("text", piece.text);
          seen(piece.text);
        } else out.push(piece);
      }
    } else {
      // A call to a tool not offered is shown as written, without its special tokens.
      const shown = text.slice(pos, region.end).replace(CONTROL_TOKEN, "");
      out.add("text", shown);
      seen(shown);
    }
    pos = region.end;
  };
  scanning: while (pos < text.length) {
    if (thinkClose !== undefined) {
      const close = text.indexOf(thinkClose, pos);
      if (close >= 0) {
        out.add("reasoning", text.slice(pos, close));
        pos = close + thinkClose.length;
        thinkClose = undefined;
        continue;
      }
      const keep = final ? 0 : partialSuffix(text, thinkClose);
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
        const info = line.rest.trim().toLowerCase();
        const lineDone = line.rest.endsWith("\n") || final;
        // xLAM: a fenced JSON list of calls ending the answer, after one line of prose at
        // most ("I'll help you with that."); wait for the info string.
        if (dialect.fenced && !manyLines && !lineDone && "json".startsWith(info)) break;
        if (dialect.fenced && !manyLines && (info === "" || info === "json")) {
          const marker = line.char.repeat(line.length);
          const region = parseFencedCalls(text, { bodyStart: line.lineEnd, fence: marker }, final);
          if (region.status === "incomplete") break;
          if (region.status === "complete") {
            take(region);
            continue;
          }
        }
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
      const end = inlineCodeEnd(text, pos, final);
      if (end === undefined) break;
      text1(pos, end);
      pos = end;
      continue;
    }
    const detectors = dialect.byFirst.get(ch);
    if (detectors !== undefined || ch === "<") {
      if (!final && maybeOpener(text, pos, dialect)) break;
      const think = THINK_TAGS.find((t) => text.startsWith(t.open, pos));
      if (think) {
        thinkClose = think.close;
        pos += think.open.length;
        continue;
      }
      const close = THINK_TAGS.find((t) => text.startsWith(t.close, pos));
      if (close) {
        out.push({ type: "think_end" });
        pos += close.close.length;
        // What came before was reasoning: a bare call may follow.
        sawContent = lineEnded = manyLines = false;
        continue;
      }
      const wordStart = pos === 0 || !/\w/.test(text[pos - 1]!);
      let handled = false;
      for (const detector of detectors ?? []) {
        if (detector.wordStart && !wordStart) continue;
        if (!text.startsWith(detector.opener, pos)) continue;
        const region = detector.parse(text, pos, context);
        if (region.status === "incomplete") break scanning;
        if (region.status === "invalid") continue;
        take(region);
        handled = true;
        break;
      }
      if (handled) continue;
    }
    if (dialect.bare && !sawContent && (ch === "{" || ch === "[")) {
      const region = parseBareCalls(text, pos, final);
      if (region.status === "incomplete") break;
      if (region.status === "complete") {
        take(region);
        continue;
      }
    }
    // Plain text up to the next character that may start something.
    let next = pos + 1;
    if (ch !== "\n") {
      dialect.stop.lastIndex = next;
      const found = dialect.stop.exec(text);
      next = found ? found.index : text.length;
      if (text[next] === "\n") next++;
    }
    text1(pos, next);
    pos = next;
  }
  return {
    pieces: out.pieces,
    state: { pos, thinkClose, fence, sawContent, lineEnded, manyLines },
  };
}

/** How many characters at the end of `text` may begin `close` (held back until more arrives). */
function partialSuffix(text: string, close: string): number {
  for (let n = close.length - 1; n > 0; n--) {
    if (text.endsWith(close.slice(0, n))) return n;
  }
  return 0;
}

/**
 * Where inline code opened by the backticks at `pos` ends: after its closing run of as many
 * backticks on the same line, else right after the opening run. `undefined` while the answer
 * may still grow and that cannot be told yet.
 */
function inlineCodeEnd(text: string, pos: number, final: boolean): number | undefined {
  let run = 1;
  while (text[pos + run] === "`") run++;
  if (pos + run >= text.length && !final) return undefined;
  let j = pos + run;
  while (j < text.length && text[j] !== "\n") {
    if (text[j] !== "`") {
      j++;
      continue;
    }
    let k = 1;
    while (text[j + k] === "`") k++;
    if (k === run) return j + k >= text.length && !final ? undefined : j + k;
    j += k;
  }
  if (j >= text.length && !final) return undefined;
  return pos + run;
}

/** The state at the start of an answer. */
export const INITIAL: ScanState = {
  pos: 0,
  thinkClose: undefined,
  fence: undefined,
  sawContent: false,
  lineEnded: false,
  manyLines: false,
};
