// The images of the session log: each stored once, by the SHA-256 of its bytes, in the
// `images` table (schema migration 5); messages name them (session_events.ts ImageRef). The
// writer stores a message's images before its event; replay reads them back for a resume.

import type { DatabaseSync } from "node:sqlite";
import type { ImagePart } from "../messages.ts";
import type { ImageRef } from "./session_events.ts";
import { base64ToBytes, bytesToBase64 } from "../platform/base64.ts";

/**
 * Stores images not stored yet (an image already in the log is not written again).
 *
 * @param db The session database.
 * @param images The images of one message.
 */
export function storeImages(db: DatabaseSync, images: readonly ImagePart[]): void {
  const insert = db.prepare(
    "INSERT OR IGNORE INTO images (sha256, media_type, bytes, data) VALUES (?, ?, ?, ?)",
  );
  for (const image of images) {
    insert.run(image.sha256, image.mediaType, image.bytes, base64ToBytes(image.data));
  }
}

/**
 * Reads one image back.
 *
 * @param db The session database.
 * @param ref The reference a message holds.
 * @returns The image, or undefined when the log does not have it.
 */
export function loadImage(db: DatabaseSync, ref: ImageRef): ImagePart | undefined {
  const row = db.prepare("SELECT media_type, data FROM images WHERE sha256 = ?").get(ref.sha256);
  if (!row || !(row.data instanceof Uint8Array)) return undefined;
  return { ...ref, data: bytesToBase64(row.data) };
}
