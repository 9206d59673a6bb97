// Reading the user's answer to an approval prompt, one key at a time, for both prompts
// (prompter.ts asks about one call, batch_prompt.ts about several). An aborted signal,
// Ctrl-C, Ctrl-D and the end of input all mean "stop the turn".

import type { KeyIO } from "../permissions/prompt_types.ts";

/**
 * Shows "> " and reads one key.
 *
 * @param io The prompt's terminal.
 * @param signal Aborts the wait (the turn was interrupted).
 * @returns The key, or null when the user or the signal stopped the turn ("^C" or a newline
 *   is echoed so the next output starts on its own line).
 *
 * @example
 * ```ts
 * import { readAnswerKey } from "./answer_key.ts";
 * const io = { readKey: () => Promise.resolve("\x03"), readLine: () => Promise.resolve(null), write: () => {} };
 * if (await readAnswerKey(io) !== null) throw new Error();
 * ```
 */
export async function readAnswerKey(io: KeyIO, signal?: AbortSignal): Promise<string | null> {
  io.write("> ");
  if (signal?.aborted) {
    io.write("\n");
    return null;
  }
  const key = await io.readKey(signal);
  if (signal?.aborted || key === "\x03" || key === "\x04" || key === "") {
    io.write(key === "" ? "\n" : "^C\n");
    return null;
  }
  return key;
}

/**
 * Asks for the optional reason the model gets with a denial.
 *
 * @param io The prompt's terminal.
 * @returns The trimmed reason, or undefined when the user gave none.
 */
export async function readDenyReason(io: KeyIO): Promise<string | undefined> {
  const line = await io.readLine("Reason for the model (optional, Enter to skip): ");
  return line?.trim() || undefined;
}

/**
 * A denial at a prompt: says "Denied", then asks for the optional reason for the model.
 *
 * @param io The prompt's terminal.
 * @returns The answer.
 */
export async function denyAnswer(io: KeyIO): Promise<{ kind: "deny"; reason?: string }> {
  io.write("Denied\n");
  const reason = await readDenyReason(io);
  return reason ? { kind: "deny", reason } : { kind: "deny" };
}
