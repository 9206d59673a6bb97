// The image side of read_file: a file whose first bytes are a PNG, JPEG, GIF or WebP signature
// (whatever its name) is read whole for the model to see, through the tool's file port and the
// same checks as text (a regular file, at most 10 MB). The host checks and hashes the bytes
// again and leaves them out when the model cannot see.

import { sniffImageType } from "../../platform/image_file.ts";
import { ToolError } from "../define_tool.ts";
import type { FilePort } from "../file_port.ts";
import { MAX_TEXT_FILE_BYTES } from "./read_text_file.ts";
import { formatBytes } from "./text_file.ts";

/** An image file read for the model. */
export interface ImageFile {
  bytes: Uint8Array;
  /** "PNG", "JPEG", "GIF" or "WebP". */
  format: string;
}

/**
 * Reads a file as an image when its first bytes say it is one.
 *
 * @param files The tool's file port (ctx.files).
 * @param absPath Real absolute path (from ctx.resolve).
 * @param path The workspace-relative path, for messages.
 * @returns The image, or undefined for any other file.
 * @throws {ToolError} An image over 10 MB; what the port refuses (not a regular file, missing).
 *
 * @example
 * ```ts
 * import { readImageIfAny } from "./read_image.ts";
 * import { localFiles } from "../local_files.ts";
 * const file = Deno.realPathSync(await Deno.makeTempFile());
 * await Deno.writeFile(file, new TextEncoder().encode("GIF89a......"));
 * if ((await readImageIfAny(localFiles, file, "a.gif"))?.format !== "GIF") throw new Error();
 * await Deno.writeTextFile(file, "just text");
 * if (await readImageIfAny(localFiles, file, "a.gif") !== undefined) throw new Error();
 * await Deno.remove(file);
 * ```
 */
export async function readImageIfAny(
  files: FilePort,
  absPath: string,
  path: string,
): Promise<ImageFile | undefined> {
  const head = await files.read(absPath, path, { head: 16 });
  const mediaType = sniffImageType(head);
  if (mediaType === undefined) return undefined;
  const size = (await files.stat(absPath))?.size ?? 0;
  if (size > MAX_TEXT_FILE_BYTES) {
    throw new ToolError(
      "validation_failed",
      `"${path}" is an image of ${formatBytes(size)}, over the 10 MB read_file reads`,
    );
  }
  const bytes = await files.read(absPath, path);
  const format = { "image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF" }[
    mediaType as "image/png"
  ] ?? "WebP";
  return { bytes, format };
}
