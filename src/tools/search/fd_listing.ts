// Reads fd's listing (`--print0`: each path then a NUL) as glob counts it: the paths the
// built-in walk would show (fd without --hidden still prints hidden names a .gitignore `!`
// rule brings back, and what is inside _darcs) that the pattern keeps, and the first of them
// in walk order. A listing with no hidden name, version-control folder or control character
// in it, kept by a plain suffix (`**/*.md`), is read in bulk: a few scans of the whole text
// (for those names, for the suffix, for the NULs), a sample that tells how far the first
// paths reach, and the regex engine picking those out (walk_order.ts's pathsBefore), so only
// they become strings and are sorted: 38,000 paths cost about 13 ms of CPU instead of 35.
// Anything else is read path by path with the pattern's own test.

import { VCS_DIRS } from "./walk_tree.ts";
import { pathsBefore, WalkOrderTop } from "./walk_order.ts";

/** Version-control folders fd does not hide as hidden names. */
const VISIBLE_VCS_DIRS = [...VCS_DIRS].filter((name) => !name.startsWith("."));

/** A character below a space, or a line break the walk's globs treat apart (regex source). */
const CONTROL = "[\\x01-\\x1f\\u2028\\u2029]";

/**
 * What "/" becomes in the bulk reading's sort keys: in a listing with no control character
 * it sorts before every character of a name, and NUL still separates the paths.
 */
const BULK_SLASH = "\x01";

/** How many paths the bulk reading samples to find how far the first ones reach. */
const SAMPLES = 1000;

/** How to read a listing. */
export interface ListingOptions {
  /** The folder fd printed paths under ("" when they are workspace-relative already). */
  root: string;
  /** Where the part under the start folder begins in a workspace-relative path. */
  below: number;
  includeHidden: boolean;
  /** Which workspace-relative paths count. */
  keep: (path: string) => boolean;
  /**
   * When set, `keep` accepts exactly the paths ending with it among those with no name
   * starting with a dot and no control character (glob's `**\/*.md`): the bulk reading.
   */
  suffix?: string;
  /** How many to return in walk order. */
  limit: number;
  /** Workspace-relative paths fd could not list that count too when kept (denied files). */
  also: readonly string[];
}

/** What a listing holds. */
export interface ReadListing {
  /** How many paths count. */
  count: number;
  /** The first `limit` of them, workspace-relative, in walk order. */
  files: string[];
}

/**
 * Whether the walk from a folder shows a path fd printed.
 *
 * @param path Workspace-relative path.
 * @param below Where the part under the start folder begins in `path`.
 */
function walkShows(path: string, below: number, includeHidden: boolean): boolean {
  if (!includeHidden && (path.charCodeAt(below) === 0x2e || path.indexOf("/.", below) !== -1)) {
    return false;
  }
  for (const name of VISIBLE_VCS_DIRS) {
    let at = path.indexOf(name, below);
    while (at !== -1) {
      const end = at + name.length;
      if ((at === below || path[at - 1] === "/") && (end === path.length || path[end] === "/")) {
        return false;
      }
      at = path.indexOf(name, at + 1);
    }
  }
  return true;
}

/**
 * Whether every path of a workspace-relative listing (a NUL after each) is shown by the walk
 * and kept by a pattern that is `suffix`: no hidden name, no version-control folder, no
 * control character, and every path ends with the suffix (fd compares extensions without
 * case).
 */
function readsInBulk(text: string, suffix: string | undefined): suffix is string {
  if (suffix === undefined || text === "" || !text.endsWith("\0")) return false;
  if (holdsVcsFolder(text)) return false;
  const escaped = suffix.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
  // One scan of the text for a hidden name, a control character or a path without the
  // suffix: a third less time than a scan for each.
  return !new RegExp(`(?:^|[\\0/])\\.|${CONTROL}|(?<!${escaped})\\0`).test(text);
}

/** Whether a workspace-relative listing (NUL after each path) holds a version-control folder. */
function holdsVcsFolder(text: string): boolean {
  for (const name of VISIBLE_VCS_DIRS) {
    for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
      const before = at === 0 ? "\0" : text[at - 1];
      const after = text[at + name.length];
      if ((before === "\0" || before === "/") && (after === "\0" || after === "/")) return true;
    }
  }
  return false;
}

/** Sort keys of NUL-separated paths, "/" as {@linkcode BULK_SLASH}: one pass for them all. */
function bulkKeys(paths: string): string[] {
  // Splitting and joining is the fastest replacement V8 has for a long text.
  return paths.split("/").join(BULK_SLASH).split("\0");
}

/**
 * The first `limit` paths in walk order of a listing read in bulk, or undefined when a
 * sample misjudges how far they reach (then offer every path). A sample of paths picked
 * evenly through the listing gives a bound that about 1.25 times `limit` paths come before;
 * the regex engine finds those ({@linkcode pathsBefore}), and only they are sorted.
 *
 * @param text The listing: paths each followed by a NUL, no control character.
 * @param limit How many.
 * @param paths How many paths it holds.
 */
function firstInBulk(text: string, limit: number, paths: number): string[] | undefined {
  if (limit * 4 >= paths) return undefined;
  const sample: string[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const at = Math.floor(((i + 0.5) * text.length) / SAMPLES);
    sample.push(text.slice(text.lastIndexOf("\0", at - 1) + 1, text.indexOf("\0", at)));
  }
  const keys = bulkKeys(sample.join("\0")).sort();
  const bound = keys[Math.ceil((limit / paths) * keys.length * 1.25) + 8];
  if (bound === undefined) return undefined;
  const found = text.match(pathsBefore(bound.replaceAll(BULK_SLASH, "\0"))) ?? [];
  // The regex finds the paths after a NUL: the first path is added here.
  const below: string[] = [];
  for (const key of bulkKeys(text.slice(0, text.indexOf("\0")) + found.join(""))) {
    if (key < bound) below.push(key);
  }
  if (below.length < limit) return undefined;
  below.sort();
  return below.slice(0, limit).join("\0").split(BULK_SLASH).join("/").split("\0");
}

/**
 * Reads a whole listing: fd's paths and the `also` paths.
 *
 * @param text fd's standard output, decoded.
 * @param options How to read it.
 * @returns The count and the first paths in walk order.
 *
 * @example
 * ```ts
 * import { readListing } from "./fd_listing.ts";
 * const read = readListing("b.md\0a/.h.md\0a-b/c.md\0a/d.md\0", {
 *   root: "", below: 0, includeHidden: false, keep: (path) => path.endsWith(".md"), limit: 2,
 *   also: [],
 * });
 * if (read.count !== 3 || read.files.join() !== "a/d.md,a-b/c.md") throw new Error();
 * ```
 */
export function readListing(text: string, options: ListingOptions): ReadListing {
  const prefix = options.root === "" ? "" : `${options.root}/`;
  if (prefix !== "") {
    // Each path starts with the root: workspace-relative from here on.
    if (text.startsWith(prefix)) text = text.slice(prefix.length);
    text = text.split(`\0${prefix}`).join("\0");
  }
  const top = new WalkOrderTop(options.limit);
  let count = 0;
  let first: string[] | undefined;
  if (readsInBulk(text, options.suffix)) {
    // Every path counts: count the NULs; the first ones come from the bulk reading.
    for (let at = text.indexOf("\0"); at !== -1; at = text.indexOf("\0", at + 1)) count++;
    first = firstInBulk(text, options.limit, count);
    for (let at = 0; first === undefined && at < text.length;) {
      const end = text.indexOf("\0", at);
      top.offer(text, at, end);
      at = end + 1;
    }
  } else {
    for (const path of text.split("\0")) {
      if (path === "" || !walkShows(path, options.below, options.includeHidden)) continue;
      if (!options.keep(path)) continue;
      count++;
      top.add(path);
    }
  }
  const also = options.also.filter((path) => options.keep(path));
  if (first !== undefined && also.length === 0) return { count, files: first };
  for (const path of first ?? []) top.add(path);
  for (const path of also) {
    count++;
    top.add(path);
  }
  return { count, files: top.first() };
}
