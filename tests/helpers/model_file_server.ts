// A loopback HTTP server that serves model files the way Hugging Face's CDN does for a
// downloader: Content-Length, ETag, Accept-Ranges and 206 answers to Range requests, 404 for
// anything else. `stallAfter(n)` makes it send at most n body bytes per Range request and
// then hold the connection open without sending more, as a network that dies mid-download
// does (a plain GET, which a downloader sends to read the headers, then gets no body).

/** One request the server received. */
export interface SeenRequest {
  method: string;
  path: string;
  range: string | null;
  /** Body bytes sent in answer. */
  sent: number;
}

export interface ModelFileServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  requests: SeenRequest[];
  /** Body bytes sent so far, over all requests. */
  bytesSent(): number;
  /** Sends at most `bytes` per Range request, then stalls (undefined: no limit). */
  stallAfter(bytes: number | undefined): void;
}

/**
 * Starts the server.
 *
 * @param files Path (such as `/m.gguf`) to contents.
 */
export function startModelFileServer(files: Record<string, Uint8Array>): ModelFileServer {
  const requests: SeenRequest[] = [];
  let budget: number | undefined;
  let total = 0;
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const held: { controller: ReadableStreamDefaultController<Uint8Array>; release(): void }[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    const seen: SeenRequest = {
      method: request.method,
      path,
      range: request.headers.get("range"),
      sent: 0,
    };
    requests.push(seen);
    const body = files[path];
    if (body === undefined) return new Response("Entry not found", { status: 404 });
    let start = 0;
    let end = body.length - 1;
    const match = /^bytes=(\d+)-(\d*)$/.exec(seen.range ?? "");
    if (match) {
      start = Number(match[1]);
      if (match[2] !== "") end = Math.min(end, Number(match[2]));
    }
    const slice = body.subarray(start, end + 1);
    const headers: Record<string, string> = {
      "content-length": String(slice.length),
      "accept-ranges": "bytes",
      "etag": `"${body.length}"`,
      "content-type": "application/octet-stream",
      "connection": "close",
      ...(match ? { "content-range": `bytes ${start}-${end}/${body.length}` } : {}),
    };
    const status = match ? 206 : 200;
    if (request.method === "HEAD") return new Response(null, { status, headers });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        // Closed at shutdown even when the client stopped reading (then pull is not called).
        open.add(controller);
      },
      pull(controller) {
        const allowed = budget === undefined ? Infinity : match ? budget - seen.sent : 0;
        const n = Math.min(64 * 1024, slice.length - seen.sent, allowed);
        if (n <= 0 && seen.sent < slice.length) {
          // Stalled: send nothing more until the server closes.
          return new Promise<void>((release) => held.push({ controller, release }));
        }
        if (n <= 0) {
          open.delete(controller);
          controller.close();
          return;
        }
        controller.enqueue(slice.subarray(seen.sent, seen.sent + n));
        seen.sent += n;
        total += n;
      },
      cancel() {},
    });
    return new Response(stream, { status, headers });
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    requests,
    bytesSent: () => total,
    stallAfter(bytes) {
      budget = bytes;
    },
    async [Symbol.asyncDispose]() {
      for (const controller of open) {
        try {
          controller.close();
        } catch {
          // already closed
        }
      }
      for (const { release } of held) release();
      await server.shutdown();
    },
  };
}

/**
 * Waits until an interrupted download has saved a complete chunk in its `.ipull` file: the
 * downloader (ipull) keeps its progress as JSON after the file's bytes, with each chunk's
 * status (2: complete), and a run that stops after that continues from it.
 *
 * @param partial The `.ipull` file.
 * @param size The whole file's size (where the progress starts).
 * @param ms How long to wait before failing.
 */
export async function chunkSaved(partial: string, size: number, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    let saved: unknown;
    try {
      const bytes = await Deno.readFile(partial);
      saved = JSON.parse(new TextDecoder().decode(bytes.subarray(size))).chunks;
    } catch {
      // not written yet, or being written
    }
    if (Array.isArray(saved) && saved.includes(2)) return;
    if (Date.now() > deadline) throw new Error(`No complete chunk saved in "${partial}"`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
