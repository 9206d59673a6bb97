// Server-sent events from a body read in pieces: line ends of every kind, wherever a read ends.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { readServerSentEvents } from "../../src/providers/sse_stream.ts";

function bodyOf(parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

Deno.test("readServerSentEvents() keeps a multi-line event whole when a CRLF is cut between reads", async () => {
  const events = await Array.fromAsync(
    readServerSentEvents(bodyOf(["data: a\r", "\ndata: b\r\n\r", "\ndata: c\r\n\r\n"])),
  );
  assertEquals(events, [{ event: "message", data: "a\nb" }, { event: "message", data: "c" }]);
});

Deno.test("readServerSentEvents() reads LF, CRLF and CR ends, comments and a last event without a blank line", async () => {
  const events = await Array.fromAsync(
    readServerSentEvents(bodyOf([": hi\nevent: x\ndata: 1\r\n\r\ndata: 2\r\rdata:3\r"])),
  );
  assertEquals(events, [
    { event: "x", data: "1" },
    { event: "message", data: "2" },
    { event: "message", data: "3" },
  ]);
});

Deno.test("readServerSentEvents() skips an event without data", async () => {
  const events = await Array.fromAsync(
    readServerSentEvents(bodyOf(["event: ping\n\ndata: x\n\n"])),
  );
  assertEquals(events, [{ event: "message", data: "x" }]);
});
