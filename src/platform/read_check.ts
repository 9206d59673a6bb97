// The read half of a sandbox worker's deny guard, for code that opens files through node:fs.
// Deno's node:fs opens files with its own ops, not through the Deno functions the guard
// (src/sandbox/workers/deny_guard.ts) wraps, so a --deny-read entry inside an allowed folder does not
// stop it. The guard registers its check here and harness's own node:fs readers call it
// first. A plugin that imports node:fs itself is not covered (docs/security.md#sandbox-limits).
// The check is kept on the worker's global object, not in this module: the bundled tool worker
// holds its own copy of this module while a plugin imports the source file, and both must
// ask the same check. Once set, it cannot be replaced.

const SLOT = Symbol.for("harness.readCheck");

type Check = (path: string) => void;

/**
 * Sets the check (the worker's deny guard does, once).
 *
 * @param fn Throws NotCapable for a path the guard denies.
 * @throws TypeError when a check is already set.
 */
export function setReadCheck(fn: Check): void {
  Object.defineProperty(globalThis, SLOT, { value: fn, writable: false, configurable: false });
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
  (globalThis as Record<symbol, Check | undefined>)[SLOT]?.(path);
}
