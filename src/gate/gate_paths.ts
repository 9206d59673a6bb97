// The path helpers of the file gate (file_gate.ts): real paths (a path not made yet through its
// nearest folder), entries' identities (device and inode) and their keys. They ask the file system
// through the functions Deno had when the gate loaded, so a worker's deny guard never checks the
// gate's own questions.

import { paths } from "../platform/paths.ts";
import type { IdentityRole } from "./gate_types.ts";

const { join, relative, resolve } = paths;

// Taken when this module loads, before a tool worker's deny guard wraps Deno's functions:
// the gate asks the file system through these, so it never checks itself.
const lstatSync = Deno.lstatSync;
/** Deno.realPathSync as it was when the gate loaded. */
export const realPathSync: typeof Deno.realPathSync = Deno.realPathSync;

/** The key an identity is recorded under. */
export function identityKey(dev: number, ino: number): string {
  return `${dev}:${ino}`;
}

/** An entry's `dev:ino`, or undefined where the system gives no inode (Windows). */
export function keyOf(info: Deno.FileInfo | undefined): string | undefined {
  return info && info.ino !== null ? identityKey(info.dev, info.ino) : undefined;
}

/** A moved entry's key: its role and path (a replaced entry's new occupant keeps both). */
export function movedKey(entry: { role: IdentityRole; path: string }): string {
  return `${entry.role}\0${entry.path}`;
}

/** The folder a path is in. */
export function parentOf(path: string): string {
  return resolve(path, "..");
}

/** An entry's lstat, or undefined when it is missing or this thread may not see it. */
export function lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined; // missing, or outside what this thread may read
  }
}

/** The real path of `path`: links resolved, for a path not yet made those of its folders. */
export function realOf(path: string): string {
  const rest: string[] = [];
  for (let current = path;;) {
    try {
      const real = realPathSync(current);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      const parent = parentOf(current);
      if (parent === current) return path;
      rest.push(relative(parent, current));
      current = parent;
    }
  }
}
