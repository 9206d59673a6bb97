// Reads ripgrep's standard output as search_arguments.ts asks for it (`--null --line-number
// --stats`): one record per matching line, `PATH NUL LINE ":" TEXT "\n"`, then an empty line
// and the statistics, of which "N files searched" counts every file ripgrep opened (its
// --json summary counts only files with matches). Records arrive in chunks of any size.

/** One matching line as ripgrep printed it. */
export interface RgLine {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line's bytes without its "\n" (a "\r" before it stays). */
  bytes: Uint8Array;
}

const NUL = 0;
const NEWLINE = 10;
const COLON = 58;

/** A parser fed ripgrep's output chunk by chunk. */
export class RgOutput {
  #buffer = new Uint8Array(64 * 1024);
  #length = 0;
  #stats: string | undefined;
  readonly #paths = new TextDecoder();

  /**
   * Feeds a chunk and reports every record it completes.
   *
   * @param chunk Bytes of standard output, in order.
   * @param root The absolute folder paths start with (removed with the "/" after it).
   * @param onLine Called per matching line, in output order.
   *
   * @example
   * ```ts
   * import { RgOutput } from "./rg_output.ts";
   * const out = new RgOutput();
   * const seen: string[] = [];
   * const bytes = new TextEncoder().encode("/w/a.ts\x003:hit\n\n1 matches\n7 files searched\n");
   * out.push(bytes.subarray(0, 9), "/w", (l) => seen.push(`${l.path}:${l.line}`));
   * out.push(bytes.subarray(9), "/w", (l) => seen.push(`${l.path}:${l.line}`));
   * if (seen.join() !== "a.ts:3" || out.filesSearched() !== 7) throw new Error(seen.join());
   * ```
   */
  push(chunk: Uint8Array, root: string, onLine: (line: RgLine) => void): void {
    if (this.#stats !== undefined) {
      this.#stats += new TextDecoder().decode(chunk);
      return;
    }
    this.#append(chunk);
    const buffer = this.#buffer;
    let at = 0;
    while (at < this.#length) {
      // Paths start with the root, never with a line break: an empty line starts the
      // statistics.
      if (buffer[at] === NEWLINE) {
        this.#stats = new TextDecoder().decode(buffer.subarray(at + 1, this.#length));
        at = this.#length;
        break;
      }
      // A binary file found after a match: "PATH: WARNING: stopped searching binary file ...",
      // the one line without a NUL after its path.
      const newline = buffer.subarray(0, this.#length).indexOf(NEWLINE, at);
      const nul = buffer.subarray(0, this.#length).indexOf(NUL, at);
      if (newline !== -1 && (nul === -1 || nul > newline)) {
        const line = this.#paths.decode(buffer.subarray(at, newline));
        if (/: WARNING: stopped searching binary file/.test(line)) {
          at = newline + 1;
          continue;
        }
      }
      if (nul === -1) break;
      const colon = buffer.subarray(0, this.#length).indexOf(COLON, nul + 1);
      if (colon === -1) break;
      const end = buffer.subarray(0, this.#length).indexOf(NEWLINE, colon + 1);
      if (end === -1) break;
      const path = this.#paths.decode(buffer.subarray(at, nul));
      let line = 0;
      for (let i = nul + 1; i < colon; i++) line = line * 10 + (buffer[i]! - 48);
      onLine({
        path: path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path,
        line,
        bytes: buffer.slice(colon + 1, end),
      });
      at = end + 1;
    }
    buffer.copyWithin(0, at, this.#length);
    this.#length -= at;
  }

  #append(chunk: Uint8Array): void {
    if (this.#length + chunk.length > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(this.#buffer.length * 2, this.#length + chunk.length));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    this.#buffer.set(chunk, this.#length);
    this.#length += chunk.length;
  }

  /** "N files searched" from the statistics; undefined until they have come. */
  filesSearched(): number | undefined {
    const found = /^(\d+) files searched$/m.exec(this.#stats ?? "");
    return found ? Number(found[1]) : undefined;
  }
}
