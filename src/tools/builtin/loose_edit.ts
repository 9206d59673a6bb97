// What edit_file does when its old_string is not in the file exactly: look again with the
// indentation and the spaces at line ends of every line ignored, and replace a match that is
// unique then, re-indenting the new text to the file's own indentation; else find the region
// most like old_string, so the model can copy it exactly or use replace_lines.

import { contentLines, splitLines } from "./text_file.ts";

/** What a loose look for old_string found. */
export type LooseEditResult =
  /** One place matched: `text` is the file with it replaced (lines are 1-based, inclusive). */
  | { kind: "replaced"; text: string; firstLine: number; lastLine: number }
  /** Several places matched: their first lines. */
  | { kind: "ambiguous"; lines: number[] }
  /** Nothing matched; the most alike region and how alike it is (0..1). */
  | { kind: "closest"; firstLine: number; lastLine: number; similarity: number }
  /** Nothing matched or came close. */
  | { kind: "none" };

/** A region must be at least this alike (Dice over character pairs, line by line) to be shown. */
const MIN_SIMILARITY = 0.3;
/** Line pairs compared when looking for the closest region, at most. */
const MAX_PAIRS = 2_000_000;

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0];
const isBlank = (line: string) => line.trim() === "";

/** The lines of `text` without blank lines at its start and end, and how many were cut. */
function trimBlankEdges(lines: string[]): { lines: string[]; head: number; tail: number } {
  let head = 0;
  let end = lines.length;
  while (head < end && isBlank(lines[head]!)) head++;
  while (end > head && isBlank(lines[end - 1]!)) end--;
  return { lines: lines.slice(head, end), head, tail: lines.length - end };
}

/**
 * Replaces `oldString` in `text` where it matches once the indentation and the spaces at the
 * end of every line are ignored (blank lines around it too), if that place is unique. The new
 * text takes the file's indentation: each indentation old_string used is mapped to the file's
 * at the same line, and deeper ones keep their extra part. Otherwise says where it matched,
 * or which region is the most alike.
 *
 * @param text The file's text (LF or CRLF; the file's line ending is kept).
 * @param oldString The text the model asked to replace (not found exactly).
 * @param newString The text to put in its place.
 * @returns The new text, the places that matched, or the closest region.
 *
 * @example
 * ```ts
 * import { looseEdit } from "./loose_edit.ts";
 * const file = "def f():\n    if x:\n        return 1\n";
 * const r = looseEdit(file, "if x:\n    return 1", "if x:\n    return 2");
 * if (r.kind !== "replaced") throw new Error(r.kind);
 * if (r.text !== "def f():\n    if x:\n        return 2\n") throw new Error(r.text);
 * ```
 */
export function looseEdit(text: string, oldString: string, newString: string): LooseEditResult {
  const file = splitLines(text);
  const old = trimBlankEdges(contentLines(oldString));
  const keys = file.lines.map((line) => line.trim());
  const oldKeys = old.lines.map((line) => line.trim());
  const starts: number[] = [];
  for (let start = 0; start + oldKeys.length <= keys.length; start++) {
    if (oldKeys.every((key, k) => keys[start + k] === key)) starts.push(start);
  }
  if (starts.length > 1) return { kind: "ambiguous", lines: starts.map((start) => start + 1) };
  if (starts.length === 0) return closest(keys, oldKeys);
  const start = starts[0]!;
  const matched = file.lines.slice(start, start + old.lines.length);
  // Blank lines cut from old_string's edges are cut from new_string's too, when it has them.
  let newLines = contentLines(newString);
  for (let cut = 0; cut < old.head && newLines.length > 0 && isBlank(newLines[0]!); cut++) {
    newLines = newLines.slice(1);
  }
  for (let cut = 0; cut < old.tail && newLines.length > 0 && isBlank(newLines.at(-1)!); cut++) {
    newLines = newLines.slice(0, -1);
  }
  const lines = [...file.lines];
  lines.splice(start, matched.length, ...reindent(newLines, old.lines, matched));
  const finalNewline = lines.length > 0 && file.finalNewline;
  return {
    kind: "replaced",
    text: lines.join(file.eol) + (finalNewline ? file.eol : ""),
    firstLine: start + 1,
    lastLine: start + matched.length,
  };
}

/**
 * New lines with the file's indentation. A new line at the position of an old line with the
 * same indentation takes the file's line's indentation; any other takes the file's for the
 * longest indentation of old_string it starts with (the rest it adds is kept).
 */
function reindent(newLines: string[], oldLines: string[], fileLines: string[]): string[] {
  const map = new Map<string, string>();
  oldLines.forEach((line, k) => {
    const indent = indentOf(line);
    if (!isBlank(line) && !map.has(indent)) map.set(indent, indentOf(fileLines[k]!));
  });
  return newLines.map((line, k) => {
    if (isBlank(line)) return "";
    const indent = indentOf(line);
    const old = oldLines[k];
    if (old !== undefined && !isBlank(old) && indentOf(old) === indent) {
      return indentOf(fileLines[k]!) + line.slice(indent.length);
    }
    let best: [string, string] | undefined;
    for (const pair of map) {
      if (indent.startsWith(pair[0]) && (!best || pair[0].length > best[0].length)) best = pair;
    }
    return best ? best[1] + indent.slice(best[0].length) + line.slice(indent.length) : line;
  });
}

/** The character pairs of a trimmed line, as numbers. */
function pairsOf(text: string): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i + 1 < text.length; i++) {
    out.add(text.charCodeAt(i) * 65536 + text.charCodeAt(i + 1));
  }
  return out;
}

/**
 * How alike a trimmed file line is to an old line, from 0 to 1: Dice's coefficient over
 * character pairs, counting the file line's pairs as they come (no set is built for it).
 */
function likeness(text: string, old: { text: string; pairs: Set<number> }): number {
  if (text.length < 2 || old.text.length < 2) return text === old.text ? 1 : 0;
  let shared = 0;
  for (let i = 0; i + 1 < text.length; i++) {
    if (old.pairs.has(text.charCodeAt(i) * 65536 + text.charCodeAt(i + 1))) shared++;
  }
  const size = old.text.length - 1;
  return (2 * Math.min(shared, size)) / (text.length - 1 + size);
}

/**
 * The window of file lines, as long as old_string, whose lines are the most alike to its
 * lines (both trimmed). On a big file only some of old_string's lines are compared, evenly
 * spaced.
 */
function closest(fileKeys: string[], oldKeys: string[]): LooseEditResult {
  const size = Math.min(oldKeys.length, fileKeys.length);
  if (size === 0) return { kind: "none" };
  const windows = fileKeys.length - size + 1;
  const samples = Math.max(1, Math.min(size, Math.floor(MAX_PAIRS / windows)));
  const picked = Array.from({ length: samples }, (_, i) => {
    const k = Math.floor((i * size) / samples);
    return { k, old: { text: oldKeys[k]!, pairs: pairsOf(oldKeys[k]!) } };
  });
  let best = { start: 0, score: -1 };
  for (let start = 0; start < windows; start++) {
    let sum = 0;
    for (const { k, old } of picked) sum += likeness(fileKeys[start + k]!, old);
    const score = sum / picked.length;
    if (score > best.score) best = { start, score };
  }
  if (best.score < MIN_SIMILARITY) return { kind: "none" };
  return {
    kind: "closest",
    firstLine: best.start + 1,
    lastLine: best.start + size,
    similarity: best.score,
  };
}
