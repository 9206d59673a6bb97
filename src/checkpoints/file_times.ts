// What a file's times say about when it changed, for a command's checkpoint: whether a file
// changed while the command ran (when no watcher said so), and whether it was born then (only
// then does a restore remove it). File times come from the kernel's coarse clock, so they may
// read a tick earlier than Date.now() taken before the change; Deno gives the change time in
// whole seconds.

/**
 * How much earlier than the command's start a file's time may read and still be the
 * command's: the coarse clock lags by up to a tick (1 to 10 ms).
 */
const CLOCK_TICK_MS = 10;

/**
 * Whether a path is a folder (following a link unless `follow` is false).
 *
 * @example
 * ```ts
 * import { isFolder } from "./file_times.ts";
 * if (!isFolder(Deno.cwd()) || isFolder(`${Deno.cwd()}/no such folder`)) throw new Error();
 * ```
 */
export function isFolder(path: string, follow = true): boolean {
  try {
    return (follow ? Deno.statSync(path) : Deno.lstatSync(path)).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Whether a file (or link) was written, created or moved in at or after `since`: its write or
 * birth time, or its change time (which a move sets) once it reads a later second.
 *
 * @param path The file.
 * @param since Epoch milliseconds.
 * @returns False for a file that is gone.
 */
export function changedSince(path: string, since: number): boolean {
  try {
    const info = Deno.lstatSync(path);
    const precise = Math.max(info.mtime?.getTime() ?? 0, info.birthtime?.getTime() ?? 0);
    if (precise >= since - CLOCK_TICK_MS) return true;
    return (info.ctime?.getTime() ?? 0) >= Math.ceil(since / 1000) * 1000;
  } catch {
    return false;
  }
}

/**
 * Whether a file was born at or after `since`: its birth time, or where the file system does
 * not keep one, its change time (in whole seconds).
 *
 * @param path The file.
 * @param since Epoch milliseconds.
 * @returns False for a file that is gone (nothing to remove either way).
 */
export function bornSince(path: string, since: number): boolean {
  try {
    const info = Deno.lstatSync(path);
    if (info.birthtime) return info.birthtime.getTime() >= since - CLOCK_TICK_MS;
    return info.ctime !== null && info.ctime.getTime() >= Math.floor(since / 1000) * 1000;
  } catch {
    return false;
  }
}
