// KeyIO over the real terminal: raw mode for single key presses (restored right after), cooked
// mode for one-line answers. The REPL uses it when stdin is a TTY; piped stdin uses
// line_key_io.ts instead. The only approval prompt module that touches Deno.stdin.

import type { KeyIO } from "../permissions/prompt_types.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function writeAll(target: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(target.writeSync(bytes));
}

/**
 * Creates a KeyIO on `Deno.stdin` / `Deno.stdout`. `readKey` switches stdin to raw mode for
 * one read and always restores the previous mode; Ctrl-C arrives as `"\x03"` (raw mode turns
 * off the signal). An abort resolves `readKey` with `"\x03"`; the pending read then consumes
 * the next key press, a limit of Deno's stdin API.
 *
 * @param options `output`: where to write (default stdout).
 * @returns A KeyIO for a TTY.
 *
 * @example
 * ```ts
 * import { createTerminalKeyIO } from "./terminal_key_io.ts";
 * const io = createTerminalKeyIO();
 * if (typeof io.readKey !== "function") throw new Error();
 * ```
 */
export function createTerminalKeyIO(
  options: { output?: { writeSync(p: Uint8Array): number } } = {},
): KeyIO {
  const output = options.output ?? Deno.stdout;
  return {
    async readKey(signal) {
      if (signal?.aborted) return "\x03";
      const buffer = new Uint8Array(16);
      let read: number | null;
      let onAbort = () => {};
      const aborted = new Promise<null>((resolve) => {
        onAbort = () => resolve(null);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
      Deno.stdin.setRaw(true);
      try {
        read = await Promise.race([Deno.stdin.read(buffer), aborted]);
        if (signal?.aborted) return "\x03";
      } finally {
        Deno.stdin.setRaw(false);
        signal?.removeEventListener("abort", onAbort);
      }
      if (read === null) return "";
      // Keep the first character only; escape sequences (arrow keys) start with "\x1b".
      return decoder.decode(buffer.subarray(0, read)).slice(0, 1);
    },
    async readLine(prompt) {
      writeAll(output, prompt);
      const bytes: number[] = [];
      const one = new Uint8Array(1);
      for (;;) {
        const n = await Deno.stdin.read(one);
        if (n === null) return bytes.length > 0 ? decoder.decode(new Uint8Array(bytes)) : null;
        if (one[0] === 0x0a) break;
        bytes.push(one[0]!);
      }
      return decoder.decode(new Uint8Array(bytes)).replace(/\r$/, "");
    },
    write(text) {
      writeAll(output, text);
    },
  };
}
