// Splits a streamed response body into server-sent events (`event:` and `data:` lines ended
// by a blank line), the framing of the streamed answers of the Messages API and of OpenAI
// Chat Completions. The stream readers parse each event's data; comments (`:` lines) and
// unknown fields are skipped.

import { bodyText } from "./response_body.ts";

/** One server-sent event. */
export interface ServerSentEvent {
  /** The `event:` name; "message" when the event had none. */
  event: string;
  /** The `data:` lines joined with newlines. */
  data: string;
}

/**
 * Reads server-sent events from a response body. Lines end with LF, CRLF or CR, also when a
 * CRLF is split between two reads. An event cut off by the end of the body still counts when
 * it has data; an event without data is skipped.
 *
 * @param body The response body.
 * @returns Each event, in order.
 *
 * @example
 * ```ts
 * import { readServerSentEvents } from "./sse_stream.ts";
 * const body = new Response(': hi\nevent: ping\ndata: {"type":"ping"}\n\ndata: a\ndata: b\n\n').body!;
 * const events = await Array.fromAsync(readServerSentEvents(body));
 * if (events.length !== 2 || events[0]?.event !== "ping" || events[1]?.data !== "a\nb") {
 *   throw new Error(JSON.stringify(events));
 * }
 * ```
 */
export async function* readServerSentEvents(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  let event = "";
  let data: string[] = [];
  const line = (text: string): ServerSentEvent | undefined => {
    if (text === "") {
      const done = data.length > 0
        ? { event: event || "message", data: data.join("\n") }
        : undefined;
      event = "";
      data = [];
      return done;
    }
    if (text.startsWith(":")) return undefined;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? "" : text.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    return undefined;
  };
  // Each chunk is scanned once: a line's pieces wait in `partial` until its end arrives, so a
  // line that never ends (until max_turn_bytes stops it) costs linear time, not a rescan of
  // everything held on every read. A CR that ends a chunk ends its line; an LF that starts
  // the next chunk belongs to it (CRLF cut between reads).
  let partial: string[] = [];
  let skipLineFeed = false;
  for await (const chunk of bodyText(body)) {
    if (chunk === "") continue;
    let start = skipLineFeed && chunk.charCodeAt(0) === 10 ? 1 : 0;
    skipLineFeed = false;
    for (let i = start; i < chunk.length; i++) {
      const code = chunk.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      partial.push(chunk.slice(start, i));
      const done = line(partial.join(""));
      partial = [];
      if (code === 13) {
        if (i + 1 === chunk.length) skipLineFeed = true;
        else if (chunk.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
      if (done) yield done;
    }
    if (start < chunk.length) partial.push(chunk.slice(start));
  }
  if (partial.length > 0) line(partial.join(""));
  const last = line("");
  if (last) yield last;
}
