// Output capture for run_command: chunks from stdout and stderr are appended in arrival
// order and kept whole up to 32 MiB (the tool host saves them for read_file when it cuts the
// result for the model); past that the head and the tail are kept and the middle is counted,
// so a long build log still shows how it started and how it ended, and says how large it was.

import { humanSize } from "../../platform/human_size.ts";
import { concatBytes as concat } from "../../platform/concat_bytes.ts";

/** What run_command keeps of a command's output: 4 MiB from its start, 28 MiB from its end. */
export const COMMAND_OUTPUT_LIMITS = { headBytes: 4 * 1024 * 1024, tailBytes: 28 * 1024 * 1024 };

/**
 * Collects process output bytes, keeping at most `headBytes` from the start and
 * `tailBytes` from the end.
 *
 * @example
 * ```ts
 * import { OutputCollector } from "./command_output.ts";
 * const out = new OutputCollector({ headBytes: 2, tailBytes: 2 });
 * out.push(new TextEncoder().encode("abcdefgh"));
 * const text = out.text();
 * if (!text.startsWith("ab") || !text.includes("\ngh\n[the command printed 8 B")) throw new Error(text);
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

  /** Whether bytes from the middle were dropped (more came than head and tail hold). */
  get cut(): boolean {
    return this.#total > this.#headBytes + this.#tailBytes;
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

  /**
   * The collected text, with a marker where bytes were cut from the middle and a last line
   * giving the output's real size (the tail survives a cut for the model's context). The cut
   * falls on character boundaries: a UTF-8 character split by the head or tail edge is dropped
   * whole (and counted as cut) instead of decoding to U+FFFD.
   */
  text(): string {
    const decoder = new TextDecoder();
    let head = concat(this.#head);
    let tail = concat(this.#tail);
    if (tail.length > this.#tailBytes) tail = tail.subarray(tail.length - this.#tailBytes);
    if (this.#total === head.length + tail.length) return decoder.decode(concat([head, tail]));
    head = head.subarray(0, completeEnd(head));
    tail = tail.subarray(characterStart(tail));
    const cut = this.#total - head.length - tail.length;
    return `${
      decoder.decode(head)
    }\n[... ${cut} bytes of output cut here; ${this.#total} bytes in total ...]\n${
      decoder.decode(tail)
    }\n[the command printed ${humanSize(this.#total)}: only its first ${
      humanSize(head.length)
    } and last ${humanSize(tail.length)} were kept]`;
  }
}

/** Whether a byte continues a UTF-8 sequence (10xxxxxx). */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Length of the end of `bytes` that holds only whole characters (a split last one dropped). */
function completeEnd(bytes: Uint8Array): number {
  let start = bytes.length;
  // A UTF-8 character is at most 4 bytes: look back at most 3 continuation bytes for its lead.
  while (start > 0 && bytes.length - start < 3 && isContinuation(bytes[start - 1]!)) start--;
  if (start === 0) return bytes.length;
  const lead = bytes[start - 1]!;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start - 1 + size > bytes.length ? start - 1 : bytes.length;
}

/** Index of the first character start in `bytes`, skipping the rest of a split character. */
function characterStart(bytes: Uint8Array): number {
  let start = 0;
  while (start < bytes.length && start < 3 && isContinuation(bytes[start]!)) start++;
  return start;
}
