// Splits a streamed response body into server-sent events (`event:` and `data:` lines ended
// by a blank line), the framing of the Messages API's streaming answers. The stream reader
// parses each event's data; comments (`:` lines) and unknown fields are skipped.

/** One server-sent event. */
export interface ServerSentEvent {
  /** The `event:` name; "message" when the event had none. */
  event: string;
  /** The `data:` lines joined with newlines. */
  data: string;
}

/**
 * Reads server-sent events from a response body. An event cut off by the end of the body
 * still counts when it has data.
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
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  let buffer = "";
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
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(buffer.startsWith("\r\n", newline) ? newline + 2 : newline + 1);
      const done = line(text);
      if (done) yield done;
    }
  }
  if (buffer !== "") line(buffer);
  const last = line("");
  if (last) yield last;
}
