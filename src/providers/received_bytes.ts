// Counts the bytes of a streamed answer as they arrive from the server, before any parser
// buffers them (a line that never ends is bytes too). The HTTP providers report the count as
// `received` events, which turn_output_cap.ts bounds.

import { type ResponseBody, tapBody } from "./response_body.ts";

/**
 * Passes a response body through, calling `onBytes` with the size of each chunk.
 *
 * @param body The response body.
 * @param onBytes Called for every chunk, before it is read further.
 * @returns The same bytes.
 *
 * @example
 * ```ts
 * import { countBytes } from "./received_bytes.ts";
 * let seen = 0;
 * const body = new Response("hello").body!;
 * const pieces = await Array.fromAsync(countBytes(body, (n) => seen += n));
 * if (pieces.length !== 1 || seen !== 5) throw new Error();
 * ```
 */
export function countBytes(
  body: ResponseBody,
  onBytes: (bytes: number) => void,
): ResponseBody {
  return tapBody(body, (piece) => onBytes(piece.byteLength));
}
