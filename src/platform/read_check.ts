// The read half of a sandbox worker's deny guard, for code that opens files through node:fs. Deno's
// node:fs opens files with its own ops, not through the Deno functions the guard
// (src/sandbox/workers/deny_guard.ts) wraps, so a --deny-read entry inside an allowed folder does
// not stop it. The guard registers its check here and harness's own node:fs readers call it first.
// A plugin that imports node:fs itself is not covered (docs/security.md#sandbox-limits).

let check: ((path: string) => void) | undefined;

/**
 * Sets the check (the worker's deny guard does, once).
 *
 * @param fn Throws NotCapable for a path the guard denies.
 */
export function setReadCheck(fn: (path: string) => void): void {
  check = fn;
}

/**
 * Throws NotCapable when this worker's deny guard denies reading `path`; does nothing where
 * no guard is installed.
 *
 * @param path The path about to be opened.
 *
 * @example
 * ```ts
 * import { assertMayRead } from "./read_check.ts";
 * assertMayRead("/tmp/anything"); // no guard in this context: allowed
 * ```
 */
export function assertMayRead(path: string): void {
  check?.(path);
}
