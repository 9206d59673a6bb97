// When a file's size and modification time may say it is unchanged. A file written again
// within the clock tick of its last write keeps both (a tick is up to 10 ms on Linux, 2 s on
// FAT, a second on some network file systems), so a stamp taken that close to the file's
// modification time proves nothing: git's index calls such an entry "racily clean" and
// compares content instead. Every cache that skips work on an unchanged stamp asks this.

/** How close to a stamp's taking a file's modification time makes the stamp untrustworthy. */
export const RACY_MS = 2000;

/**
 * Whether a modification time read at `at` is old enough that a later write would change it.
 *
 * @param mtimeMs The file's modification (or change) time, epoch milliseconds.
 * @param at When the stamp was taken, epoch milliseconds (before the file's content was read).
 */
export function settledBy(mtimeMs: number, at: number): boolean {
  return mtimeMs < at - RACY_MS;
}

/** The time kept instead of one that is not settled: no file has it, so it never matches. */
export const UNSETTLED = -1;
