// How a session's number of turns is written in lists and notes. Its own module: the place it
// lived before (query_sessions.ts) imports node:sqlite, which every -p run then loaded.

/**
 * A number of user turns with its noun.
 *
 * @param turns The count.
 * @returns The count with its noun.
 *
 * @example
 * ```ts
 * import { turnCount } from "./turn_count.ts";
 * if (turnCount(1) !== "1 turn" || turnCount(0) !== "0 turns") throw new Error();
 * ```
 */
export function turnCount(turns: number): string {
  return turns === 1 ? "1 turn" : `${turns} turns`;
}
