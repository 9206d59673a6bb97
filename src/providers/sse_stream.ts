// Splits a streamed response body into server-sent events (`event:` and `data:` lines ended
// by a blank line), the framing of the streamed answers of the Messages API and of OpenAI
// Chat Completions. The stream readers parse each event's data; comments (`:` lines) and
// unknown fields are skipped.

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
  body: ReadableStream<Uint8Array>,
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
  let buffer = "";
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let start = 0;
    for (;;) {
      const end = lineEnd(buffer, start);
      if (end === undefined) break;
      const done = line(buffer.slice(start, end.at));
      start = end.next;
      if (done) yield done;
    }
    buffer = buffer.slice(start);
  }
  if (buffer !== "") line(buffer.endsWith("\r") ? buffer.slice(0, -1) : buffer);
  const last = line("");
  if (last) yield last;
}

/**
 * Where the first line from `start` ends (`at`) and the next begins (`next`); undefined when
 * no line ends yet, or when the last character is a CR whose LF may come with the next read.
 */
function lineEnd(buffer: string, start: number): { at: number; next: number } | undefined {
  for (let i = start; i < buffer.length; i++) {
    const code = buffer.charCodeAt(i);
    if (code === 10) return { at: i, next: i + 1 };
    if (code !== 13) continue;
    if (i + 1 === buffer.length) return undefined;
    return { at: i, next: buffer.charCodeAt(i + 1) === 10 ? i + 2 : i + 1 };
  }
  return undefined;
}
