// httpRequest against a hostile config, model or server, on a raw loopback TCP server that sees
// the exact request bytes: a key or URL carrying a header line, a header that never ends; and
// the ways a request is given up (aborts, timeouts, a cancelled body), which must end as
// fetch's do and close the connection (the server sees it go; the resource sanitizer stays on).

import {
  deepStrictEqual as assertEquals,
  ok as assert,
  rejects as assertRejects,
} from "node:assert/strict";
import { fetchRequest, httpRequest } from "../../src/providers/http_request.ts";
import {
  type RawExchange,
  send,
  startRawHttpServer,
  untilClosed,
} from "../helpers/raw_http_server.ts";

const PATHS = { httpRequest, fetchRequest };
// Each answer says the connection closes after it, so fetch does not try to reuse it.
const OK = "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/plain\r\n" +
  "content-length: 2\r\n\r\nok";
const STREAM_HEAD = "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\n" +
  "transfer-encoding: chunked\r\n\r\n";

/** The header lines of a request as the server read it (names lower-cased). */
function headerLines(request: string): string[] {
  const head = request.slice(0, request.indexOf("\r\n\r\n"));
  return head.split("\r\n").slice(1).map((line) => line.replace(/^[^:]*/, (n) => n.toLowerCase()));
}

/** `promise`, or a failure naming `what` when it has not settled in 5 s (a hang is the bug). */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what} did not come within 5 s`)), 5000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A raw server that answers every request with `answer`, then waits for the client to close;
 * `events` says when the current request arrived and when its connection closed.
 */
function startServer(answer: (exchange: RawExchange) => Promise<void>) {
  const events = {
    requested: Promise.withResolvers<void>(),
    closed: Promise.withResolvers<void>(),
  };
  const raw = startRawHttpServer(async (exchange) => {
    events.requested.resolve();
    await answer(exchange);
    await untilClosed(exchange.conn);
    events.closed.resolve();
  });
  return Object.assign(raw, {
    events,
    /** Fresh events for the next request. */
    reset() {
      events.requested = Promise.withResolvers<void>();
      events.closed = Promise.withResolvers<void>();
    },
  });
}

Deno.test("httpRequest() refuses an API key carrying a header line before connecting, as fetch does", async () => {
  await using raw = startServer((exchange) => send(exchange.conn, OK));
  const keys = ["sk\r\nx-injected: 1", "sk\nx-injected: 1", "sk\rx-injected: 1", "sk\0x-injected"];
  for (const key of keys) {
    for (const [name, request] of Object.entries(PATHS)) {
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      await assertRejects(
        request(`${raw.url}/v1/chat/completions`, { method: "POST", headers, body: "{}" }),
        TypeError,
        `${name} sent ${JSON.stringify(key)}`,
      );
    }
  }
  for (const name of ["x-a: 1\r\nx-injected", "x-a\r\n", "x a", ""]) {
    await assertRejects(httpRequest(`${raw.url}/`, { headers: { [name]: "1" } }), TypeError);
  }
  // Nothing reached the server: the only request it ever read is this one.
  const last = await httpRequest(`${raw.url}/after`);
  assertEquals(await last.text(), "ok");
  assertEquals(raw.requests.map((request) => request.split("\r\n")[0]), ["GET /after HTTP/1.1"]);
});

Deno.test("httpRequest() refuses the header values fetch refuses and sends the others as fetch does", async () => {
  await using raw = startServer((exchange) => send(exchange.conn, OK));
  // Not Latin-1, control characters, Latin-1 beyond ASCII, and whitespace fetch trims.
  const values = ["key \u2713", "a\x01b", "a\x7fb", "caf\u00e9", " \t padded \t "];
  const sent: Record<string, string[]> = { httpRequest: [], fetchRequest: [] };
  for (const value of values) {
    for (const [name, request] of Object.entries(PATHS)) {
      const before = raw.requests.length;
      try {
        await (await request(`${raw.url}/`, { headers: { "x-key": value } })).text();
      } catch (error) {
        assert(error instanceof TypeError, String(error));
        sent[name]!.push(`${JSON.stringify(value)} refused`);
        continue;
      }
      const line = headerLines(raw.requests[before]!).find((line) => line.startsWith("x-key:"));
      sent[name]!.push(`${JSON.stringify(value)} sent as ${JSON.stringify(line)}`);
    }
  }
  assertEquals(sent.httpRequest, sent.fetchRequest);
});

Deno.test("httpRequest() sends a base URL's spaces, CR, LF and %0d%0a inside the request line", async () => {
  await using raw = startServer((exchange) => send(exchange.conn, OK));
  const url = `${raw.url}/v1 x\r\nx-injected: 1/chat%0d%0ax-injected: 2\n?q=a b\r\nx-injected: 3` +
    "&r=%0D%0Ax-injected:%204";
  for (const request of Object.values(PATHS)) {
    assertEquals(await (await request(url)).text(), "ok");
  }
  assertEquals(raw.requests.length, 2);
  const lines = raw.requests.map((request) => request.split("\r\n")[0]);
  assertEquals(lines[0], lines[1]);
  assert(/^GET \/[\x21-\x7e]+ HTTP\/1\.1$/.test(lines[0]!), lines[0]);
  for (const request of raw.requests) {
    assertEquals(headerLines(request).filter((line) => line.startsWith("x-injected")), []);
  }
});

Deno.test("httpRequest() refuses a header that never ends at once and closes the connection", async () => {
  let written = 0;
  await using raw = startServer(async ({ conn }) => {
    await send(conn, "HTTP/1.1 200 OK\r\nX-Endless: ");
    const piece = new TextEncoder().encode("a".repeat(16 * 1024));
    try {
      for (;;) written += await conn.write(piece);
    } catch {
      // the client closed the connection
    }
  });
  const started = performance.now();
  await assertRejects(
    within(httpRequest(`${raw.url}/v1/models`), "the refusal"),
    /the response's header is over 65536 bytes/,
  );
  assert(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
  await within(raw.events.closed.promise, "the server seeing the connection close");
  assert(written > 64 * 1024, `the server wrote only ${written} bytes`);
});

Deno.test("httpRequest() rejects with the reason of a signal aborted before the call, sending nothing", async () => {
  await using raw = startServer((exchange) => send(exchange.conn, OK));
  const reason = new Error("the user pressed Esc");
  for (const request of Object.values(PATHS)) {
    await assertRejects(
      request(`${raw.url}/`, { signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
  }
  assertEquals(await (await httpRequest(`${raw.url}/after`)).text(), "ok");
  assertEquals(raw.requests.length, 1);
});

Deno.test("httpRequest() rejects with the abort reason while waiting for headers, closing the connection", async () => {
  await using raw = startServer(() => Promise.resolve()); // reads the request, never answers
  for (const [name, request] of Object.entries(PATHS)) {
    raw.reset();
    const controller = new AbortController();
    const reason = new Error(`stop ${name}`);
    const pending = request(`${raw.url}/v1/chat/completions`, { signal: controller.signal });
    await raw.events.requested.promise;
    controller.abort(reason);
    await assertRejects(within(pending, "the rejection"), (error) => error === reason);
    await within(raw.events.closed.promise, "the server seeing the connection close");
  }
});

Deno.test("httpRequest() rejects the body's next read with the abort reason, closing the connection", async () => {
  await using raw = startServer((exchange) =>
    send(exchange.conn, `${STREAM_HEAD}9\r\ndata: 1\n\n\r\n`)
  );
  for (const [name, request] of Object.entries(PATHS)) {
    raw.reset();
    const controller = new AbortController();
    const reason = new Error(`stop ${name}`);
    const response = await request(`${raw.url}/`, { signal: controller.signal });
    const reader = response.body[Symbol.asyncIterator]();
    const first = await reader.next();
    assertEquals(new TextDecoder().decode(first.value), "data: 1\n\n", name);
    controller.abort(reason);
    await assertRejects(within(reader.next(), "the rejection"), (error) => error === reason, name);
    await within(raw.events.closed.promise, "the server seeing the connection close");
  }
});

Deno.test("httpRequest() times out with AbortSignal.timeout as fetch does, closing the connection", async () => {
  await using raw = startServer(() => Promise.resolve()); // never answers
  for (const [name, request] of Object.entries(PATHS)) {
    raw.reset();
    await assertRejects(
      within(request(`${raw.url}/`, { signal: AbortSignal.timeout(200) }), "the time-out"),
      (error) => error instanceof DOMException && error.name === "TimeoutError",
      name,
    );
    await within(raw.events.closed.promise, "the server seeing the connection close");
  }
});

Deno.test("httpRequest() closes the connection when its body is cancelled unread or half read", async () => {
  await using raw = startServer((exchange) =>
    send(exchange.conn, `${STREAM_HEAD}9\r\ndata: 1\n\n\r\n`)
  );
  const unread = await httpRequest(`${raw.url}/`);
  assertEquals(unread.status, 200);
  await unread.body.cancel();
  await within(raw.events.closed.promise, "the server seeing the connection close");
  assertEquals(await Array.fromAsync(unread.body), []);

  raw.reset();
  const half = await httpRequest(`${raw.url}/`);
  const reader = half.body[Symbol.asyncIterator]();
  assertEquals(new TextDecoder().decode((await reader.next()).value), "data: 1\n\n");
  await half.body.cancel();
  await within(raw.events.closed.promise, "the server seeing the connection close");
  assertEquals(await reader.next(), { done: true, value: undefined });
});
