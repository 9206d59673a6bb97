// Output capture for run_command: chunks from stdout and stderr are appended in arrival
// order; past the limit the head and the tail are kept and the middle is counted, so a
// long build log still shows how it started and how it ended.

/**
 * Collects process output bytes, keeping at most `headBytes` from the start and
 * `tailBytes` from the end.
 *
 * @example
 * ```ts
 * import { OutputCollector } from "./command_output.ts";
 * const out = new OutputCollector({ headBytes: 2, tailBytes: 2 });
 * out.push(new TextEncoder().encode("abcdefgh"));
 * if (!out.text().startsWith("ab") || !out.text().endsWith("gh")) throw new Error(out.text());
 * ```
 */
export class OutputCollector {
  readonly #headBytes: number;
  readonly #tailBytes: number;
  #head: Uint8Array[] = [];
  #headLength = 0;
  #tail: Uint8Array[] = [];
  #tailLength = 0;
  #total = 0;

  constructor(options: { headBytes: number; tailBytes: number }) {
    this.#headBytes = options.headBytes;
    this.#tailBytes = options.tailBytes;
  }

  /** Bytes received so far. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Appends one chunk. */
  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headLength < this.#headBytes) {
      const take = Math.min(rest.length, this.#headBytes - this.#headLength);
      this.#head.push(rest.subarray(0, take));
      this.#headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.#tail.push(rest);
    this.#tailLength += rest.length;
    while (
      this.#tail.length > 1 && this.#tailLength - (this.#tail[0]?.length ?? 0) >= this.#tailBytes
    ) {
      this.#tailLength -= this.#tail.shift()?.length ?? 0;
    }
  }

  /** The collected text, with a marker saying how many bytes were cut from the middle. */
  text(): string {
    const decoder = new TextDecoder();
    const head = decoder.decode(concat(this.#head));
    let tail = concat(this.#tail);
    if (tail.length > this.#tailBytes) tail = tail.subarray(tail.length - this.#tailBytes);
    const cut = this.#total - this.#headLength - tail.length;
    if (cut === 0) return head + decoder.decode(tail);
    return `${head}\n[... ${cut} bytes of output cut here; ${this.#total} bytes in total ...]\n${
      decoder.decode(tail)
    }`;
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
