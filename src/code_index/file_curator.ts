// The read_file curator: for a file of 100 lines or more read without offset/limit, the model
// gets the file's outline from the code graph plus the sections relevant to the conversation,
// chosen by a short side request to the same model (numbered file and recent conversation in,
// a zod-checked list of line ranges out, no tools). Choices are cached by (file content,
// conversation context); anything unexpected falls back to the plain numbered read.

import { z } from "zod";
import type { Message, Usage } from "../messages.ts";
import type { Provider } from "../providers/provider.ts";
import { sha256Hex } from "../platform/sha256_hex.ts";
import type { GraphStore, StoredDefinition } from "./graph_store.ts";

/** Files shorter than this are returned whole. */
export const CURATE_MIN_LINES = 100;
const MAX_RANGES = 8;
const MAX_SHOWN_LINES = 250;
/** Share of the window the side request's file text may take; else only the outline goes. */
const FILE_SHARE_OF_WINDOW = 0.6;

/** The side request's answer. */
const RangesAnswer = z.object({
  ranges: z.array(z.tuple([z.number().int(), z.number().int()])).min(1).max(MAX_RANGES * 2),
});

/** What the curator needs from its surroundings. */
export interface CuratorContext {
  provider: Provider;
  store: GraphStore;
  /** The file's definitions (the graph is refreshed for it first). */
  outline: StoredDefinition[];
  /** Recent conversation text (what the sections should be relevant to). */
  recentText: string;
  /** Text that identifies the conversation's current question (the last user messages). */
  contextText: string;
  contextWindow?: number;
  signal?: AbortSignal;
  now?: () => number;
}

/** A curated read. */
export interface CuratedRead {
  output: string;
  display: string;
  usage?: Usage;
  cached: boolean;
  ranges: Array<[number, number]>;
}

/** Lines of read_file's plain output ("N: text"), by number, or undefined if it is not that. */
export function parseNumberedRead(output: string): Map<number, string> | undefined {
  const lines = new Map<number, string>();
  for (const line of output.split("\n")) {
    const match = /^\s*(\d+): (.*)$/s.exec(line);
    if (match) lines.set(Number(match[1]), match[2]!);
    else if (!line.startsWith("[")) return undefined;
  }
  return lines.size > 0 ? lines : undefined;
}

/**
 * Sorts, clips to `1..total`, merges overlapping or touching ranges and caps the lines shown.
 *
 * @example
 * ```ts
 * import { normaliseRanges } from "./file_curator.ts";
 * const r = normaliseRanges([[50, 60], [1, 5], [58, 70], [900, 999]], 100);
 * if (JSON.stringify(r) !== "[[1,5],[50,70]]") throw new Error(JSON.stringify(r));
 * ```
 */
export function normaliseRanges(
  ranges: ReadonlyArray<readonly [number, number]>,
  total: number,
): Array<[number, number]> {
  const clipped = ranges
    .map(([a, b]) =>
      [Math.max(1, Math.min(a, b)), Math.min(total, Math.max(a, b))] as [number, number]
    )
    .filter(([a, b]) => a <= b && a <= total)
    .sort((x, y) => x[0] - y[0]);
  const merged: Array<[number, number]> = [];
  for (const [a, b] of clipped) {
    const last = merged.at(-1);
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  const kept: Array<[number, number]> = [];
  let budget = MAX_SHOWN_LINES;
  for (const [a, b] of merged.slice(0, MAX_RANGES)) {
    if (budget <= 0) break;
    const end = Math.min(b, a + budget - 1);
    kept.push([a, end]);
    budget -= end - a + 1;
  }
  return kept;
}

function formatRange([a, b]: readonly [number, number]): string {
  return a === b ? `${a}` : `${a}-${b}`;
}

function numbered(lines: Map<number, string>, from: number, to: number, width: number): string[] {
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`${String(n).padStart(width)}: ${lines.get(n) ?? ""}`);
  return out;
}

function sidePrompt(path: string, total: number, body: string, recentText: string): Message[] {
  return [
    {
      kind: "system",
      content: "You choose the parts of a file that matter for a conversation. Reply with JSON " +
        `only, no prose: {"ranges": [[first_line, last_line], ...]}, at most ${MAX_RANGES} ` +
        `ranges and ${MAX_SHOWN_LINES} lines in all, the most relevant first.`,
      data: {},
    },
    {
      kind: "user",
      content:
        `Conversation (most recent last):\n${recentText}\n\nFile ${path} (${total} lines):\n${body}`,
      data: {},
    },
  ];
}

/** The first JSON object in a reply (models wrap JSON in fences or prose). */
function firstJsonObject(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/**
 * Curates a plain read of `path`; undefined means "use the plain read" (short file, bad
 * answer, failed side request).
 *
 * @param path The workspace-relative path.
 * @param plain read_file's plain output for the whole file.
 * @param context The model, the graph, the outline and the conversation.
 */
export async function curateRead(
  path: string,
  plain: string,
  context: CuratorContext,
): Promise<CuratedRead | undefined> {
  const lines = parseNumberedRead(plain);
  if (!lines) return undefined;
  const total = Math.max(...lines.keys());
  if (total < CURATE_MIN_LINES || lines.size !== total) return undefined;
  const fileKey = sha256Hex(`${path}\n${plain}`);
  const contextKey = sha256Hex(context.contextText);
  let ranges = context.store.curatedRanges(fileKey, contextKey);
  let usage: Usage | undefined;
  const cached = ranges !== undefined;
  if (!ranges) {
    const window = context.contextWindow ?? 8192;
    const outlineText = context.outline
      .map((d) => `${formatRange([d.line, d.endLine])}: ${d.signature}`)
      .join("\n");
    const fits = plain.length / 4 < window * FILE_SHARE_OF_WINDOW;
    const body = fits ? plain : `Outline (definitions with their lines):\n${outlineText}`;
    const turn = await context.provider.complete({
      messages: sidePrompt(path, total, body, context.recentText.slice(-4000)),
      tools: [],
      ...(context.signal ? { signal: context.signal } : {}),
    });
    usage = turn.usage;
    if (turn.stopReason === "error" || turn.stopReason === "aborted") return undefined;
    const parsed = RangesAnswer.safeParse(firstJsonObject(turn.text));
    if (!parsed.success) return undefined;
    ranges = normaliseRanges(parsed.data.ranges, total);
    if (ranges.length === 0) return undefined;
    context.store.putCuratedRanges(fileKey, contextKey, ranges);
  }
  const width = String(total).length;
  const out: string[] = [`Outline of ${path} (${total} lines):`];
  for (const d of context.outline) {
    out.push(`  ${formatRange([d.line, d.endLine])}: ${d.kind} ${d.name}`);
  }
  if (context.outline.length === 0) out.push("  (no definitions found)");
  const shown = ranges.map(formatRange).join(", ");
  out.push("", `Sections relevant to the conversation (lines ${shown}):`);
  for (const [a, b] of ranges) {
    out.push(...numbered(lines, a, b, width));
    out.push("...");
  }
  out.pop();
  const shownLines = ranges.reduce((sum, [a, b]) => sum + b - a + 1, 0);
  out.push(
    `[Showed lines ${shown} of ${total}. To read other lines call read_file with offset and limit, e.g. offset ${
      nextUnshown(ranges, total)
    } limit 200.]`,
  );
  const tokens = usage ? usage.promptTokens + usage.completionTokens : 0;
  return {
    output: out.join("\n"),
    display: `Read ${path}: ${ranges.length} section${
      ranges.length === 1 ? "" : "s"
    }, ${shownLines} of ${total} lines${
      cached ? " (curator cache)" : tokens > 0 ? ` (curator used ${tokens} tokens)` : ""
    }`,
    ...(usage ? { usage } : {}),
    cached,
    ranges,
  };
}

function nextUnshown(ranges: ReadonlyArray<readonly [number, number]>, total: number): number {
  let line = 1;
  for (const [a, b] of ranges) {
    if (line < a) return line;
    line = b + 1;
  }
  return line <= total ? line : 1;
}
