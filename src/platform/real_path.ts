// The real path of a file, as node:fs's realpathSync gives it, without loading node:fs on Linux
// and macOS: Deno's node:fs costs a run about 30 ms of CPU to load, and realpathSync there is
// Deno's own realPathSync (its errors carry the same `code`, ENOENT or ENOTDIR). Windows keeps
// node:fs's, whose paths are in the format the rest of the workspace's paths use. Taken when
// this module loads: a sandbox worker loads it before its deny guard wraps Deno's functions,
// so, like node:fs's, it answers without asking the guard.

import type { realpathSync as RealpathSync } from "node:fs";

// A non-literal specifier: `deno run` would otherwise load node:fs's module graph on every
// platform before running anything.
const NODE_FS = "node:fs";

/**
 * The real path of `path`: symbolic links resolved, absolute.
 *
 * @throws Deno's NotFound (code ENOENT), NotADirectory (ENOTDIR) or NotCapable.
 *
 * @example
 * ```ts
 * import { realPathSync } from "./real_path.ts";
 * if (realPathSync(".") !== Deno.realPathSync(".")) throw new Error();
 * ```
 */
export const realPathSync: (path: string) => string = Deno.build.os === "windows"
  ? ((await import(NODE_FS)) as { realpathSync: typeof RealpathSync }).realpathSync
  : Deno.realPathSync;
