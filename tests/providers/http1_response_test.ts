// http1_response.ts read from a scripted connection: the bytes come in pieces cut at awkward
// places (inside a CRLF, a chunk-size line, a UTF-8 character), every body framing, the answers
// it must refuse, and a hostile server whose header never ends, which must be refused after
// about 64 KiB read (counted at the source), not buffered without bound.

import {
  deepStrictEqual as assertEquals,
  ok as assert,
  rejects as assertRejects,
} from "node:assert/strict";
import {
  bodyFraming,
  BufferedSource,
  readBody,
  readResponseHead,
  type ResponseHead,
} from "../../src/providers/http1_response.ts";
import { bodyText } from "../../src/providers/response_body.ts";
import { concatBytes } from "../../src/platform/concat_bytes.ts";

const encoder = new TextEncoder();

function bytesOf(piece: string | Uint8Array): Uint8Array {
  return typeof piece === "string" ? encoder.encode(piece) : piece;
}

/** A connection that hands out `pieces` one read at a time, counting what it handed out. */
function scripted(pieces: (string | Uint8Array)[]) {
  const queue = pieces.map(bytesOf);
  const source = {
    handedOut: 0,
    reads: 0,
    read(): Promise<Uint8Array | null> {
      const next = queue.shift() ?? null;
      source.reads++;
      if (next) source.handedOut += next.byteLength;
      return Promise.resolve(next);
    },
  };
  return { source, reader: new BufferedSource(source) };
}

/**
 * A connection whose bytes do not end: `start`, then `repeat` until `upTo` bytes (far past any
 * limit, so that a reader without one fails rather than hangs).
 */
function endless(start: string, repeat: string | Uint8Array, upTo = 1 << 20) {
  const piece = bytesOf(repeat);
  const source = {
    handedOut: 0,
    reads: 0,
    read(): Promise<Uint8Array | null> {
      if (source.handedOut >= upTo) return Promise.resolve(null);
      const next = source.reads++ === 0 && start !== "" ? encoder.encode(start) : piece;
      source.handedOut += next.byteLength;
      return Promise.resolve(next);
    },
  };
  return { source, reader: new BufferedSource(source) };
}

/** The whole response: its head, and its body as text. */
async function readResponse(
  pieces: (string | Uint8Array)[],
  method = "GET",
): Promise<{ head: ResponseHead; body: string; reader: BufferedSource }> {
  const { reader } = scripted(pieces);
  const head = await readResponseHead(reader);
  const body = readBody(reader, bodyFraming(head, method));
  return { head, body: (await Array.fromAsync(bodyText(body))).join(""), reader };
}

/** What is left on the connection after the response. */
async function rest(reader: BufferedSource): Promise<string> {
  const left: Uint8Array[] = [];
  for (let bytes = await reader.next(); bytes !== null; bytes = await reader.next()) {
    left.push(bytes);
  }
  return new TextDecoder().decode(concatBytes(left));
}

Deno.test("readBody() reads a content-length body to its length when CRLFs are cut between reads", async () => {
  const { head, body, reader } = await readResponse([
    "HTTP/1.1 200 OK\r",
    "\nContent-Type: application/json\r\nContent-Le",
    "ngth: 11\r\n\r",
    '\n{"a":',
    '"bcd"}AFTER',
  ]);
  assertEquals([head.status, head.statusText], [200, "OK"]);
  assertEquals(head.fields.get("content-type"), "application/json");
  assertEquals(body, '{"a":"bcd"}');
  assertEquals(await rest(reader), "AFTER");
});

Deno.test("readBody() decodes a UTF-8 character cut between reads of the body", async () => {
  const text = "héllo wörld ✓ 🦕";
  const bytes = encoder.encode(text);
  // Cut inside "é", before and inside "✓", before and inside the 4-byte dinosaur.
  const bounds = [0, 2, 3, 14, 15, 18, 19, bytes.length];
  const pieces: (string | Uint8Array)[] = [
    `HTTP/1.1 200 OK\r\ncontent-length: ${bytes.length}\r\n\r\n`,
    ...bounds.slice(1).map((end, i) => bytes.subarray(bounds[i], end)),
  ];
  assertEquals((await readResponse(pieces)).body, text);
});

Deno.test("readBody() reads a chunked body with extensions and trailers, cut inside size lines", async () => {
  const { head, body, reader } = await readResponse([
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=va",
    'lue\r\nWiki\r\n5 ; x="y"\r\npedia\r',
    "\n1",
    "A\r\n",
    "abcdefghijklmnopqrstuvwxy",
    "z\r\n0;last\r\nX-Trailer: 1\r\nX-Other:",
    " 2\r\n\r\nNEXT",
  ]);
  assertEquals(bodyFraming(head, "GET"), { kind: "chunked" });
  assertEquals(body, "Wikipediaabcdefghijklmnopqrstuvwxyz");
  // The trailers were read up to their blank line and no further.
  assertEquals(await rest(reader), "NEXT");
});

Deno.test("bodyFraming() takes chunked over content-length and a body until close otherwise", async () => {
  const both = await readResponse([
    "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    "6\r\nlonger\r\n0\r\n\r\n",
  ]);
  assertEquals(both.body, "longer");
  const close = await readResponse(["HTTP/1.1 200 OK\r\n\r\nuntil ", "the server ", "closes"]);
  assertEquals(close.body, "until the server closes");
  const coded = await readResponse(["HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw"]);
  assertEquals(bodyFraming(coded.head, "GET"), { kind: "close" });
  assertEquals(coded.body, "raw");
});

Deno.test("readBody() reads no body for HEAD, 204 and 304 whatever their headers say", async () => {
  const cases = [["200 OK", "HEAD"], ["204 No Content", "GET"], ["304 Not Modified", "GET"]];
  for (const [status, method] of cases) {
    const { head, body, reader } = await readResponse(
      [`HTTP/1.1 ${status}\r\nContent-Length: 4\r\n\r\n`, "NEXT"],
      method,
    );
    assertEquals(bodyFraming(head, method!), { kind: "none" });
    assertEquals(body, "");
    assertEquals(await rest(reader), "NEXT");
  }
});

Deno.test("readResponseHead() skips 100 Continue and 103 Early Hints before the final answer", async () => {
  const { head, body } = await readResponse([
    "HTTP/1.1 100 Continue\r\n\r",
    "\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
  ]);
  assertEquals([head.status, head.statusText, body], [200, "OK", "ok"]);
  // The interim answer's fields are not the final answer's.
  assertEquals(head.fields.get("link"), undefined);
});

Deno.test("readResponseHead() reads LF-only line ends and a status line without a reason", async () => {
  const { head, body } = await readResponse([
    "HTTP/1.0 201\nX-A: 1\n",
    "content-length: 2\n\nokAFTER",
  ]);
  assertEquals([head.status, head.statusText, body], [201, "", "ok"]);
  assertEquals(head.fields.get("x-a"), "1");
});

Deno.test("readResponseHead() joins repeated fields with a comma and trims their values", async () => {
  const { head } = await readResponse([
    "HTTP/1.1 404 Not Found\r\nVary: Accept\r\nX-Spaced: \t padded \t\r\nvary: Origin\r\n",
    "VARY:Cookie\r\nEmpty:\r\n\r\n",
  ]);
  assertEquals([head.status, head.statusText], [404, "Not Found"]);
  assertEquals(head.fields.get("vary"), "Accept, Origin, Cookie");
  assertEquals(head.fields.get("x-spaced"), "padded");
  assertEquals(head.fields.get("empty"), "");
});

Deno.test("bodyFraming() refuses conflicting or malformed content-length values", async () => {
  const same = await readResponse([
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nokAFTER",
  ]);
  assertEquals(same.body, "ok");
  for (
    const lengths of [["5", "6"], ["3, 4"], ["-1"], ["1e3"], ["0x10"], [""], ["1234567890123456"]]
  ) {
    const { reader } = scripted([
      `HTTP/1.1 200 OK\r\n${lengths.map((value) => `Content-Length: ${value}\r\n`).join("")}\r\n`,
    ]);
    const head = await readResponseHead(reader);
    try {
      bodyFraming(head, "GET");
      assert(false, `accepted ${JSON.stringify(lengths)}`);
    } catch (error) {
      assert(String(error).includes("the response's content-length is malformed"), String(error));
    }
  }
});

Deno.test("readResponseHead() refuses a malformed status line", async () => {
  for (
    const line of [
      "HTTP/2 200 OK",
      "HTTP/1.1 20 OK",
      "HTTP/1.1 2000 OK",
      "HTTP/1.1 200OK",
      "http/1.1 200 OK",
      "ICY 200 OK",
      "SSH-2.0-OpenSSH_9.6",
      "",
    ]
  ) {
    const { reader } = scripted([`${line}\r\nContent-Length: 0\r\n\r\n`]);
    await assertRejects(readResponseHead(reader), /the server's answer is not HTTP\/1\.1/, line);
  }
});

Deno.test("readResponseHead() refuses a malformed header line", async () => {
  for (
    const field of ["No colon here", " Folded: x", "Bad Name: x", ": no name", "Na\u00efve: x"]
  ) {
    const { reader } = scripted([`HTTP/1.1 200 OK\r\nA: 1\r\n${field}\r\n\r\n`]);
    await assertRejects(
      readResponseHead(reader),
      /the response has a malformed header field/,
      field,
    );
  }
});

Deno.test("readResponseHead() refuses a server that closes before or inside its header", async () => {
  for (const pieces of [[], ["HTTP/1.1 200 OK\r\nContent-Le"], ["HTTP/1.1 200 OK\r\n"]]) {
    const { reader } = scripted(pieces);
    await assertRejects(
      readResponseHead(reader),
      /the server closed the connection before its answer/,
    );
  }
});

Deno.test("readResponseHead() refuses an endless header line after reading about 64 KiB", async () => {
  const { source, reader } = endless("HTTP/1.1 200 OK\r\nX-Long: ", "a".repeat(1000));
  await assertRejects(readResponseHead(reader), /the response's header is over 65536 bytes/);
  assert(source.handedOut <= 64 * 1024 + 2000, `read ${source.handedOut} bytes`);
});

Deno.test("readResponseHead() refuses 200 header fields after reading 101 of them", async () => {
  const fields = Array.from({ length: 200 }, (_, i) => `X-Field-${i}: ${i}\r\n`);
  const { source, reader } = scripted(["HTTP/1.1 200 OK\r\n", ...fields, "\r\n"]);
  await assertRejects(readResponseHead(reader), /the response has over 100 header fields/);
  // The status line and 101 fields, each its own read: nothing after them was asked for.
  assertEquals(source.reads, 102);
});

Deno.test("readResponseHead() refuses a 1 MiB header section after reading about 64 KiB", async () => {
  const sixteenFields = `X-Padding: ${"p".repeat(1011)}\r\n`.repeat(16); // 16 KiB
  const { source, reader } = scripted([
    "HTTP/1.1 200 OK\r\n",
    ...Array.from({ length: 64 }, () => sixteenFields),
    "\r\ncontent-length: 0\r\n\r\n",
  ]);
  await assertRejects(readResponseHead(reader), /the response's header is over 65536 bytes/);
  assert(source.handedOut <= 64 * 1024 + 16 * 1024 + 17, `read ${source.handedOut} bytes`);
});

Deno.test("readResponseHead() refuses an endless run of interim 1xx answers after about 64 KiB", async () => {
  // Each 100 Continue is a small head of its own; fetch gives up on such a server at once.
  const { source, reader } = endless("", "HTTP/1.1 100 Continue\r\n\r\n");
  await assertRejects(readResponseHead(reader), (error: Error) => {
    assert(!error.message.includes("closed"), `read to the end: ${error.message}`);
    return true;
  });
  assert(source.handedOut <= 64 * 1024 + 100, `read ${source.handedOut} bytes`);
});

Deno.test("readResponseHead() refuses an endless header trickled a byte at a time in linear time", async () => {
  // A server that sends one byte per packet: every read is one byte. Refusing the line must
  // not cost a scan and a copy of everything taken so far per byte (quadratic: seconds).
  const { source, reader } = endless("HTTP/1.1 200 OK\r\nX-Long: ", "a", 128 * 1024);
  const started = performance.now();
  await assertRejects(readResponseHead(reader), /is over \d+ bytes/);
  const took = performance.now() - started;
  assert(source.handedOut <= 64 * 1024 + 100, `read ${source.handedOut} bytes`);
  assert(took < 500, `took ${took.toFixed(0)} ms for ${source.handedOut} one-byte reads`);
});

Deno.test("readBody() refuses a malformed chunk size line", async () => {
  for (const size of ["zz", "-1", "0x10", "", " 4", "4 x", "1000000000000", "f".repeat(5000)]) {
    const { reader } = scripted([
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
      `${size}\r\nbody\r\n0\r\n\r\n`,
    ]);
    const head = await readResponseHead(reader);
    await assertRejects(
      Array.fromAsync(readBody(reader, bodyFraming(head, "GET"))),
      /the response's chunked body is malformed|a line of the response is over 4096 bytes/,
      JSON.stringify(size.slice(0, 20)),
    );
  }
  const { reader } = scripted([
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n",
  ]);
  const head = await readResponseHead(reader);
  await assertRejects(
    Array.fromAsync(readBody(reader, bodyFraming(head, "GET"))),
    /the response's chunked body is malformed/,
  );
});

Deno.test("readBody() throws fetch's words when a length body or a chunked body is cut", async () => {
  const chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  const cases: [string[], string][] = [
    [["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", "abc"], "abc"],
    [[chunked, "5\r\nab"], "ab"],
    [[chunked, "2\r\nab\r\n"], "ab"],
    [[chunked, "2\r\nab\r\n0\r\n"], "ab"],
  ];
  for (const [pieces, before] of cases) {
    const { reader } = scripted(pieces);
    const head = await readResponseHead(reader);
    const read: string[] = [];
    await assertRejects(async () => {
      for await (const text of bodyText(readBody(reader, bodyFraming(head, "GET")))) {
        read.push(text);
      }
    }, /^Error: error reading a body from connection$/);
    // What arrived before the cut was handed on.
    assertEquals(read.join(""), before);
  }
});
