// The output of one command, kept with bounded memory whatever its size: the first bytes in
// memory, then everything in a log file (owner-only) that read_file can page through, and the
// last bytes in a small ring for progress lines and for what comes after the file's cap. Reads
// take a byte range and keep its head and tail within a limit, cut on line boundaries, and
// say which lines were left out and where they are saved.

import { join } from "../platform/paths.ts";
import { humanSize } from "../platform/human_size.ts";
import { ensurePrivateDir } from "../config/folders.ts";
import type { LogFollower } from "./job_terminal_view.ts";
import { concatBytes as concat } from "../platform/concat_bytes.ts";

/** Sizes of a log (defaults in brackets). */
export interface JobLogOptions {
  /** Folder of the log file, created owner-only when the output first leaves memory. */
  dir: string;
  /** The file's name without extension. */
  name: string;
  /** Bytes kept in memory before the output goes to the file [256 KiB]. */
  memoryBytes?: number;
  /** Bytes the file holds at most; past them only the ring keeps output [256 MiB]. */
  fileBytes?: number;
  /** Bytes of the newest output kept in memory [64 KiB]. */
  ringBytes?: number;
}

/** Part of the output as a read returns it. */
export interface LogRead {
  /** The text: whole, or its head and tail around a marker. */
  text: string;
  /** Bytes of the range left out of `text` (0 when whole). */
  cutBytes: number;
  /** The log file, when the output is on disk (the marker names it). */
  path?: string;
}

const INDEX_STEP = 64 * 1024;
/** Bytes handed to a new follower at a time, of the output kept so far. */
const FOLLOW_STEP = 64 * 1024;

const NEWLINE = 0x0a;

/** Whether a byte continues a UTF-8 sequence (10xxxxxx). */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at >= 0; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/**
 * A command's output: append chunks as they come (awaiting each write keeps memory bounded:
 * the process waits on a full pipe meanwhile), read ranges of it.
 *
 * @example
 * ```ts
 * import { JobLog } from "./job_log.ts";
 * const log = new JobLog({ dir: "/tmp", name: "doc" });
 * await log.append(new TextEncoder().encode("one\ntwo\n"));
 * if ((await log.read(0, log.total, 100)).text !== "one\ntwo\n") throw new Error();
 * await log.discard();
 * ```
 */
export class JobLog {
  readonly #options: Required<JobLogOptions>;
  /** Bytes received. */
  total = 0;
  /** Newlines received. */
  lines = 0;
  #memory: Uint8Array[] = [];
  #file: Deno.FsFile | undefined;
  #path: string | undefined;
  /** Bytes written to the file. */
  #filed = 0;
  #ring: Uint8Array[] = [];
  #ringLength = 0;
  /** [byte offset, newlines before it], one at least every INDEX_STEP bytes. */
  readonly #index: [number, number][] = [[0, 0]];
  #closed = false;
  #queue: Promise<void> = Promise.resolve();
  #followers: LogFollower[] = [];

  constructor(options: JobLogOptions) {
    this.#options = {
      memoryBytes: 256 * 1024,
      fileBytes: 256 * 1024 * 1024,
      ringBytes: 64 * 1024,
      ...options,
    };
  }

  /** The log file, once the output went to disk. */
  get path(): string | undefined {
    return this.#path;
  }

  /**
   * Appends one chunk (to memory, or to the file once past the memory limit). Appends from
   * two streams are kept in the order they were made.
   */
  append(chunk: Uint8Array): Promise<void> {
    const appended = this.#queue.then(() => this.#append(chunk));
    this.#queue = appended.catch(() => {});
    return appended;
  }

  async #append(chunk: Uint8Array): Promise<void> {
    if (chunk.length === 0 || this.#closed) return;
    const last = this.#index.at(-1)!;
    if (this.total - last[0] >= INDEX_STEP) this.#index.push([this.total, this.lines]);
    this.total += chunk.length;
    this.lines += countNewlines(chunk);
    this.#remember(chunk);
    await this.#tell(chunk);
    if (this.#file === undefined && this.total <= this.#options.memoryBytes) {
      this.#memory.push(chunk);
      return;
    }
    if (this.#file === undefined) {
      await this.#spill();
      this.#memory.push(chunk);
      await this.#flushMemory();
      return;
    }
    await this.#write(chunk);
  }

  /**
   * Hands `follower` the output kept so far, then each chunk as it comes, and the end.
   *
   * @returns Once the output so far was handed.
   */
  follow(follower: LogFollower): Promise<void> {
    const followed = this.#queue.then(async () => {
      for (let from = 0; from < this.total; from += FOLLOW_STEP) {
        const { bytes } = await this.#bytes(from, Math.min(this.total, from + FOLLOW_STEP));
        await follower.chunk(bytes);
      }
      if (this.#closed) follower.end();
      else this.#followers.push(follower);
    });
    this.#queue = followed.catch(() => {});
    return followed;
  }

  async #tell(chunk: Uint8Array): Promise<void> {
    for (const follower of this.#followers) {
      await follower.chunk(chunk).catch(() => {
        this.#followers = this.#followers.filter((each) => each !== follower);
        follower.end();
      });
    }
  }

  /** Keeps the newest bytes in the ring. */
  #remember(chunk: Uint8Array): void {
    const copy = chunk.slice(Math.max(0, chunk.length - this.#options.ringBytes));
    this.#ring.push(copy);
    this.#ringLength += copy.length;
    while (
      this.#ring.length > 1 &&
      this.#ringLength - this.#ring[0]!.length >= this.#options.ringBytes
    ) {
      this.#ringLength -= this.#ring.shift()!.length;
    }
  }

  /** Opens the log file (owner-only, in a folder made owner-only though it existed). */
  async #spill(): Promise<void> {
    ensurePrivateDir(this.#options.dir);
    const path = join(this.#options.dir, `${this.#options.name}.log`);
    this.#file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    this.#path = path;
  }

  async #flushMemory(): Promise<void> {
    const memory = this.#memory;
    this.#memory = [];
    for (const chunk of memory) await this.#write(chunk);
  }

  /** Writes what still fits under the file's cap. */
  async #write(chunk: Uint8Array): Promise<void> {
    const room = this.#options.fileBytes - this.#filed;
    if (room <= 0 || !this.#file) return;
    let part = chunk.subarray(0, room);
    while (part.length > 0) {
      const written = await this.#file.write(part);
      part = part.subarray(written);
      this.#filed += written;
    }
  }

  /**
   * Makes sure the whole output kept is in the file (a cut result names it), and returns it.
   *
   * @returns The file, or undefined when it cannot be written.
   */
  save(): Promise<string | undefined> {
    // In the append queue: what was appended before is written first, what comes after next.
    const saved = this.#queue.then(() => this.#save());
    this.#queue = saved.then(() => {}, () => {});
    return saved;
  }

  async #save(): Promise<string | undefined> {
    try {
      if (this.#path === undefined) {
        await this.#spill();
        await this.#flushMemory();
        if (this.#closed) {
          this.#file?.close();
          this.#file = undefined;
        }
      }
      return this.#path;
    } catch {
      return undefined;
    }
  }

  /** The newest output, at most `chars` characters of it (the running line's text). */
  recent(chars: number): string {
    const bytes = concat(this.#ring);
    let start = Math.max(0, bytes.length - chars * 2);
    while (start < bytes.length && isContinuation(bytes[start]!)) start++;
    return new TextDecoder().decode(bytes.subarray(start)).slice(-chars);
  }

  /** The bytes of [from, to) that are still kept, and how many of them are not. */
  async #bytes(from: number, to: number): Promise<{ bytes: Uint8Array; missing: number }> {
    if (to <= from) return { bytes: new Uint8Array(), missing: 0 };
    if (this.#path === undefined) {
      return { bytes: concat(this.#memory).slice(from, to), missing: 0 };
    }
    const parts: Uint8Array[] = [];
    const fileEnd = Math.min(to, this.#filed);
    if (from < fileEnd) parts.push(await this.#readFile(from, fileEnd));
    const ringStart = this.total - this.#ringLength;
    const missingFrom = Math.max(from, this.#filed);
    const missingTo = Math.min(to, ringStart);
    const missing = Math.max(0, missingTo - missingFrom);
    if (to > ringStart && to > this.#filed) {
      const start = Math.max(from, ringStart, this.#filed) - ringStart;
      parts.push(concat(this.#ring).slice(start, to - ringStart));
    }
    return { bytes: concat(parts), missing };
  }

  async #readFile(from: number, to: number): Promise<Uint8Array> {
    using file = await Deno.open(this.#path!, { read: true });
    await file.seek(from, Deno.SeekMode.Start);
    const out = new Uint8Array(to - from);
    let at = 0;
    while (at < out.length) {
      const read = await file.read(out.subarray(at));
      if (read === null) break;
      at += read;
    }
    return out.subarray(0, at);
  }

  /**
   * 1-based number of the line that byte `offset` is on; undefined for an offset in the part
   * that was not kept (past the file's cap, before the ring).
   */
  async lineAt(offset: number): Promise<number | undefined> {
    const ringStart = this.total - this.#ringLength;
    if (offset >= ringStart) {
      // Counted back from the end: the ring holds every byte from its start to the end.
      const after = concat(this.#ring).subarray(offset - ringStart);
      return this.lines - countNewlines(after) + 1;
    }
    if (offset > this.#options.fileBytes) return undefined;
    let base: [number, number] = [0, 0];
    for (const entry of this.#index) {
      if (entry[0] > offset) break;
      base = entry;
    }
    const { bytes } = await this.#bytes(base[0], offset);
    return base[1] + countNewlines(bytes) + 1;
  }

  /**
   * The text of bytes [from, to): whole when it fits in `limit` bytes, else its head and tail
   * (cut after a newline where one is near) around a marker naming the lines left out and the
   * file that holds them.
   *
   * @param from First byte.
   * @param to End byte (exclusive).
   * @param limit Bytes the text may hold, marker aside.
   */
  async read(from: number, to: number, limit: number): Promise<LogRead> {
    const decoder = new TextDecoder();
    if (to - from <= limit) {
      const { bytes, missing } = await this.#bytes(from, to);
      const gap = missing > 0 ? `\n[... ${missing} bytes not kept (past the log's cap) ...]\n` : "";
      const text = missing > 0
        ? `${decoder.decode(bytes.subarray(0, this.#filed - from))}${gap}${
          decoder.decode(bytes.subarray(this.#filed - from))
        }`
        : decoder.decode(bytes);
      return { text, cutBytes: missing, ...(this.#path ? { path: this.#path } : {}) };
    }
    const half = Math.floor(limit / 2);
    const head = lineEnd((await this.#bytes(from, from + half)).bytes);
    const tail = lineStart((await this.#bytes(to - half, to)).bytes);
    const headEnd = from + head.length;
    const tailStart = to - tail.length;
    const path = await this.save();
    const firstCut = await this.lineAt(headEnd);
    const lastCut = await this.lineAt(tailStart);
    const lines = firstCut !== undefined && lastCut !== undefined && lastCut - 1 >= firstCut
      ? `lines ${firstCut}-${lastCut - 1} (`
      : "(";
    const before = head.at(-1) === NEWLINE || head.length === 0 ? "" : "\n";
    const marker = `${before}[... ${lines}${humanSize(tailStart - headEnd)}) cut here${
      this.#where(path, headEnd, firstCut)
    } ...]\n`;
    return {
      text: `${decoder.decode(head)}${marker}${decoder.decode(tail)}`,
      cutBytes: tailStart - headEnd,
      ...(path ? { path } : {}),
    };
  }

  /**
   * Where the part cut from byte `headEnd` on can be read, for the marker: the file, what it
   * holds (the whole output, or its start when the output passed the file's cap) and the
   * read_file offset, or that the part was not kept.
   */
  #where(path: string | undefined, headEnd: number, firstCut: number | undefined): string {
    if (path === undefined) return "";
    const size = humanSize(this.total);
    const cap = this.#options.fileBytes;
    if (this.total <= cap) {
      return `; the whole output (${size}) saved to "${path}": read_file it with offset ` +
        `${firstCut} to see them`;
    }
    const kept = humanSize(cap);
    if (firstCut === undefined || headEnd >= cap) {
      return `; the log "${path}" keeps only the first ${kept} of the ${size} output, so ` +
        "this part was not kept";
    }
    return `; the first ${kept} of the ${size} output saved to "${path}": read_file it with ` +
      `offset ${firstCut} to see what it holds of them`;
  }

  /** Closes the file (the output has ended); what was written stays readable. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const follower of this.#followers.splice(0)) follower.end();
    try {
      this.#file?.close();
    } catch { /* closed already */ }
    this.#file = undefined;
    // Reads after the end go to the file by path; the memory part stays for small outputs.
    if (this.#path !== undefined) this.#memory = [];
  }

  /** Closes and deletes the file (nothing names it). */
  async discard(): Promise<void> {
    this.close();
    if (this.#path !== undefined) await Deno.remove(this.#path).catch(() => {});
  }
}

/** `bytes` up to its last newline when one is in its last fifth, and never in a character. */
function lineEnd(bytes: Uint8Array): Uint8Array {
  const newline = bytes.lastIndexOf(NEWLINE);
  if (newline >= 0 && newline >= bytes.length * 0.8) return bytes.subarray(0, newline + 1);
  let end = bytes.length;
  while (end > 0 && bytes.length - end < 3 && isContinuation(bytes[end - 1]!)) end--;
  if (end === 0) return bytes;
  const lead = bytes[end - 1]!;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return end - 1 + size > bytes.length ? bytes.subarray(0, end - 1) : bytes;
}

/** `bytes` from after its first newline when one is in its first fifth, on a character start. */
function lineStart(bytes: Uint8Array): Uint8Array {
  const newline = bytes.indexOf(NEWLINE);
  if (newline >= 0 && newline < bytes.length * 0.2) return bytes.subarray(newline + 1);
  let start = 0;
  while (start < bytes.length && start < 3 && isContinuation(bytes[start]!)) start++;
  return bytes.subarray(start);
}
