// The built-in walk's order (walk_tree.ts: folders depth-first, names sorted) for listings that
// come in another order (fd's, ripgrep's): a sort key, a comparison made in place, and the
// first paths of a listing kept as it is read, so a capped listing of 38,000 paths sorts a
// few thousand of them, not all.

/** The code unit of "/", which sorts before every character of a name in walk order. */
const SLASH = 0x2f;

/**
 * The sort key of a path in walk order: names compare as the walk sorts them, and a folder's
 * entries come right after it (a "/" sorts before every character of a name).
 *
 * @example
 * ```ts
 * import { walkOrderKey } from "./walk_order.ts";
 * const paths = ["a-b/x", "a/y", "ab"].sort((p, q) => walkOrderKey(p) < walkOrderKey(q) ? -1 : 1);
 * if (paths.join() !== "a/y,a-b/x,ab") throw new Error(paths.join());
 * ```
 */
export function walkOrderKey(path: string): string {
  return path.replaceAll("/", "\u0000");
}

/**
 * Compares the path `text[start, end)` with a walk-order key ({@linkcode walkOrderKey}) in
 * place, without copying the path out of a longer text.
 *
 * @param text Holds the path.
 * @param start Where it starts.
 * @param end Where it ends (exclusive).
 * @param key Another path's key.
 * @returns Negative when the path comes first, positive when the key's path does, 0 when
 *   they are the same path.
 *
 * @example
 * ```ts
 * import { compareWithKey, walkOrderKey } from "./walk_order.ts";
 * if (compareWithKey("x\0a/y\0", 2, 5, walkOrderKey("a-b/x")) >= 0) throw new Error();
 * ```
 */
export function compareWithKey(text: string, start: number, end: number, key: string): number {
  const length = Math.min(end - start, key.length);
  for (let i = 0; i < length; i++) {
    const x = text.charCodeAt(start + i);
    const y = key.charCodeAt(i);
    if (x !== y && !(x === SLASH && y === 0)) return (x === SLASH ? 0 : x) - y;
  }
  return end - start - key.length;
}

/** How much of a key {@linkcode pathsBefore} spells out (V8 limits how deep a regex nests). */
const MAX_SPELLED = 48;

/** A code unit as a regex escape. */
function unit(code: number): string {
  return `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * A global regex that, run over a listing (each path followed by a NUL), matches a NUL and
 * the path after it when that path may come before the key's path in walk order: the
 * comparison as a trie the regex engine walks, so the paths after the key's cost no string
 * and no call. Past the key's first {@linkcode MAX_SPELLED} characters, paths that share them
 * all match too: compare those exactly.
 *
 * @param key A path's walk-order key ({@linkcode walkOrderKey}).
 * @returns A global regex; each match is a NUL and a path.
 *
 * @example
 * ```ts
 * import { pathsBefore, walkOrderKey } from "./walk_order.ts";
 * const found = "\0a-b/x\0a/y\0a/z\0".match(pathsBefore(walkOrderKey("a/z")));
 * if (found?.join() !== "\0a/y") throw new Error(String(found));
 * ```
 */
export function pathsBefore(key: string): RegExp {
  // Past the last character spelled out: the key's own path is not before it.
  let source = key.length > MAX_SPELLED ? "" : "(?!)";
  for (let i = Math.min(key.length, MAX_SPELLED) - 1; i >= 0; i--) {
    const code = key.charCodeAt(i);
    // The path ends here (a prefix of the key's path), or has a smaller character here
    // ("/" is the smallest: nothing is smaller than it), or the same one and goes on.
    // A path is never empty: at the first character it cannot end.
    const ends = i === 0 ? [] : ["(?=\\0|$)"];
    const smaller = code === 0 ? [] : [`[${code > 1 ? `\\u0001-${unit(code - 1)}` : ""}/]`];
    const same = `${code === 0 ? "/" : unit(code)}${source}`;
    source = `(?:${[...ends, ...smaller, same].join("|")})`;
  }
  return new RegExp(`\\0${source}[^\\0]*`, "g");
}

/**
 * The first paths in walk order of a listing fed one path at a time. It holds the keys of at
 * most twice `limit` paths: when full it sorts them (plain string order: no comparison
 * function to call), keeps the first `limit`, and from then on drops a path at or after the
 * last one kept (one comparison in place, usually a few characters long).
 */
export class WalkOrderTop {
  readonly #limit: number;
  /** Walk-order keys. */
  #held: string[] = [];
  /** Paths from this key on are not among the first `limit` (undefined: not known yet). */
  #bound: string | undefined;

  /** @param limit How many paths to keep (Infinity: all). */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Offers a path (no two alike). */
  add(path: string): void {
    this.offer(path, 0, path.length);
  }

  /** Offers the path `text[start, end)`, copied out only when it may be among the first. */
  offer(text: string, start: number, end: number): void {
    if (this.#bound !== undefined && compareWithKey(text, start, end, this.#bound) >= 0) return;
    this.#held.push(walkOrderKey(text.slice(start, end)));
    if (this.#held.length >= 2 * this.#limit) this.#trim();
  }

  #trim(): void {
    this.#held.sort();
    if (this.#held.length > this.#limit) this.#held.length = this.#limit;
    if (this.#held.length === this.#limit) this.#bound = this.#held[this.#limit - 1];
  }

  /** The first `limit` paths offered, in walk order. */
  first(): string[] {
    if (this.#limit <= 0) return [];
    this.#trim();
    return this.#held.map((key) => key.replaceAll("\u0000", "/"));
  }
}

/**
 * The first `limit` paths in walk order: a folder's entries sorted by name as the walk sorts
 * them, each folder's contents right after its name.
 *
 * @param paths Workspace-relative paths with forward slashes, no two alike.
 * @param limit How many to return (all when larger than the listing).
 * @returns The first `limit` paths in walk order.
 *
 * @example
 * ```ts
 * import { firstInWalkOrder } from "./walk_order.ts";
 * const order = firstInWalkOrder(["ab", "a-b/x", "a/y", "a/b/z"], 3);
 * if (order.join() !== "a/b/z,a/y,a-b/x") throw new Error(order.join());
 * ```
 */
export function firstInWalkOrder(paths: Iterable<string>, limit: number): string[] {
  const top = new WalkOrderTop(limit);
  for (const path of paths) top.add(path);
  return top.first();
}
