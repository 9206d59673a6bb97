// In `harness acp` stdout carries only protocol messages: console output of host code goes to
// stderr instead (tool workers send theirs to stderr on their own, see tool_worker.ts). The
// ACP stream keeps a writer of the real stdout, taken before the guard is installed.

/**
 * Sends console.log, console.info and console.debug to stderr for the rest of the process.
 *
 * @param target The console to change (the global one by default; a seam for tests).
 *
 * @example
 * ```ts
 * import { guardStdout } from "./stdout_guard.ts";
 * const lines: string[] = [];
 * const fake = { log: (m: string) => lines.push(`out ${m}`), info: () => {}, debug: () => {}, error: (m: string) => lines.push(`err ${m}`) };
 * guardStdout(fake as unknown as Console);
 * fake.log("x");
 * if (lines[0] !== "err x") throw new Error(lines.join());
 * ```
 */
export function guardStdout(target: Console = console): void {
  const toStderr = target.error.bind(target);
  target.log = toStderr;
  target.info = toStderr;
  target.debug = toStderr;
}
