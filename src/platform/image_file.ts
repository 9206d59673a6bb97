// Images for the model: the four formats vision servers take (PNG, JPEG, GIF, WebP), told
// apart by their first bytes (a renamed file is refused, whatever its extension says), under a
// size limit, as an ImagePart (base64 with its SHA-256). Used for `@pic.png`, a pasted image
// path, read_file of an image and the images an editor sends.

import type { ImageMediaType, ImagePart } from "../messages.ts";
import { humanSize } from "./human_size.ts";
import { bytesToBase64 } from "./base64.ts";

/** File name endings of the formats harness sends. */
export const IMAGE_EXTENSIONS: readonly string[] = [".png", ".jpg", ".jpeg", ".gif", ".webp"];

/**
 * The image format of some bytes, by their signature; undefined for anything else.
 *
 * @param bytes The file's first bytes (12 are enough).
 * @returns The media type.
 *
 * @example
 * ```ts
 * import { sniffImageType } from "./image_file.ts";
 * const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
 * if (sniffImageType(png) !== "image/png") throw new Error();
 * if (sniffImageType(new TextEncoder().encode("<svg>")) !== undefined) throw new Error();
 * ```
 */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
  const at = (offset: number, signature: readonly number[]) =>
    signature.every((byte, index) => bytes[offset + index] === byte);
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (at(0, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (at(0, [0x47, 0x49, 0x46, 0x38]) && (at(4, [0x37, 0x61]) || at(4, [0x39, 0x61]))) {
    return "image/gif";
  }
  if (at(0, [0x52, 0x49, 0x46, 0x46]) && at(8, [0x57, 0x45, 0x42, 0x50])) return "image/webp";
  return undefined;
}

/**
 * Whether a path's name ends like an image harness can send.
 *
 * @example
 * ```ts
 * import { hasImageExtension } from "./image_file.ts";
 * if (!hasImageExtension("shot.PNG") || hasImageExtension("a.svg")) throw new Error();
 * ```
 */
export function hasImageExtension(path: string): boolean {
  const lower = path.toLowerCase();
  return IMAGE_EXTENSIONS.some((extension) => lower.endsWith(extension));
}

/**
 * Makes an ImagePart of image bytes: checks the format by signature and the size.
 *
 * @param bytes The image.
 * @param options `maxBytes`: the limit (config `image_max_size`); `name`: for messages.
 * @returns The part, or a sentence for the user saying what is wrong and what to do.
 *
 * @example
 * ```ts
 * import { imagePart } from "./image_file.ts";
 * const gif = new TextEncoder().encode("GIF89a....");
 * const part = await imagePart(gif, { maxBytes: 100, name: "a.gif" });
 * if (!("mediaType" in part) || part.mediaType !== "image/gif" || part.sha256.length !== 64) {
 *   throw new Error();
 * }
 * const big = await imagePart(gif, { maxBytes: 4, name: "a.gif" });
 * if (!("error" in big) || !big.error.includes("image_max_size")) throw new Error();
 * ```
 */
export async function imagePart(
  bytes: Uint8Array,
  options: { maxBytes: number; name: string },
): Promise<ImagePart | { error: string }> {
  if (bytes.length > options.maxBytes) {
    return {
      error: `Image "${options.name}" is ${humanSize(bytes.length)}, over the ${
        humanSize(options.maxBytes)
      } of image_max_size: make it smaller, or raise image_max_size`,
    };
  }
  const mediaType = sniffImageType(bytes);
  if (mediaType === undefined) {
    return {
      error: `"${options.name}" is not a PNG, JPEG, GIF or WebP image (its first bytes are not ` +
        "one): convert it to one of those",
    };
  }
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return {
    mediaType,
    data: bytesToBase64(bytes),
    sha256: [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join(""),
    bytes: bytes.length,
    name: options.name,
  };
}

/**
 * Reads an image file: its size is checked before it is read, then its format.
 *
 * @param path The file.
 * @param options `maxBytes` and the `name` to use in messages (default: the path).
 * @returns The part, or a sentence for the user.
 */
export async function readImageFile(
  path: string,
  options: { maxBytes: number; name?: string },
): Promise<ImagePart | { error: string }> {
  const name = options.name ?? path;
  let file: Deno.FsFile;
  try {
    // Before opening: opening a named pipe would wait for a writer.
    if (!(await Deno.stat(path)).isFile) return { error: `"${name}" is not a file` };
    file = await Deno.open(path, { read: true });
  } catch (error) {
    return { error: `Cannot read image "${name}": ${(error as Error).message}` };
  }
  try {
    const info = await file.stat();
    if (!info.isFile) return { error: `"${name}" is not a file` };
    if (info.size > options.maxBytes) {
      return {
        error: `Image "${name}" is ${humanSize(info.size)}, over the ${
          humanSize(options.maxBytes)
        } of image_max_size: make it smaller, or raise image_max_size`,
      };
    }
    const bytes = new Uint8Array(await new Response(file.readable).arrayBuffer());
    return await imagePart(bytes, { maxBytes: options.maxBytes, name });
  } catch (error) {
    return { error: `Cannot read image "${name}": ${(error as Error).message}` };
  } finally {
    try {
      file.close();
    } catch { /* the stream closed it */ }
  }
}
