// Text-file helpers shared by the built-in file tools (read_file, write_file, edit_file,
// replace_lines, insert_lines). They run inside the sandbox worker: binary checks, error
// mapping, line splitting that keeps the file's line endings, and atomic writes (temp file +
// rename). Reading and decoding live in read_text_file.ts.

import { basename, dirname, join } from "../../platform/paths.ts";
import { ToolError } from "../define_tool.ts";
import { assertStillReal, openVerified } from "../verified_fs.ts";

/** Bytes inspected for a NUL byte to decide that a file is binary (as git and ripgrep do). */
export const BINARY_SNIFF_BYTES = 8192;

/**
 * Tells whether a buffer looks binary: a NUL byte in its first 8 KB.
 *
 * @param bytes File content (or its beginning).
 * @returns true when a NUL byte appears in the sniffed prefix.
 *
 * @example
 * ```ts
 * import { looksBinary } from "./text_file.ts";
 * if (!looksBinary(new Uint8Array([104, 0, 105]))) throw new Error();
 * ```
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  return bytes.subarray(0, end).indexOf(0) !== -1;
}

/**
 * Converts a thrown file-system error into a ToolError for the model.
 * `Deno.errors.NotCapable` (a sandbox denial) and ToolErrors pass through unchanged.
 *
 * @param error What was thrown.
 * @param path The workspace-relative path the model gave.
 * @returns The error to throw.
 *
 * @example
 * ```ts
 * import { toFileToolError } from "./text_file.ts";
 * const e = toFileToolError(new Deno.errors.NotFound("x"), "a.txt");
 * if (!(e instanceof Error) || !e.message.includes("a.txt")) throw new Error();
 * ```
 */
export function toFileToolError(error: unknown, path: string): unknown {
  if (error instanceof ToolError || error instanceof Deno.errors.NotCapable) return error;
  if (error instanceof Deno.errors.NotFound) {
    return new ToolError("not_found", `File "${path}" does not exist: check the path with ls`);
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new ToolError("permission_denied", `The OS denied access to "${path}"`);
  }
  if (error instanceof Deno.errors.IsADirectory) {
    return new ToolError("validation_failed", `"${path}" is a directory: use ls to list it`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError("io_error", `Cannot access "${path}": ${message}`);
}

/** A text file split into lines, remembering how to join them back. */
export interface TextLines {
  lines: string[];
  /** The line ending the file uses ("\r\n" when its first line break is CRLF). */
  eol: "\n" | "\r\n";
  /** Whether the last line ends with a line break. */
  finalNewline: boolean;
}

/**
 * Splits text into lines, recording the line ending and whether the text ends with one.
 *
 * @param text File content.
 * @returns Lines without their line breaks.
 *
 * @example
 * ```ts
 * import { splitLines } from "./text_file.ts";
 * const t = splitLines("a\r\nb\r\n");
 * if (t.lines.length !== 2 || t.eol !== "\r\n" || !t.finalNewline) throw new Error();
 * ```
 */
export function splitLines(text: string): TextLines {
  const firstBreak = text.indexOf("\n");
  const eol = firstBreak > 0 && text[firstBreak - 1] === "\r" ? "\r\n" : "\n";
  if (text === "") return { lines: [], eol, finalNewline: false };
  const finalNewline = text.endsWith("\n");
  const body = finalNewline ? text.slice(0, text.endsWith("\r\n") ? -2 : -1) : text;
  return { lines: body.split(/\r?\n/), eol, finalNewline };
}

/**
 * Joins lines back into text with the file's line ending.
 *
 * @param file Lines, line ending and final-newline flag (as from splitLines).
 * @returns The text.
 *
 * @example
 * ```ts
 * import { joinLines, splitLines } from "./text_file.ts";
 * if (joinLines(splitLines("a\nb\n")) !== "a\nb\n") throw new Error();
 * ```
 */
export function joinLines(file: TextLines): string {
  if (file.lines.length === 0) return "";
  return file.lines.join(file.eol) + (file.finalNewline ? file.eol : "");
}

/**
 * Splits new content supplied by the model into lines. One trailing line break is dropped
 * (the file's own line ending is used when joining); an empty string gives no lines.
 *
 * @param content Text the model sent.
 * @returns Its lines.
 *
 * @example
 * ```ts
 * import { contentLines } from "./text_file.ts";
 * if (contentLines("a\nb\n").length !== 2 || contentLines("").length !== 0) throw new Error();
 * ```
 */
export function contentLines(content: string): string[] {
  if (content === "") return [];
  const trimmed = content.endsWith("\r\n")
    ? content.slice(0, -2)
    : content.endsWith("\n")
    ? content.slice(0, -1)
    : content;
  return trimmed.split(/\r?\n/);
}

/**
 * Writes a file atomically: a temp file in the same folder, then a rename over the target.
 * Creates missing parent folders and keeps the mode of a file it replaces. `absPath` is the
 * real path from ctx.resolve (a symbolic link inside the workspace is already resolved to its
 * checked target); the folder and the temp file are verified after they are created, so a
 * folder swapped for a link meanwhile is noticed (verified_fs.ts). The rename gives the path
 * a new file: other hard links to the old file keep the old content, so a write never reaches
 * a file outside the workspace through a hard link; `links` says how many names it had.
 *
 * @param absPath Real absolute path (from ctx.resolve).
 * @param content Bytes or text to write.
 * @param path The path the model gave, for messages (default `absPath`).
 * @returns The number of bytes written, whether the file existed before, and how many hard
 *   links the replaced file had (1 for a new file).
 *
 * @example
 * ```ts
 * import { writeFileAtomic } from "./text_file.ts";
 * const dir = Deno.realPathSync(await Deno.makeTempDir());
 * const r = writeFileAtomic(`${dir}/a/b.txt`, "hi");
 * if (r.bytes !== 2 || r.existed) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function writeFileAtomic(
  absPath: string,
  content: string | Uint8Array,
  path: string = absPath,
): { bytes: number; existed: boolean; links: number } {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  let mode: number | null = null;
  let existed = false;
  let links = 1;
  try {
    const info = Deno.statSync(absPath);
    existed = true;
    if (info.isDirectory) throw new Deno.errors.IsADirectory(absPath);
    mode = info.mode;
    links = info.nlink ?? 1;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const folder = dirname(absPath);
  Deno.mkdirSync(folder, { recursive: true });
  assertStillReal(folder, path);
  const suffix = crypto.randomUUID().slice(0, 8);
  const temp = join(folder, `.${basename(absPath)}.${suffix}.tmp`);
  const keepMode = mode === null ? {} : { mode: mode & 0o7777 };
  try {
    const { file } = openVerified(temp, path, { write: true, createNew: true, ...keepMode });
    try {
      for (let at = 0; at < bytes.length;) at += file.writeSync(bytes.subarray(at));
    } finally {
      file.close(); // before the rename, which Windows refuses on an open file
    }
    if (mode !== null && Deno.build.os !== "windows") Deno.chmodSync(temp, mode & 0o7777);
    Deno.renameSync(temp, absPath);
  } catch (error) {
    try {
      Deno.removeSync(temp);
    } catch { /* the temp file may not exist */ }
    throw error;
  }
  return { bytes: bytes.length, existed, links };
}

/**
 * A note for a write result when the replaced file had other hard links: they keep the old
 * content (the write gave this path a new file).
 *
 * @param links Hard links the replaced file had (from writeFileAtomic).
 * @returns The note, or "" for a file with one link.
 *
 * @example
 * ```ts
 * import { hardLinkNote } from "./text_file.ts";
 * if (hardLinkNote(1) !== "" || !hardLinkNote(2).includes("1 other")) throw new Error();
 * ```
 */
export function hardLinkNote(links: number): string {
  if (links <= 1) return "";
  const others = links - 1;
  return ` Note: the file had ${others} other hard link${others === 1 ? "" : "s"}, which keep ` +
    `the old content: the write replaced this path only.`;
}

/**
 * Formats a byte count for people: B, KB, MB or GB (powers of 1024).
 *
 * @param bytes Byte count.
 * @returns e.g. "1.5 KB".
 *
 * @example
 * ```ts
 * import { formatBytes } from "./text_file.ts";
 * if (formatBytes(1536) !== "1.5 KB") throw new Error(formatBytes(1536));
 * ```
 */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"] as const;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${bytes} B`;
  return `${value >= 100 ? Math.round(value) : Number(value.toFixed(1))} ${units[unit]}`;
}

/**
 * Checks a 1-based line range against a file and throws validation_failed with the valid
 * range when it does not fit.
 *
 * @param range line_start and line_end from the model; `maxStart` is the largest allowed
 * start and `maxEnd` the largest allowed end; `path` names the file in messages.
 *
 * @example
 * ```ts
 * import { checkLineRange } from "./text_file.ts";
 * checkLineRange({ lineStart: 1, lineEnd: 2, maxStart: 3, maxEnd: 3, path: "a" });
 * ```
 */
export function checkLineRange(
  range: { lineStart: number; lineEnd: number; maxStart: number; maxEnd: number; path: string },
): void {
  const { lineStart, lineEnd, maxStart, maxEnd, path } = range;
  const valid = maxStart < 1
    ? `"${path}" is empty, so no line range is valid`
    : `valid lines are 1-${maxEnd}`;
  if (lineStart < 1) {
    throw new ToolError("validation_failed", `line_start ${lineStart} is below 1: ${valid}`);
  }
  if (lineEnd < lineStart) {
    throw new ToolError(
      "validation_failed",
      `line_end ${lineEnd} is before line_start ${lineStart}: line_end must be >= line_start (${valid})`,
    );
  }
  if (lineStart > maxStart || lineEnd > maxEnd) {
    throw new ToolError(
      "validation_failed",
      `lines ${lineStart}-${lineEnd} are past the end of "${path}": ${valid}`,
    );
  }
}
