// Reading side of the built-in file tools (read_file, edit_file, replace_lines, insert_lines):
// refuses what is not a regular file before opening it (a FIFO would block the worker), binaries
// and files over 10 MB, then decodes UTF-8 while recording a BOM and whether the bytes were valid,
// so edits can write the BOM back and refuse files they would corrupt. The tools read through
// their file port (ctx.files: readText, readEditableText); the port of a worker reads with
// readFileBytes.

import { ToolError } from "../define_tool.ts";
import { formatBytes, looksBinary, toFileToolError } from "./text_file.ts";
import { openVerified, readAllSync } from "../verified_fs.ts";
import type { FilePort } from "../file_port.ts";

/** Largest file the text tools will load. */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** A decoded text file. */
export interface TextFileContent {
  /** The decoded text, without a leading byte order mark. */
  text: string;
  /** Whether the file starts with a UTF-8 byte order mark (EF BB BF). */
  bom: boolean;
  /** Whether the bytes are valid UTF-8; invalid sequences were decoded as U+FFFD. */
  validUtf8: boolean;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * Decodes UTF-8 bytes, splitting off a leading BOM and checking that every sequence is valid.
 * Only the first BOM is split off; a second U+FEFF stays in the text, so nothing is lost.
 *
 * @param bytes File content.
 * @returns The text, whether a BOM was present and whether the bytes were valid UTF-8.
 *
 * @example
 * ```ts
 * import { decodeUtf8 } from "./read_text_file.ts";
 * const d = decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0xe9]));
 * if (!d.bom || d.validUtf8 || d.text !== "h\ufffd") throw new Error(JSON.stringify(d));
 * ```
 */
export function decodeUtf8(bytes: Uint8Array): TextFileContent {
  const bom = UTF8_BOM.every((byte, i) => bytes[i] === byte);
  const body = bom ? bytes.subarray(UTF8_BOM.length) : bytes;
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
    return { text, bom, validUtf8: true };
  } catch {
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(body);
    return { text, bom, validUtf8: false };
  }
}

/**
 * Puts the byte order mark back in front of text read by readTextFile, for writing it back.
 *
 * @param content Text and whether the file had a BOM.
 * @returns The text to write.
 *
 * @example
 * ```ts
 * import { withBom } from "./read_text_file.ts";
 * if (withBom({ text: "a", bom: true }) !== "\ufeffa") throw new Error();
 * ```
 */
export function withBom(content: { text: string; bom: boolean }): string {
  return content.bom ? `\ufeff${content.text}` : content.text;
}

/** What a non-regular, non-directory file is, for messages. */
function describeSpecial(info: Deno.FileInfo): string {
  if (info.isFifo) return "a named pipe (FIFO)";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice || info.isBlockDevice) return "a device";
  return "not a regular file";
}

/** Refuses what text tools do not read: folders, special files and files over 10 MB. */
function checkReadable(info: Deno.FileInfo, path: string): void {
  if (info.isDirectory) {
    throw new ToolError("validation_failed", `"${path}" is a directory: use ls to list it`);
  }
  if (!info.isFile) {
    throw new ToolError(
      "validation_failed",
      `"${path}" is ${describeSpecial(info)}, not a regular file: ` +
        `text tools only read regular files`,
    );
  }
  if (info.size > MAX_TEXT_FILE_BYTES) {
    throw new ToolError(
      "validation_failed",
      `"${path}" is ${formatBytes(info.size)}, over the 10 MB limit for text tools: ` +
        `use grep_search to find the lines you need, or run_command with head/tail`,
    );
  }
}

/**
 * Reads a text file, refusing directories, FIFOs, sockets and devices (checked after following
 * symlinks, before opening), binaries and files over 10 MB. The file is opened by its real
 * path and verified after the open (verified_fs.ts), so a folder swapped for a symbolic link
 * after ctx.resolve checked the path is noticed instead of followed.
 *
 * @param absPath Real absolute path (from ctx.resolve).
 * @param path The workspace-relative path, for messages.
 * @returns The decoded text, BOM flag and UTF-8 validity.
 * @throws {ToolError} not_found, validation_failed (not a regular file, binary, too large),
 *   io_error.
 *
 * @example
 * ```ts
 * import { readTextFile } from "./read_text_file.ts";
 * const file = Deno.realPathSync(await Deno.makeTempFile());
 * await Deno.writeTextFile(file, "hi\n");
 * if (readTextFile(file, "f.txt").text !== "hi\n") throw new Error();
 * await Deno.remove(file);
 * ```
 */
export function readTextFile(absPath: string, path: string): TextFileContent {
  return textOf(readFileBytes(absPath, path), path);
}

/**
 * The bytes of a regular file of at most 10 MB: the checks of readTextFile without the
 * decoding (what `ctx.files.read` does in a worker, local_files.ts).
 *
 * @param absPath Real absolute path (from ctx.resolve).
 * @param path The workspace-relative path, for messages.
 * @param head Read only this many bytes from the start (any file size).
 * @returns The bytes.
 * @throws {ToolError} not_found, validation_failed (not a regular file, too large), io_error.
 */
export function readFileBytes(absPath: string, path: string, head?: number): Uint8Array {
  try {
    // Checked before opening: opening a FIFO would block the worker.
    const info = Deno.statSync(absPath);
    checkReadable(head === undefined ? info : { ...info, size: 0 }, path);
    const opened = openVerified(absPath, path);
    using file = opened.file;
    // What was opened, in case it changed since the stat.
    checkReadable(head === undefined ? opened.info : { ...opened.info, size: 0 }, path);
    if (head !== undefined) {
      const bytes = new Uint8Array(head);
      return bytes.subarray(0, file.readSync(bytes) ?? 0);
    }
    const bytes = readAllSync(file, opened.info.size);
    if (bytes.length > MAX_TEXT_FILE_BYTES) {
      checkReadable({ ...opened.info, size: bytes.length }, path);
    }
    return bytes;
  } catch (error) {
    throw toFileToolError(error, path);
  }
}

/**
 * A file's bytes as text: binaries are refused, UTF-8 is decoded with its BOM and validity.
 *
 * @param bytes The file's bytes.
 * @param path The workspace-relative path, for messages.
 * @returns The decoded text.
 * @throws {ToolError} validation_failed for a binary file.
 *
 * @example
 * ```ts
 * import { textOf } from "./read_text_file.ts";
 * if (textOf(new TextEncoder().encode("hi"), "a.txt").text !== "hi") throw new Error();
 * ```
 */
export function textOf(bytes: Uint8Array, path: string): TextFileContent {
  if (looksBinary(bytes)) {
    throw new ToolError(
      "validation_failed",
      `"${path}" is a binary file (it contains NUL bytes): text tools cannot read it`,
    );
  }
  return decodeUtf8(bytes);
}

/**
 * Reads a text file through a tool's file port (`ctx.files`), with readTextFile's checks.
 *
 * @param files The port.
 * @param absPath Real absolute path (from ctx.resolve).
 * @param path The workspace-relative path, for messages.
 * @returns The decoded text.
 */
export async function readText(
  files: FilePort,
  absPath: string,
  path: string,
): Promise<TextFileContent> {
  return textOf(await files.read(absPath, path), path);
}

/**
 * Reads a text file for an edit through a tool's file port: readText, refusing a file that is
 * not valid UTF-8 (readEditableTextFile's rule).
 *
 * @param files The port.
 * @param absPath Real absolute path (from ctx.resolve).
 * @param path The workspace-relative path, for messages.
 * @returns The decoded text and BOM flag; write it back with withBom().
 */
export async function readEditableText(
  files: FilePort,
  absPath: string,
  path: string,
): Promise<TextFileContent> {
  return editable(await readText(files, absPath, path), path);
}

/**
 * Reads a text file for an edit: like readTextFile, but refuses a file that is not valid
 * UTF-8, since writing the decoded text back would turn its other bytes into U+FFFD.
 *
 * @param absPath Real absolute path (from ctx.resolve).
 * @param path The workspace-relative path, for messages.
 * @returns The decoded text and BOM flag; write it back with withBom().
 * @throws {ToolError} as readTextFile, and validation_failed for invalid UTF-8.
 *
 * @example
 * ```ts
 * import { readEditableTextFile } from "./read_text_file.ts";
 * const file = Deno.realPathSync(await Deno.makeTempFile());
 * await Deno.writeFile(file, new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
 * let refused = false;
 * try {
 *   readEditableTextFile(file, "latin1.txt");
 * } catch {
 *   refused = true;
 * }
 * await Deno.remove(file);
 * if (!refused) throw new Error();
 * ```
 */
export function readEditableTextFile(absPath: string, path: string): TextFileContent {
  return editable(readTextFile(absPath, path), path);
}

function editable(content: TextFileContent, path: string): TextFileContent {
  if (!content.validUtf8) {
    throw new ToolError(
      "validation_failed",
      `"${path}" is not valid UTF-8 (another encoding, such as Latin-1?), so editing it would ` +
        `corrupt the bytes that do not decode: use write_file to replace the whole file, or ` +
        `run_command to convert it (e.g. iconv)`,
    );
  }
  return content;
}
