// Reads one HTTP/1.1 response from a connection (http_request.ts's own path): the status line,
// the header fields and the body as its framing says (RFC 9112 section 6.3): none for HEAD,
// 1xx, 204 and 304, chunked when the last transfer coding is, else Content-Length, else until
// the server closes. Interim 1xx answers are skipped. Anything malformed is an error, never a
// guess: a server that cannot frame its answer breaks the request as it would under fetch.
// The header section is bounded (64 KiB, 100 fields); the body is streamed as it arrives, and
// its size is the caller's to bound.

import { concatBytes } from "../platform/concat_bytes.ts";

/** Where the bytes come from: a TCP connection, or a script in tests. */
export interface ByteSource {
  /** Resolves to the next bytes, or null at the end. */
  read(): Promise<Uint8Array | null>;
}

/** The start of a response: status and header fields (names lower-case). */
export interface ResponseHead {
  status: number;
  statusText: string;
  /** Each field's values joined with ", ", as fetch's Headers.get gives them. */
  fields: Map<string, string>;
}

/** fetch's words for a body cut off (kept, so both paths say the same). */
const BODY_CUT = "error reading a body from connection";
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_FIELDS = 100;
const MAX_CHUNK_LINE = 4096;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A line longer than its reader's limit (readResponseHead says it of the whole header). */
class LineTooLong extends Error {}

/** A reader that hands back what a line read took too many of. */
export class BufferedSource {
  #source: ByteSource;
  #held: Uint8Array = new Uint8Array(0);
  #ended = false;

  constructor(source: ByteSource) {
    this.#source = source;
  }

  /** The next bytes: those held back first, then the source's; null at the end. */
  async next(): Promise<Uint8Array | null> {
    if (this.#held.byteLength > 0) {
      const held = this.#held;
      this.#held = new Uint8Array(0);
      return held;
    }
    if (this.#ended) return null;
    const bytes = await this.#source.read();
    if (bytes === null) this.#ended = true;
    return bytes;
  }

  /** Gives bytes back, to be read first. */
  unread(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.#held = this.#held.byteLength === 0 ? bytes : concatBytes([this.#held, bytes]);
  }

  /**
   * One line without its LF (or CRLF), as Latin-1 text; null when the source ended first.
   * Each byte is looked at once, however the line arrives (a byte per read included).
   *
   * @param limit The most bytes a line may have.
   */
  async line(limit: number): Promise<string | null> {
    const pieces: Uint8Array[] = [];
    let taken = 0;
    for (;;) {
      const bytes = await this.next();
      if (bytes === null) return null;
      const end = bytes.indexOf(10);
      if (end >= 0) {
        this.unread(bytes.subarray(end + 1));
        pieces.push(bytes.subarray(0, end));
        const line = pieces.length === 1 ? pieces[0]! : concatBytes(pieces);
        return latin1(line.at(-1) === 13 ? line.subarray(0, -1) : line);
      }
      pieces.push(bytes);
      taken += bytes.byteLength;
      if (taken > limit) throw new LineTooLong(`a line of the response is over ${limit} bytes`);
    }
  }
}

/** Bytes as text, one character per byte (header fields are ASCII; obs-text stays itself). */
function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.byteLength; i += 4096) {
    text += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return text;
}

/**
 * Reads the status line and header fields of the final response (1xx answers are skipped).
 *
 * @param reader The connection's bytes.
 * @returns The head; the body's bytes stay in the reader.
 *
 * @example
 * ```ts
 * import { BufferedSource, readResponseHead } from "./http1_response.ts";
 * const bytes = [new TextEncoder().encode("HTTP/1.1 200 OK\r\nA: 1\r\na: 2\r\n\r\nbody")];
 * const reader = new BufferedSource({ read: async () => bytes.shift() ?? null });
 * const head = await readResponseHead(reader);
 * if (head.status !== 200 || head.fields.get("a") !== "1, 2") throw new Error();
 * ```
 */
export async function readResponseHead(reader: BufferedSource): Promise<ResponseHead> {
  // One budget for the interim answers and the final one: endless 100s are refused too.
  const budget = { left: MAX_HEAD_BYTES };
  for (;;) {
    const head = await readOneHead(reader, budget);
    if (head.status >= 200 || head.status === 101) return head;
  }
}

async function readOneHead(
  reader: BufferedSource,
  budget: { left: number },
): Promise<ResponseHead> {
  const tooLong = () => new Error(`the response's header is over ${MAX_HEAD_BYTES} bytes`);
  const line = async (): Promise<string> => {
    const text = await reader.line(budget.left).catch((error) => {
      throw error instanceof LineTooLong ? tooLong() : error;
    });
    if (text === null) throw new Error("the server closed the connection before its answer");
    budget.left -= text.length + 2;
    if (budget.left < 0) throw tooLong();
    return text;
  };
  const status = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(await line());
  if (!status) throw new Error("the server's answer is not HTTP/1.1");
  const fields = new Map<string, string>();
  let count = 0;
  for (let text = await line(); text !== ""; text = await line()) {
    if (++count > MAX_FIELDS) throw new Error(`the response has over ${MAX_FIELDS} header fields`);
    const colon = text.indexOf(":");
    const name = colon < 0 ? "" : text.slice(0, colon);
    if (!TOKEN.test(name)) throw new Error("the response has a malformed header field");
    const value = text.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    const key = name.toLowerCase();
    const before = fields.get(key);
    fields.set(key, before === undefined ? value : `${before}, ${value}`);
  }
  return { status: Number(status[1]), statusText: status[2] ?? "", fields };
}

/** How the body of a response ends. */
export type BodyFraming =
  | { kind: "none" }
  | { kind: "chunked" }
  | { kind: "length"; bytes: number }
  | { kind: "close" };

/**
 * The framing of a response's body (RFC 9112 section 6.3).
 *
 * @param head The response's head.
 * @param method The request's method.
 */
export function bodyFraming(head: ResponseHead, method: string): BodyFraming {
  const { status, fields } = head;
  if (method === "HEAD" || status < 200 || status === 204 || status === 304) {
    return { kind: "none" };
  }
  const coding = fields.get("transfer-encoding");
  if (coding !== undefined) {
    const last = coding.split(",").at(-1)!.trim().toLowerCase();
    return last === "chunked" ? { kind: "chunked" } : { kind: "close" };
  }
  const length = fields.get("content-length");
  if (length === undefined) return { kind: "close" };
  const values = new Set(length.split(",").map((value) => value.trim()));
  const [only] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(only!)) {
    throw new Error(`the response's content-length is malformed: "${length.slice(0, 40)}"`);
  }
  return { kind: "length", bytes: Number(only) };
}

/**
 * The body's bytes, as they arrive, until its framing says it ended.
 *
 * @param reader The connection's bytes, after the head.
 * @param framing From {@linkcode bodyFraming}.
 * @returns The body's pieces; throws when the connection ends before the body does.
 */
export async function* readBody(
  reader: BufferedSource,
  framing: BodyFraming,
): AsyncGenerator<Uint8Array> {
  switch (framing.kind) {
    case "none":
      return;
    case "close":
      for (let bytes = await reader.next(); bytes !== null; bytes = await reader.next()) {
        yield bytes;
      }
      return;
    case "length":
      yield* readExactly(reader, framing.bytes);
      return;
    case "chunked":
      yield* readChunks(reader);
  }
}

async function* readExactly(reader: BufferedSource, total: number): AsyncGenerator<Uint8Array> {
  let left = total;
  while (left > 0) {
    const bytes = await reader.next();
    if (bytes === null) throw new Error(BODY_CUT);
    if (bytes.byteLength > left) {
      reader.unread(bytes.subarray(left));
      yield bytes.subarray(0, left);
      return;
    }
    left -= bytes.byteLength;
    yield bytes;
  }
}

async function* readChunks(reader: BufferedSource): AsyncGenerator<Uint8Array> {
  const line = async (): Promise<string> => {
    const text = await reader.line(MAX_CHUNK_LINE);
    if (text === null) throw new Error(BODY_CUT);
    return text;
  };
  for (;;) {
    const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(await line());
    if (!size) throw new Error("the response's chunked body is malformed");
    const bytes = parseInt(size[1]!, 16);
    if (bytes === 0) break;
    yield* readExactly(reader, bytes);
    if (await line() !== "") throw new Error("the response's chunked body is malformed");
  }
  let trailers = 0;
  while (await line() !== "") {
    if (++trailers > MAX_FIELDS) throw new Error("the response's chunked body is malformed");
  }
}
