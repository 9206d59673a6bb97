// Counts the bytes of a streamed answer as they arrive from the server, before any parser
// buffers them (a line that never ends is bytes too). The HTTP providers report the count as
// `received` events, which turn_output_cap.ts bounds.

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
 * const text = await new Response(countBytes(body, (n) => seen += n)).text();
 * if (text !== "hello" || seen !== 5) throw new Error();
 * ```
 */
export function countBytes(
  body: ReadableStream<Uint8Array>,
  onBytes: (bytes: number) => void,
): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onBytes(chunk.byteLength);
        controller.enqueue(chunk);
      },
    }),
  );
}
