// Base64 for image bytes (messages carry images as base64; the session log stores bytes).
// btoa/atob work on one character per byte; the conversion goes in slices because
// String.fromCharCode cannot take millions of arguments.

/**
 * Base64 of bytes.
 *
 * @example
 * ```ts
 * import { bytesToBase64 } from "./base64.ts";
 * if (bytesToBase64(new Uint8Array([104, 105])) !== "aGk=") throw new Error();
 * ```
 */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * The bytes of base64 text.
 *
 * @example
 * ```ts
 * import { base64ToBytes } from "./base64.ts";
 * if (base64ToBytes("aGk=").join() !== "104,105") throw new Error();
 * ```
 */
export function base64ToBytes(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}
