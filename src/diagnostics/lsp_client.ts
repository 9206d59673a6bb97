// A language server's JSON-RPC over its stdin and stdout (LSP base protocol: a Content-Length
// header, then the JSON body): requests with ids and their answers, notifications both ways,
// and the server's own requests answered as a small client does (its configuration from the
// config's settings, registrations and progress tokens accepted, anything else refused).

/** A message from the server. */
interface Incoming {
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

const HEADER_END = "\r\n\r\n";
/** Bytes a header may take: a real one is one or two short lines. */
const MAX_HEADER_BYTES = 1024;
/** Bytes one message may take: a file's diagnostics fit many times over. */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** One server process and the messages to and from it. */
export class LspClient {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, (message: Incoming) => void>();
  readonly #settings: unknown;
  #nextId = 1;
  #closed = false;
  #stderr = "";
  /** Resolves when the server's output has ended (it exited or was killed). */
  readonly ended: Promise<void>;
  /** Called with each notification (publishDiagnostics among them). */
  onNotification: (method: string, params: unknown) => void = () => {};

  /**
   * @param child The server, with piped stdin and stdout.
   * @param settings What workspace/configuration requests are answered from.
   */
  constructor(child: Deno.ChildProcess, settings?: unknown) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#settings = settings;
    this.ended = this.#read().finally(() => {
      this.#closed = true;
      for (const settle of this.#pending.values()) {
        settle({ error: { code: -32099, message: "the server ended" } });
      }
      this.#pending.clear();
    });
    // Its stderr is read (so a chatty server never blocks on a full pipe); the last of it
    // says why a server ended.
    void child.stderr.pipeTo(
      new WritableStream({
        write: (chunk) => {
          this.#stderr = (this.#stderr + new TextDecoder().decode(chunk)).slice(-2000);
        },
      }),
    ).catch(() => {});
  }

  /** Whether the server's output has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The last line the server wrote to stderr, for a note on why it ended. */
  get lastWords(): string {
    return this.#stderr.trim().split("\n").at(-1)?.trim() ?? "";
  }

  async #read(): Promise<void> {
    let buffer = new Uint8Array(0);
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.#child.stdout) {
        const joined = new Uint8Array(buffer.length + chunk.length);
        joined.set(buffer);
        joined.set(chunk, buffer.length);
        buffer = joined;
        while (true) {
          const head = decoder.decode(
            buffer.subarray(0, Math.min(buffer.length, MAX_HEADER_BYTES)),
          );
          const end = head.indexOf(HEADER_END);
          if (end < 0 && buffer.length >= MAX_HEADER_BYTES) throw new Error("a header never ends");
          if (end < 0) break;
          const length = Number(/content-length:\s*(\d+)/i.exec(head.slice(0, end))?.[1]);
          if (!Number.isFinite(length)) throw new Error("a message without Content-Length");
          // A server cannot make harness hold more than one bounded message.
          if (length > MAX_MESSAGE_BYTES) throw new Error("a message over the size limit");
          const start = new TextEncoder().encode(head.slice(0, end + HEADER_END.length)).length;
          if (buffer.length < start + length) break;
          const body = decoder.decode(buffer.subarray(start, start + length));
          buffer = buffer.slice(start + length);
          this.#receive(JSON.parse(body) as Incoming);
        }
      }
    } catch {
      // A broken stream or a server that breaks the protocol ends the client; the server is
      // stopped, so it cannot go on writing into a pipe nobody reads.
      try {
        this.#child.kill("SIGKILL");
      } catch { /* gone */ }
    }
  }

  #receive(message: Incoming): void {
    if (message.method === undefined) {
      if (typeof message.id === "number") {
        this.#pending.get(message.id)?.(message);
        this.#pending.delete(message.id);
      }
      return;
    }
    if (message.id === undefined || message.id === null) {
      this.onNotification(message.method, message.params);
      return;
    }
    this.#answer(message.id, message.method, message.params);
  }

  /** Answers what the server asks of its client. */
  #answer(id: number | string, method: string, params: unknown): void {
    switch (method) {
      case "workspace/configuration": {
        const items = (params as { items?: { section?: string }[] } | undefined)?.items ?? [];
        this.#send({ id, result: items.map((item) => this.#section(item.section)) });
        return;
      }
      case "client/registerCapability":
      case "client/unregisterCapability":
      case "window/workDoneProgress/create":
        this.#send({ id, result: null });
        return;
      case "workspace/workspaceFolders":
        this.#send({ id, result: null });
        return;
      default:
        this.#send({ id, error: { code: -32601, message: `${method} is not supported` } });
    }
  }

  /** A section of the settings ("python.analysis"), or null. */
  #section(section: string | undefined): unknown {
    let value: unknown = this.#settings ?? null;
    for (const key of section ? section.split(".") : []) {
      value = typeof value === "object" && value !== null
        ? (value as Record<string, unknown>)[key] ?? null
        : null;
    }
    return value;
  }

  #send(message: Record<string, unknown>): void {
    if (this.#closed) return;
    const body = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", ...message }));
    const head = new TextEncoder().encode(`Content-Length: ${body.length}${HEADER_END}`);
    const frame = new Uint8Array(head.length + body.length);
    frame.set(head);
    frame.set(body, head.length);
    this.#writer.write(frame).catch(() => {});
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    this.#send({ method, params });
  }

  /**
   * Sends a request; resolves with its result, rejects with the server's error or when the
   * server ends first.
   */
  request(method: string, params: unknown): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error("the server has ended"));
    const id = this.#nextId++;
    return new Promise((settle, fail) => {
      this.#pending.set(id, (message) => {
        if (message.error) fail(new Error(message.error.message));
        else settle(message.result);
      });
      this.#send({ id, method, params });
    });
  }

  /** Asks the server to shut down, then stops it (and what it started) either way. */
  async close(graceMs = 500): Promise<void> {
    if (!this.#closed) {
      const asked = this.request("shutdown", null).then(() => this.notify("exit", null));
      await Promise.race([asked.catch(() => {}), new Promise((r) => setTimeout(r, graceMs))]);
    }
    try {
      this.#child.kill("SIGKILL");
    } catch { /* gone */ }
    await this.#writer.close().catch(() => {});
    await Promise.race([this.ended, new Promise((r) => setTimeout(r, graceMs))]);
  }
}
