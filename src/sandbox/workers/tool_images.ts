// The images a tool returns (read_file of a picture), checked by the host before they go
// anywhere: the bytes must be PNG, JPEG, GIF or WebP by their signature and within a hard
// cap, and the host hashes them itself, so a plugin cannot pass off other bytes under an
// image's name in the session log. The run's own image_max_size is applied later (app/).

import type { ImagePart } from "../../messages.ts";
import { imagePart } from "../../platform/image_file.ts";

/** The most bytes one image from a tool may have, whatever the config says. */
export const TOOL_IMAGE_LIMIT = 32 * 1024 * 1024;

/**
 * Checks and hashes a tool's images.
 *
 * @param raw The images as the worker sent them.
 * @returns The valid images, and one line for each that was left out.
 *
 * @example
 * ```ts
 * import { checkedImages } from "./tool_images.ts";
 * const gif = new TextEncoder().encode("GIF89a...");
 * const { images, problems } = await checkedImages([
 *   { data: gif, name: "a.gif" },
 *   { data: new TextEncoder().encode("#!/bin/sh"), name: "b.png" },
 * ]);
 * if (images.length !== 1 || images[0]?.mediaType !== "image/gif" || problems.length !== 1) {
 *   throw new Error();
 * }
 * ```
 */
export async function checkedImages(
  raw: readonly { data: Uint8Array; name?: string }[],
): Promise<{ images: ImagePart[]; problems: string[] }> {
  const images: ImagePart[] = [];
  const problems: string[] = [];
  for (const [index, item] of raw.entries()) {
    const part = await imagePart(item.data, {
      maxBytes: TOOL_IMAGE_LIMIT,
      name: item.name ?? `image ${index + 1}`,
    });
    if ("error" in part) problems.push(`${part.error}; it was not sent`);
    else images.push(part);
  }
  return { images, problems };
}
