// Test helper: a KeyIO over a line reader, every answer one line whose first character is the
// key, for tests that drive the permission prompt without a terminal.

import type { KeyIO } from "../../src/permissions/prompt_types.ts";

const encoder = new TextEncoder();

/**
 * Creates a KeyIO from a line reader. `readKey` reads a line and returns its first character
 * (`"\n"` for an empty line, which re-asks; `""` at end of input, which denies and aborts).
 *
 * @param readLine Reads one line after writing `prompt`; null at end of input.
 * @param options `write`: output (default: stdout).
 * @returns A KeyIO.
 *
 * @example
 * ```ts
 * import { createLineKeyIO } from "./line_key_io.ts";
 * const lines = ["2 please", "no reason"];
 * const io = createLineKeyIO(() => Promise.resolve(lines.shift() ?? null), { write: () => {} });
 * if (await io.readKey() !== "2") throw new Error();
 * if (await io.readLine("? ") !== "no reason") throw new Error();
 * if (await io.readKey() !== "") throw new Error();
 * ```
 */
export function createLineKeyIO(
  readLine: (prompt: string) => Promise<string | null>,
  options: { write?: (text: string) => void } = {},
): KeyIO {
  const write = options.write ?? ((text: string) => {
    let bytes = encoder.encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
  });
  return {
    async readKey(signal) {
      if (signal?.aborted) return "\x03";
      const line = await readLine("");
      if (line === null) return "";
      return line.trimStart().slice(0, 1) || "\n";
    },
    readLine(prompt) {
      return readLine(prompt);
    },
    write,
  };
}
