// A response body as the providers read it: its bytes as an async iterable that can be
// cancelled. fetch's ReadableStream is one, and so is http_request.ts's own body; the readers
// (server-sent events, NDJSON) take either, and decode with TextDecoder rather than web streams,
// whose code Deno loads on first use (bench/http_request_bench.ts).

/** A response body: its bytes as they arrive (read once), or cancelled unread. */
export interface ResponseBody extends AsyncIterable<Uint8Array> {
  cancel(reason?: unknown): Promise<void>;
}

/**
 * A body with nothing in it.
 *
 * @example
 * ```ts
 * import { emptyBody } from "./response_body.ts";
 * if ((await Array.fromAsync(emptyBody())).length !== 0) throw new Error();
 * ```
 */
export function emptyBody(): ResponseBody {
  return {
    async *[Symbol.asyncIterator]() {},
    cancel: () => Promise.resolve(),
  };
}

/**
 * Passes a body through, calling `onChunk` with each piece before it is read further;
 * cancelling it cancels the body under it.
 *
 * @param body The body.
 * @param onChunk Called for every piece.
 * @returns The same bytes.
 *
 * @example
 * ```ts
 * import { tapBody } from "./response_body.ts";
 * let seen = 0;
 * const body = tapBody(new Response("hello").body!, (piece) => seen += piece.byteLength);
 * if ((await Array.fromAsync(body)).length !== 1 || seen !== 5) throw new Error();
 * ```
 */
export function tapBody(body: ResponseBody, onChunk: (piece: Uint8Array) => void): ResponseBody {
  async function* read(): AsyncGenerator<Uint8Array> {
    for await (const piece of body) {
      onChunk(piece);
      yield piece;
    }
  }
  return bodyOf(read(), (reason) => body.cancel(reason).catch(() => {}));
}

/**
 * A body over a generator of its pieces: cancelling it calls `stop` (which ends their
 * source), then ends the generator.
 *
 * @param pieces The body's pieces.
 * @param stop Ends their source (a connection, a body under this one).
 * @returns The body.
 *
 * @example
 * ```ts
 * import { bodyOf } from "./response_body.ts";
 * let stopped = false;
 * const body = bodyOf((async function* () { yield new Uint8Array(1); })(), () => stopped = true);
 * await body.cancel();
 * if (!stopped || (await Array.fromAsync(body)).length !== 0) throw new Error();
 * ```
 */
export function bodyOf(
  pieces: AsyncGenerator<Uint8Array>,
  stop: (reason?: unknown) => unknown,
): ResponseBody {
  return {
    [Symbol.asyncIterator]: () => pieces,
    async cancel(reason?: unknown) {
      await stop(reason);
      await pieces.return(undefined).catch(() => {});
    },
  };
}

/**
 * A body's text as it arrives, decoded as UTF-8 (a character split between pieces waits for
 * its end; a byte-order mark at the start is dropped, as TextDecoderStream does).
 *
 * @param body The body.
 * @returns The text, piece by piece (no empty pieces).
 *
 * @example
 * ```ts
 * import { bodyText } from "./response_body.ts";
 * const bytes = new TextEncoder().encode("héllo");
 * const pieces = [bytes.subarray(0, 2), bytes.subarray(2)];
 * const text = (await Array.fromAsync(bodyText((async function* () {
 *   yield* pieces;
 * })()))).join("");
 * if (text !== "héllo") throw new Error(text);
 * ```
 */
export async function* bodyText(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const piece of body) {
    const text = decoder.decode(piece, { stream: true });
    if (text !== "") yield text;
  }
  const rest = decoder.decode();
  if (rest !== "") yield rest;
}
