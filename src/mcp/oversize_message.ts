// One JSON-RPC message from an MCP server that is larger than a message may be held in memory
// (10 MiB, the SDK's own limit): instead of failing the connection, its bytes stream through a
// small JSON scanner as they arrive. The scanner keeps only the top-level `id`, which of
// `result`, `error` or `method` it has, and writes the text of `result.content[].text` (or
// `error.message`), unescaped, to a saved file, keeping its start for the answer. Nothing the
// server sends decides where the file goes.

import { dirname } from "node:path";
import { ensurePrivateDir } from "../config/folders.ts";

/** What a message streamed to a file turned out to be. */
export interface OversizeMessage {
  /** The top-level `id`, when there was one (a number or a string). */
  id?: number | string;
  /** Top-level keys among `result`, `error`, `method`. */
  kinds: Set<string>;
  /** Bytes of the whole message. */
  bytes: number;
  /** Bytes of its text, as saved. */
  textBytes: number;
  /** The start of its text. */
  head: string;
  /** Where its text is. */
  file: string;
}

interface Frame {
  kind: "object" | "array";
  key: string | undefined;
  index: number;
}

type Expect = "value" | "key" | "colon" | "next";

const QUOTE = 34;
const BACKSLASH = 92;
const ESCAPES: Record<number, number> = {
  34: 34, // "
  92: 92, // \
  47: 47, // /
  98: 8, // b
  102: 12, // f
  110: 10, // n
  114: 13, // r
  116: 9, // t
};
const MAX_KEY = 64;

/** Streams one oversized message's bytes into a text file (see the module comment). */
export class OversizeSpill {
  readonly #file: Deno.FsFile;
  readonly #path: string;
  readonly #head: Uint8Array;
  #headUsed = 0;
  readonly #out = new Uint8Array(64 * 1024);
  #outUsed = 0;
  #textBytes = 0;
  #bytes = 0;
  readonly #stack: Frame[] = [];
  #expect: Expect = "value";
  #inString = false;
  #escape = false;
  #unicode = "";
  #highSurrogate = 0;
  /** Bytes of a key, or of the top-level id, while it is read. */
  #token: number[] | undefined;
  #tokenIsKey = false;
  #capture = false;
  #captured = 0;
  #literal = false;
  #id: string | undefined;
  readonly #kinds = new Set<string>();

  /**
   * @param path The file the text goes to (its folder is made owner-only).
   * @param headBytes How much of the text's start to keep for the answer.
   */
  constructor(path: string, headBytes = 16 * 1024) {
    ensurePrivateDir(dirname(path));
    this.#file = Deno.openSync(path, { write: true, createNew: true, mode: 0o600 });
    this.#path = path;
    this.#head = new Uint8Array(headBytes);
  }

  /** Takes the next bytes of the message (no newline: the message ends at the caller's). */
  write(bytes: Uint8Array): void {
    this.#bytes += bytes.length;
    let i = 0;
    while (i < bytes.length) {
      if (this.#inString) i = this.#stringBytes(bytes, i);
      else if (this.#literal) i = this.#literalBytes(bytes, i);
      else this.#structure(bytes[i++]!);
    }
  }

  /** Ends the message: flushes and closes the file. */
  finish(): OversizeMessage {
    this.#flush();
    this.#file.close();
    let id: number | string | undefined;
    try {
      const parsed = this.#id === undefined ? undefined : JSON.parse(this.#id);
      if (typeof parsed === "number" || typeof parsed === "string") id = parsed;
    } catch {
      // not a JSON value: no id
    }
    return {
      ...(id === undefined ? {} : { id }),
      kinds: this.#kinds,
      bytes: this.#bytes,
      textBytes: this.#textBytes,
      head: new TextDecoder().decode(this.#head.subarray(0, this.#headUsed)).replace(/\uFFFD$/, ""),
      file: this.#path,
    };
  }

  /** Whether a string value starting now is text to keep. */
  #isText(): boolean {
    const s = this.#stack;
    if (s.length === 4) {
      return s[0]!.key === "result" && s[1]!.key === "content" && s[2]!.kind === "array" &&
        s[3]!.key === "text";
    }
    return s.length === 2 && s[0]!.key === "error" && s[1]!.key === "message";
  }

  #structure(c: number): void {
    if (c === 32 || c === 9 || c === 13 || c === 10) return;
    const top = this.#stack.at(-1);
    if (c === QUOTE) {
      this.#inString = true;
      this.#tokenIsKey = this.#expect === "key";
      const isId = !this.#tokenIsKey && this.#stack.length === 1 && top?.key === "id";
      this.#token = this.#tokenIsKey || isId ? (isId ? [QUOTE] : []) : undefined;
      this.#capture = !this.#tokenIsKey && this.#isText();
      if (this.#capture && this.#captured++ > 0) this.#emitByte(10);
      return;
    }
    if (c === 123 || c === 91) { // { [
      this.#stack.push({ kind: c === 123 ? "object" : "array", key: undefined, index: 0 });
      this.#expect = c === 123 ? "key" : "value";
      return;
    }
    if (c === 125 || c === 93) { // } ]
      this.#stack.pop();
      this.#expect = "next";
      return;
    }
    if (c === 58) { // :
      this.#expect = "value";
      return;
    }
    if (c === 44) { // ,
      if (top?.kind === "array") top.index++;
      this.#expect = top?.kind === "object" ? "key" : "value";
      return;
    }
    // A number, true, false or null.
    this.#literal = true;
    this.#tokenIsKey = false;
    this.#token = this.#stack.length === 1 && top?.key === "id" ? [c] : undefined;
  }

  #literalBytes(bytes: Uint8Array, start: number): number {
    let i = start;
    while (i < bytes.length) {
      const c = bytes[i]!;
      if (c === 44 || c === 125 || c === 93 || c === 32 || c === 10 || c === 13 || c === 9) break;
      this.#token?.push(c);
      i++;
    }
    if (i < bytes.length) {
      this.#literal = false;
      this.#valueDone();
    }
    return i;
  }

  #stringBytes(bytes: Uint8Array, start: number): number {
    let i = start;
    if (this.#escape) return this.#escaped(bytes, i);
    while (i < bytes.length && bytes[i] !== QUOTE && bytes[i] !== BACKSLASH) i++;
    if (i > start) this.#stringPart(bytes.subarray(start, i));
    if (i === bytes.length) return i;
    if (bytes[i] === BACKSLASH) {
      this.#escape = true;
      return i + 1;
    }
    // The closing quote.
    this.#inString = false;
    if (this.#tokenIsKey) {
      const key = new TextDecoder().decode(new Uint8Array(this.#token ?? []));
      const top = this.#stack.at(-1);
      if (top) top.key = key;
      if (this.#stack.length === 1) this.#kinds.add(key);
      this.#token = undefined;
      this.#expect = "colon";
    } else {
      this.#token?.push(QUOTE);
      this.#valueDone();
    }
    return i + 1;
  }

  /** The character after a backslash, or a \uXXXX escape's digits. */
  #escaped(bytes: Uint8Array, start: number): number {
    let i = start;
    if (this.#unicode === "" && bytes[i] !== 117) { // not \u
      const c = ESCAPES[bytes[i]!] ?? bytes[i]!;
      this.#escape = false;
      if (this.#token) this.#token.push(BACKSLASH, bytes[i]!);
      else if (this.#capture) this.#emitByte(c);
      return i + 1;
    }
    if (this.#unicode === "") {
      this.#unicode = "u";
      i++;
    }
    while (i < bytes.length && this.#unicode.length < 5) {
      this.#unicode += String.fromCharCode(bytes[i++]!);
    }
    if (this.#unicode.length < 5) return i;
    const unit = parseInt(this.#unicode.slice(1), 16);
    if (this.#token) {
      for (const ch of `\\${this.#unicode}`) this.#token.push(ch.charCodeAt(0));
    }
    this.#unicode = "";
    this.#escape = false;
    if (!this.#capture || Number.isNaN(unit)) return i;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      this.#highSurrogate = unit;
      return i;
    }
    const text = this.#highSurrogate && unit >= 0xdc00 && unit <= 0xdfff
      ? String.fromCharCode(this.#highSurrogate, unit)
      : String.fromCharCode(unit);
    this.#highSurrogate = 0;
    this.#emit(new TextEncoder().encode(text));
    return i;
  }

  #stringPart(part: Uint8Array): void {
    if (this.#token) {
      if (this.#token.length < MAX_KEY) this.#token.push(...part.subarray(0, MAX_KEY));
    } else if (this.#capture) this.#emit(part);
  }

  #valueDone(): void {
    if (this.#token && !this.#tokenIsKey) {
      this.#id = new TextDecoder().decode(new Uint8Array(this.#token));
    }
    this.#token = undefined;
    this.#capture = false;
    this.#expect = "next";
  }

  #emitByte(c: number): void {
    this.#textBytes++;
    if (this.#headUsed < this.#head.length) this.#head[this.#headUsed++] = c;
    if (this.#outUsed === this.#out.length) this.#flush();
    this.#out[this.#outUsed++] = c;
  }

  #emit(bytes: Uint8Array): void {
    this.#textBytes += bytes.length;
    if (this.#headUsed < this.#head.length) {
      const take = bytes.subarray(0, this.#head.length - this.#headUsed);
      this.#head.set(take, this.#headUsed);
      this.#headUsed += take.length;
    }
    if (this.#outUsed + bytes.length > this.#out.length) this.#flush();
    if (bytes.length > this.#out.length) {
      this.#writeAll(bytes);
      return;
    }
    this.#out.set(bytes, this.#outUsed);
    this.#outUsed += bytes.length;
  }

  #flush(): void {
    this.#writeAll(this.#out.subarray(0, this.#outUsed));
    this.#outUsed = 0;
  }

  #writeAll(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.length) done += this.#file.writeSync(bytes.subarray(done));
  }
}
