// Splits a streamed response body into NDJSON values, one per non-empty line, the framing
// Ollama uses for /api/chat. The chat stream reader consumes it; a line that is not JSON is
// yielded as its SyntaxError so the reader can decide what that means.

import { bodyText } from "../response_body.ts";

/**
 * Reads NDJSON values from a response body. A final line without a newline still counts.
 *
 * @param body The response body.
 * @returns Each line's parsed value, or the SyntaxError for a line that is not JSON.
 *
 * @example
 * ```ts
 * import { readNdjson } from "./ndjson_stream.ts";
 * const body = new Response('{"a":1}\n\nnot json\n{"b":2}').body!;
 * const values = await Array.fromAsync(readNdjson(body));
 * if (values.length !== 3 || !(values[1] instanceof SyntaxError)) throw new Error();
 * ```
 */
export async function* readNdjson(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<unknown | SyntaxError> {
  let buffer = "";
  for await (const chunk of bodyText(body)) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line === "") continue;
      try {
        yield JSON.parse(line);
      } catch (error) {
        yield error as SyntaxError;
      }
    }
  }
  if (buffer.trim() !== "") {
    try {
      yield JSON.parse(buffer);
    } catch (error) {
      yield error as SyntaxError;
    }
  }
}
