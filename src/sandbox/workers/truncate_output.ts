// Output caps for tool results, applied by the tool host to `data` before the result reaches
// the model: a hard byte cap (`max_output_size`, default 1 MiB) and a context cap
// (`tool_output_limit`, default 30,000 characters) that keeps head and tail and can save the
// output whole (up to 33 MiB) under the session's data folder so the model can read_file it;
// the note says what the file holds and how large the output really was. That folder is the
// workspace's own (workspaceDataDir), and folders and files are owner-only. A tool that cut
// its own output and saved it there (run_command's job log) gets the same metadata, naming
// its file once the host has checked it is one of that folder's.

import { humanSize } from "../../platform/human_size.ts";
import { dirname, isAbsolute, join, normalize } from "../../platform/paths.ts";
import { makeToolResult, type ToolResult } from "../../messages.ts";
import { ensurePrivateDir, toolOutputsDir } from "../../config/folders.ts";

/** Default hard cap on a tool's output, in bytes. */
export const DEFAULT_MAX_OUTPUT_SIZE = 1024 * 1024;
/** Default cap on what the model sees of one tool output, in characters. */
export const DEFAULT_TOOL_OUTPUT_LIMIT = 30_000;
/** Most bytes of one output saved to a file for the model to read_file (a job log keeps more). */
export const MAX_SAVED_OUTPUT_BYTES = 33 * 1024 * 1024;

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes (never inside a character) and appends
 * `[... N bytes truncated ...]`.
 *
 * @returns The text and how many bytes were cut (0 when it fit).
 *
 * @example
 * ```ts
 * import { truncateBytes } from "./truncate_output.ts";
 * const r = truncateBytes("abcdef", 4);
 * if (r.text !== "abcd\n[... 2 bytes truncated ...]" || r.cut !== 2) throw new Error(r.text);
 * ```
 */
export function truncateBytes(text: string, maxBytes: number): { text: string; cut: number } {
  // Cheap exit: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (text.length * 3 <= maxBytes) return { text, cut: 0 };
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, cut: 0 };
  let end = Math.max(0, maxBytes);
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // back off to a character start
  const cut = bytes.length - end;
  const head = new TextDecoder().decode(bytes.subarray(0, end));
  return { text: `${head}\n[... ${cut} bytes truncated ...]`, cut };
}

function safeEnd(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index; // keep surrogate pairs whole
}

/**
 * Keeps the head and tail of `text` so the result stays within `limit` characters, with a
 * marker saying how much was cut (and where the output is saved, when `fullOutputPath` is
 * given: `saved` says what the file holds, by default "full output"). `cut` counts the
 * characters left out, `cutBytes` their UTF-8 bytes.
 *
 * @example
 * ```ts
 * import { truncateMiddle } from "./truncate_output.ts";
 * const r = truncateMiddle("x".repeat(1000), { limit: 200 });
 * if (r.cut === 0 || r.text.length > 200 || !r.text.includes("characters cut")) throw new Error();
 * ```
 */
export function truncateMiddle(
  text: string,
  options: {
    limit: number;
    fullOutputPath?: string;
    /** What the saved file holds, e.g. "the whole output (2.1 MB)". */
    saved?: string;
  },
): { text: string; cut: number; cutBytes: number } {
  if (text.length <= options.limit) return { text, cut: 0, cutBytes: 0 };
  const saved = `${options.saved ?? "full output"} saved to`;
  const where = options.fullOutputPath === undefined
    ? ""
    : `; ${saved} "${options.fullOutputPath}": read_file it with offset and limit for the rest`;
  // The marker's digits depend on the cut, so size it for the worst case first.
  const markerFor = (cut: number) => `\n\n[... ${cut} characters cut${where} ...]\n\n`;
  const room = Math.max(0, options.limit - markerFor(text.length).length);
  const headLength = safeEnd(text, Math.ceil(room / 2));
  let tailStart = text.length - (room - headLength);
  if (tailStart < text.length && /[\udc00-\udfff]/.test(text[tailStart]!)) tailStart++;
  const cut = tailStart - headLength;
  return {
    text: `${text.slice(0, headLength)}${markerFor(cut)}${text.slice(tailStart)}`,
    cut,
    cutBytes: byteLength(text.slice(headLength, tailStart)),
  };
}

/**
 * A tool's own cut (ToolOutput.cutOutput): the bytes it left out, and the saved output that
 * holds the whole output or its start, as the host found it ({@linkcode savedOutputFile}).
 */
export interface ToolCut {
  bytes: number;
  saved?: { path: string; bytes: number };
}

type Truncated = NonNullable<ToolResult["metadata"]["truncated"]>;

/**
 * Applies both caps to a result's `data` and records the cut in `metadata.truncated`
 * (the context cap wins when both apply, since it names the saved file). When `dataDir`
 * is given and the context cap applies, the output (whole up to MAX_SAVED_OUTPUT_BYTES, its
 * start beyond) is written to `<dataDir>/tool_outputs/<tool>-<time>.txt`, readable only by
 * its owner (folders 0700, file 0600, also when the folders already existed); the note and
 * `metadata.truncated` give what the file holds and how large the output was (`outputBytes`:
 * what the tool produced before it cut its output itself). A tool that cut its own output
 * (`toolCut`, run_command) gets metadata in bytes though the caps cut nothing more, naming
 * the file it saved instead of a new one.
 *
 * @example
 * ```ts
 * import { makeToolResult } from "../../messages.ts";
 * import { truncateToolResult } from "./truncate_output.ts";
 * const r = await truncateToolResult(makeToolResult({ data: "y".repeat(500) }), { toolOutputLimit: 100 });
 * if (r.metadata.truncated?.unit !== "chars") throw new Error();
 * ```
 */
export async function truncateToolResult(
  result: ToolResult,
  options: {
    maxOutputSize?: number;
    toolOutputLimit?: number;
    dataDir?: string;
    tool?: string;
    outputBytes?: number;
    toolCut?: ToolCut;
  },
): Promise<ToolResult> {
  if (result.data === null) return result;
  const limit = options.toolOutputLimit ?? DEFAULT_TOOL_OUTPUT_LIMIT;
  const capped = truncateBytes(result.data, options.maxOutputSize ?? DEFAULT_MAX_OUTPUT_SIZE);
  if (options.toolCut !== undefined) {
    return withTruncated(result, toolCutAgain(result.data, capped, { ...options, limit }));
  }
  if (capped.cut === 0 && capped.text.length <= limit) return result;
  let truncated: Truncated = { cut: capped.cut, unit: "bytes" };
  let text = capped.text;
  if (text.length > limit) {
    const saved = options.dataDir === undefined
      ? undefined
      : await saveOutput(result.data, { ...options, dataDir: options.dataDir });
    const middle = truncateMiddle(
      text,
      saved === undefined ? { limit } : { limit, fullOutputPath: saved.path, saved: saved.what },
    );
    text = middle.text;
    truncated = saved === undefined ? { cut: middle.cut, unit: "chars" } : {
      cut: middle.cut,
      unit: "chars",
      full_output_path: saved.path,
      saved_bytes: saved.bytes,
      output_bytes: saved.outputBytes,
    };
  }
  return withTruncated(result, { text, truncated });
}

/**
 * The text and metadata of an output the tool cut itself: cut again by the caps when it is
 * still too long (pointing to the tool's file, or to none), with the bytes both cuts left out.
 */
function toolCutAgain(
  data: string,
  capped: { text: string; cut: number },
  options: { limit: number; outputBytes?: number; toolCut?: ToolCut },
): { text: string; truncated: Truncated } {
  const { bytes, saved } = options.toolCut!;
  const outputBytes = options.outputBytes ?? byteLength(data);
  let text = capped.text;
  let cut = bytes + capped.cut;
  if (text.length > options.limit) {
    const what = saved === undefined
      ? undefined
      : saved.bytes >= outputBytes
      ? `the whole output (${humanSize(outputBytes)})`
      : `the first ${humanSize(saved.bytes)} of the ${humanSize(outputBytes)} output`;
    const middle = truncateMiddle(text, {
      limit: options.limit,
      ...(saved === undefined ? {} : { fullOutputPath: saved.path, saved: what! }),
    });
    cut += middle.cutBytes;
    text = middle.text;
  }
  return {
    text,
    truncated: {
      cut,
      unit: "bytes",
      ...(saved === undefined ? {} : { full_output_path: saved.path, saved_bytes: saved.bytes }),
      output_bytes: outputBytes,
    },
  };
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** A copy of `result` with `text` as its data and `truncated` in its metadata. */
function withTruncated(
  result: ToolResult,
  cut: { text: string; truncated: Truncated },
): ToolResult {
  const next = makeToolResult({
    data: cut.text,
    errorType: result.error_type,
    executionTimeMs: result.metadata.execution_time_ms,
    now: new Date(result.metadata.timestamp),
    ...(result.error_message === null ? {} : { errorMessage: result.error_message }),
  });
  next.metadata.truncated = cut.truncated;
  return next;
}

/**
 * The file a tool names as its saved output (ToolOutput.cutOutput.path), with its size, when
 * it is one of this workspace's saved outputs: a regular file (not a link) right in
 * `<dataDir>/tool_outputs`. Anything else is not harness's to name.
 *
 * @example
 * ```ts
 * import { savedOutputFile } from "./truncate_output.ts";
 * if (await savedOutputFile("/etc/passwd", "/tmp/data") !== undefined) throw new Error();
 * ```
 */
export async function savedOutputFile(
  path: string,
  dataDir: string,
): Promise<{ path: string; bytes: number } | undefined> {
  const dir = toolOutputsDir(dataDir);
  if (!isAbsolute(path) || normalize(path) !== path || dirname(path) !== dir) return undefined;
  try {
    // lstat: a link is not a file of harness's, wherever it points.
    const info = await Deno.lstat(path);
    return info.isFile ? { path, bytes: info.size } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes a tool's output for read_file: whole up to MAX_SAVED_OUTPUT_BYTES, its start beyond.
 * Returns where, how many bytes, the real size and words for what the file holds; undefined
 * when it cannot be written (the cut output still goes out; only the pointer is lost).
 */
async function saveOutput(
  data: string,
  options: { dataDir: string; tool?: string; outputBytes?: number },
): Promise<{ path: string; bytes: number; outputBytes: number; what: string } | undefined> {
  const dir = toolOutputsDir(options.dataDir);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const suffix = Math.random().toString(36).slice(2, 8);
  const name = (options.tool ?? "tool").replace(/[^\w-]/g, "_");
  const path = join(dir, `${name}-${stamp}-${suffix}.txt`);
  const file = truncateBytes(data, MAX_SAVED_OUTPUT_BYTES);
  const bytes = new TextEncoder().encode(file.text);
  const dataBytes = file.cut === 0 ? bytes.length : new TextEncoder().encode(data).length;
  const outputBytes = options.outputBytes ?? dataBytes;
  const kept = humanSize(bytes.length);
  const what = file.cut > 0
    ? `the first ${kept} of the ${humanSize(outputBytes)} output`
    : options.outputBytes !== undefined
    ? `${kept} of the ${humanSize(outputBytes)} output (its start and end; the tool did not keep ` +
      "its middle)"
    : `the whole output (${humanSize(outputBytes)})`;
  try {
    ensurePrivateDir(options.dataDir);
    ensurePrivateDir(dir);
    await Deno.writeFile(path, bytes, { mode: 0o600, createNew: true });
    return { path, bytes: bytes.length, outputBytes, what };
  } catch {
    return undefined;
  }
}
