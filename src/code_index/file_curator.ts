// The read_file curator: a whole-file read of 100 lines or more that would not fit comfortably
// in the room left (more than half of it) becomes the file's outline from the code graph plus
// the sections relevant to the conversation. The sections are chosen by a short side request
// that repeats the conversation as its next request will send it, with the outline and a
// question as this call's result, so the server reuses its cache: only the question is new,
// and the outline is shared with the result the conversation then gets. Choices are cached by
// (file content, conversation context); anything unexpected falls back to the plain read.

import { READ_FILE } from "../tools/builtin_tools.ts";
import { z } from "zod";
import { makeToolResult, type Message, type ToolSchema, type Usage } from "../messages.ts";
import type { Provider } from "../providers/provider.ts";
import { sha256Hex } from "../platform/sha256_hex.ts";
import type { GraphStore, StoredDefinition } from "./graph_store.ts";

/** Files shorter than this are returned whole. */
export const CURATE_MIN_LINES = 100;
/** A file is curated when it would take more than this share of the room left. */
export const CURATE_SHARE_OF_ROOM = 0.5;
const MAX_RANGES = 8;
const MAX_SHOWN_LINES = 250;

/** The side request's answer. */
const RangesAnswer = z.object({
  ranges: z.array(z.tuple([z.number().int(), z.number().int()])).min(1).max(MAX_RANGES * 2),
});

/** The conversation the side request builds on, up to this call's result. */
export interface SidePrefix {
  /** The messages as the conversation's next request sends them, ending with this call. */
  messages: readonly Message[];
  tools: readonly ToolSchema[];
  /** The id of this read_file call. */
  callId: string;
  /** Tokens the conversation's prompt may still grow by before the window's limit. */
  room: number;
  /** The model's calibrated count of a text. */
  tokens(text: string): number;
}

/** What the curator needs from its surroundings. */
export interface CuratorContext {
  provider: Provider;
  store: GraphStore;
  /** The file's definitions (the graph is refreshed for it first). */
  outline: StoredDefinition[];
  /** Text that identifies the conversation's current question (the last user messages). */
  contextText: string;
  /** The conversation to build on; without it there is no side request. */
  prefix: SidePrefix | undefined;
  signal?: AbortSignal;
}

/** A curated read. */
export interface CuratedRead {
  kind: "curated";
  output: string;
  display: string;
  usage?: Usage;
  cached: boolean;
  ranges: Array<[number, number]>;
}

/** The plain read stands, and why; `usage` when a side request was sent all the same. */
export interface PlainRead {
  kind: "plain";
  reason:
    | "short"
    | "fits"
    | "no_outline"
    | "no_conversation"
    | "bad_answer"
    | "not_shorter";
  usage?: Usage;
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

/** The outline that starts both the side request's question and the curated result. */
function outlineText(path: string, total: number, outline: readonly StoredDefinition[]): string {
  const out: string[] = [`Outline of ${path} (${total} lines):`];
  for (const d of outline) out.push(`  ${formatRange([d.line, d.endLine])}: ${d.kind} ${d.name}`);
  return `${out.join("\n")}\n\n`;
}

/**
 * The side request: the conversation so far, and this call answered by the outline and a short
 * question. Its result is sent without the metadata the real one ends with: what follows the
 * outline is the part the server processes for this request alone.
 */
function sideRequest(prefix: SidePrefix, outline: string, fileTokens: number): Message[] {
  const question = `[Too long to show whole (about ${fileTokens} tokens). Choose the lines ` +
    `that matter now; answer only {"ranges": [[first, last], ...]}, at most ${MAX_RANGES} ` +
    `ranges, ${MAX_SHOWN_LINES} lines.]`;
  const data = `${outline}${question}`;
  return [...prefix.messages, {
    kind: "tool_result",
    content: JSON.stringify({ success: true, data }),
    data: { callId: prefix.callId, name: READ_FILE.name, result: makeToolResult({ data }) },
  }];
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
 * Why a plain read stands before anything is asked (the outline, the model), or undefined when
 * the curator should look further: the file is long and would not fit comfortably.
 *
 * @param plain read_file's plain output for the whole file.
 * @param prefix The conversation the side request would build on.
 *
 * @example
 * ```ts
 * import { plainReason } from "./file_curator.ts";
 * if (plainReason("1: a", undefined) !== "short") throw new Error();
 * ```
 */
export function plainReason(
  plain: string,
  prefix: SidePrefix | undefined,
): "short" | "no_conversation" | "fits" | undefined {
  const lines = parseNumberedRead(plain);
  const total = lines ? Math.max(...lines.keys()) : 0;
  if (!lines || total < CURATE_MIN_LINES || lines.size !== total) return "short";
  if (!prefix) return "no_conversation";
  return prefix.tokens(plain) <= prefix.room * CURATE_SHARE_OF_ROOM ? "fits" : undefined;
}

/**
 * Curates a plain read of `path`, or says why the plain read stands: a short file, a file
 * that fits comfortably in the room left, no outline to choose from, no conversation to build
 * on, a bad answer or a failed side request, or a result no shorter than the plain read.
 *
 * @param path The workspace-relative path.
 * @param plain read_file's plain output for the whole file.
 * @param context The model, the graph, the outline and the conversation.
 */
export async function curateRead(
  path: string,
  plain: string,
  context: CuratorContext,
): Promise<CuratedRead | PlainRead> {
  const prefix = context.prefix;
  const reason = plainReason(plain, prefix);
  if (reason !== undefined || !prefix) return plainRead(reason ?? "no_conversation");
  if (context.outline.length === 0) return plainRead("no_outline");
  const lines = parseNumberedRead(plain)!;
  const total = lines.size;
  const fileTokens = prefix.tokens(plain);
  const fileKey = sha256Hex(`${path}\n${plain}`);
  const contextKey = sha256Hex(context.contextText);
  const outline = outlineText(path, total, context.outline);
  let ranges = context.store.curatedRanges(fileKey, contextKey);
  let usage: Usage | undefined;
  const cached = ranges !== undefined;
  if (!ranges) {
    const turn = await context.provider.complete({
      messages: sideRequest(prefix, outline, fileTokens),
      tools: prefix.tools,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    usage = turn.usage;
    const failed = turn.stopReason === "error" || turn.stopReason === "aborted";
    const parsed = failed ? undefined : RangesAnswer.safeParse(firstJsonObject(turn.text));
    ranges = parsed?.success ? normaliseRanges(parsed.data.ranges, total) : [];
    if (ranges.length === 0) return plainRead("bad_answer", usage);
    context.store.putCuratedRanges(fileKey, contextKey, ranges);
  }
  const output = curatedOutput(outline, lines, ranges, total);
  // Never longer than what it replaces.
  if (output.length >= plain.length) return plainRead("not_shorter", usage);
  const shownLines = ranges.reduce((sum, [a, b]) => sum + b - a + 1, 0);
  const processed = usage ? usage.promptTokens - (usage.reusedTokens ?? 0) : 0;
  const cost = cached
    ? " (curator cache)"
    : usage
    ? ` (curator processed ${processed} prompt tokens)`
    : "";
  return {
    kind: "curated",
    output,
    display: `Read ${path}: ${ranges.length} section${
      ranges.length === 1 ? "" : "s"
    }, ${shownLines} of ${total} lines${cost}`,
    ...(usage ? { usage } : {}),
    cached,
    ranges,
  };
}

/** The plain read stands; a side request's cost is still counted. */
function plainRead(reason: PlainRead["reason"], usage?: Usage): PlainRead {
  return { kind: "plain", reason, ...(usage ? { usage } : {}) };
}

function curatedOutput(
  outline: string,
  lines: Map<number, string>,
  ranges: ReadonlyArray<readonly [number, number]>,
  total: number,
): string {
  const width = String(total).length;
  const shown = ranges.map(formatRange).join(", ");
  const out: string[] = [`Sections relevant to the conversation (lines ${shown}):`];
  for (const [a, b] of ranges) {
    out.push(...numbered(lines, a, b, width));
    out.push("...");
  }
  out.pop();
  out.push(
    `[Showed lines ${shown} of ${total}. To read other lines call read_file with offset and limit, e.g. offset ${
      nextUnshown(ranges, total)
    } limit 200.]`,
  );
  return `${outline}${out.join("\n")}`;
}

function nextUnshown(ranges: ReadonlyArray<readonly [number, number]>, total: number): number {
  let line = 1;
  for (const [a, b] of ranges) {
    if (line < a) return line;
    line = b + 1;
  }
  return line <= total ? line : 1;
}
