// A loopback TCP server that speaks HTTP/1.1 by hand: it records the exact bytes of each
// request and answers with whatever a test writes, including what no real server sends
// (malformed, hostile, cut short, stalled), and it sees when the client closes.

/** One request as the server read it, and its connection to answer on. */
export interface RawExchange {
  /** The request's bytes (head, then as much body as content-length says), one char a byte. */
  request: string;
  /** The request target of the request line. */
  target: string;
  conn: Deno.Conn;
}

/** A running server; dispose it to close it and every connection it holds. */
export interface RawHttpServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  url: string;
  /** Every request read, in order, one char a byte. */
  requests: string[];
}

/**
 * Starts a server that reads each request and hands it to `answer`; the connection closes
 * when `answer` settles. It reads one request a connection, so an answer fetch reads should
 * say `connection: close`, or fetch may send its next request on the same connection.
 *
 * @param answer Writes the reply (see {@linkcode send}); may wait for the client to go.
 * @returns The server.
 */
export function startRawHttpServer(
  answer: (exchange: RawExchange) => Promise<void>,
): RawHttpServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: string[] = [];
  const open = new Set<Deno.Conn>();
  const serving: Promise<void>[] = [];
  const serve = async (conn: Deno.Conn) => {
    try {
      const request = await readRequest(conn);
      if (request === null) return;
      requests.push(request);
      const target = request.slice(0, request.indexOf("\r\n")).split(" ")[1] ?? "";
      await answer({ request, target, conn });
    } catch {
      // the client went away mid-request
    } finally {
      open.delete(conn);
      closeQuietly(conn);
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        open.add(conn);
        serving.push(serve(conn));
      }
    } catch {
      // the listener closed
    }
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    requests,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const conn of open) closeQuietly(conn);
      await Promise.all(serving);
    },
  };
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // closed already
  }
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

/** The request's head and its content-length body; null when the client sent nothing. */
async function readRequest(conn: Deno.Conn): Promise<string | null> {
  let taken = "";
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const end = taken.indexOf("\r\n\r\n");
    if (end >= 0) {
      const length = /\r\ncontent-length: *(\d+)/i.exec(taken.slice(0, end));
      const total = end + 4 + Number(length?.[1] ?? 0);
      if (taken.length >= total) return taken;
    }
    const count = await conn.read(buffer);
    if (count === null) return taken === "" ? null : taken;
    taken += latin1(buffer.subarray(0, count));
  }
}

/**
 * Writes all of `data` (text is written one byte a char, so "\xe9" is the byte 0xE9).
 *
 * @param conn The connection.
 * @param data Text or bytes.
 */
export async function send(conn: Deno.Conn, data: string | Uint8Array): Promise<void> {
  const bytes = typeof data === "string"
    ? Uint8Array.from(data, (char) => char.charCodeAt(0))
    : data;
  for (let written = 0; written < bytes.byteLength;) {
    written += await conn.write(bytes.subarray(written));
  }
}

/**
 * Resolves when the client has closed the connection (an end of stream or a reset).
 *
 * @param conn The connection.
 */
export async function untilClosed(conn: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(4096);
  try {
    while (await conn.read(buffer) !== null) {
      // the client sends nothing more; anything it does is ignored
    }
  } catch {
    // reset by the client
  }
}
