// The image side of read_file: a file whose first bytes are a PNG, JPEG, GIF or WebP signature
// (whatever its name) is read whole for the model to see, through the same checks as text
// (a regular file, opened by its real path and verified, at most 10 MB). The host checks and
// hashes the bytes again and leaves them out when the model cannot see.

import { sniffImageType } from "../../platform/image_file.ts";
import { ToolError } from "../define_tool.ts";
import { openVerified, readAllSync } from "../verified_fs.ts";
import { MAX_TEXT_FILE_BYTES } from "./read_text_file.ts";
import { formatBytes, toFileToolError } from "./text_file.ts";

/** An image file read for the model. */
export interface ImageFile {
  bytes: Uint8Array;
  /** "PNG", "JPEG", "GIF" or "WebP". */
  format: string;
}

/**
 * Reads a file as an image when its first bytes say it is one.
 *
 * @param absPath Real absolute path (from ctx.resolve).
 * @param path The workspace-relative path, for messages.
 * @returns The image, or undefined for any other file (and for what is not a regular file,
 *   which the text reader then refuses with its own message).
 * @throws {ToolError} An image over 10 MB; io_error.
 *
 * @example
 * ```ts
 * import { readImageIfAny } from "./read_image.ts";
 * const file = Deno.realPathSync(await Deno.makeTempFile());
 * await Deno.writeFile(file, new TextEncoder().encode("GIF89a......"));
 * if (readImageIfAny(file, "a.gif")?.format !== "GIF") throw new Error();
 * await Deno.writeTextFile(file, "just text");
 * if (readImageIfAny(file, "a.gif") !== undefined) throw new Error();
 * await Deno.remove(file);
 * ```
 */
export function readImageIfAny(absPath: string, path: string): ImageFile | undefined {
  try {
    if (!Deno.statSync(absPath).isFile) return undefined; // a FIFO must not be opened
    const opened = openVerified(absPath, path);
    using file = opened.file;
    if (!opened.info.isFile) return undefined;
    const head = new Uint8Array(16);
    const read = file.readSync(head) ?? 0;
    const mediaType = sniffImageType(head.subarray(0, read));
    if (mediaType === undefined) return undefined;
    if (opened.info.size > MAX_TEXT_FILE_BYTES) {
      throw new ToolError(
        "validation_failed",
        `"${path}" is an image of ${formatBytes(opened.info.size)}, over the 10 MB read_file reads`,
      );
    }
    file.seekSync(0, Deno.SeekMode.Start);
    const bytes = readAllSync(file, opened.info.size);
    const format = { "image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF" }[
      mediaType as "image/png"
    ] ?? "WebP";
    return { bytes, format };
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw toFileToolError(error, path);
  }
}
