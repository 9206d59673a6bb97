// Compiles the text of one .gitignore file into rules the directory walk (walk_tree.ts) tests
// each entry against. Each line is compiled once; literal names, `*.ext` and `prefix*` get
// string fast paths, everything else one anchored regular expression (git's wildmatch
// with FNM_PATHNAME: `*` and `?` stop at `/`, `**` spans folders, `[...]` classes).

import { globSource } from "./wildmatch.ts";

/**
 * Whether .gitignore patterns fold case unless told otherwise: git's `core.ignorecase`
 * default, true where file systems usually ignore case (macOS, Windows) and false elsewhere,
 * so on Linux `*.LOG` does not exclude `a.log`, as in git.
 */
export const PLATFORM_IGNORE_CASE: boolean = Deno.build.os === "darwin" ||
  Deno.build.os === "windows";

/** One compiled line of a .gitignore file. */
interface GitignoreRule {
  /** `!pattern`: re-includes what earlier rules excluded. */
  negative: boolean;
  /** `pattern/`: matches folders only. */
  dirOnly: boolean;
  /** The pattern has a `/` before its end: it matches the path below the .gitignore's folder, not the name. */
  anchored: boolean;
  /** Tests the name (or, when anchored, the relative path). */
  test: (subject: string) => boolean;
}

/** Whether `glob` is plain text: no wildcards, classes or escapes. */
function isPlain(glob: string): boolean {
  return !/[*?[\\]/.test(glob);
}

function isAscii(text: string): boolean {
  return !/[\u0080-\uffff]/.test(text);
}

/**
 * Whether `subject[from, from + lower.length)` equals `lower` ignoring ASCII case. `lower` is
 * lower-case ASCII, so only ASCII letters fold, exactly as a non-unicode `i` regex does.
 */
function equalsAsciiFold(subject: string, from: number, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    let c = subject.charCodeAt(from + i);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * A string test for the common shapes (`name`, `*.ext`, `prefix*`), or null. A star never
 * crosses a `/`, which matters when the subject is a path (anchored rules).
 */
function fastTest(
  glob: string,
  options: { ignoreCase: boolean; anchored: boolean },
): ((subject: string) => boolean) | null {
  const { ignoreCase, anchored } = options;
  const star = glob.indexOf("*");
  const shape = star === -1
    ? "exact"
    : star === 0 && glob.indexOf("*", 1) === -1
    ? "suffix"
    : star === glob.length - 1 // the first star is the last character: the only one
    ? "prefix"
    : null;
  if (shape === null) return null;
  const literal = shape === "exact" ? glob : glob.replace("*", "");
  if (!isPlain(literal) || (ignoreCase && !isAscii(literal))) return null;
  // `*/x` must not let the star cross a folder; leave slashes in suffixes to the regex.
  if (shape === "suffix" && literal.includes("/")) return null;
  const text = ignoreCase ? literal.toLowerCase() : literal;
  const n = text.length;
  if (shape === "exact") {
    return ignoreCase ? (s) => s.length === n && equalsAsciiFold(s, 0, text) : (s) => s === text;
  }
  if (shape === "suffix") {
    const folded = ignoreCase
      ? (s: string) => s.length >= n && equalsAsciiFold(s, s.length - n, text)
      : (s: string) => s.endsWith(text);
    return anchored ? (s) => folded(s) && !s.includes("/") : folded;
  }
  // `prefix*`: the star must not cross a `/` (it only can when the subject is a path).
  return ignoreCase
    ? (s) => s.length >= n && equalsAsciiFold(s, 0, text) && s.indexOf("/", n) === -1
    : (s) => s.startsWith(text) && s.indexOf("/", n) === -1;
}

/** Removes trailing spaces unless the last one is escaped with a backslash, as git does. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 32) end--;
  if (end === line.length) return line;
  let backslashes = 0;
  while (line[end - 1 - backslashes] === "\\") backslashes++;
  return backslashes % 2 === 1 ? line.slice(0, end + 1) : line.slice(0, end);
}

/** Whether `text` ends in an odd run of backslashes (an escape with nothing to escape). */
function endsInEscape(text: string): boolean {
  let backslashes = 0;
  while (text[text.length - 1 - backslashes] === "\\") backslashes++;
  return backslashes % 2 === 1;
}

function compileLine(rawLine: string, ignoreCase: boolean): GitignoreRule | null {
  if (rawLine === "" || rawLine[0] === "#") return null;
  let body = trimTrailingSpaces(rawLine);
  const negative = body[0] === "!";
  if (negative) body = body.slice(1);
  if (body === "" || endsInEscape(body)) return null; // a trailing lone `\` is invalid
  const dirOnly = body.endsWith("/");
  if (dirOnly) body = body.slice(0, -1);
  if (dirOnly && endsInEscape(body)) return null; // `a\/`: git drops the slash, then the escape dangles
  const anchored = body.includes("/");
  if (body.startsWith("/")) body = body.slice(1);
  if (body === "") return null;
  const fast = fastTest(body, { ignoreCase, anchored });
  if (fast !== null) return { negative, dirOnly, anchored, test: fast };
  const regex = new RegExp(`^${globSource(body)}$`, ignoreCase ? "i" : "");
  return { negative, dirOnly, anchored, test: (subject) => regex.test(subject) };
}

/** An entry the walk asks about; the walk reuses one object for all its entries. */
export interface GitignoreEntry {
  /** Path with forward slashes from the walk's root, e.g. "src/lib/a.ts". */
  path: string;
  /** The last path segment, e.g. "a.ts". */
  name: string;
  isDir: boolean;
}

/** The compiled rules of one .gitignore file. */
export class GitignoreRules {
  readonly #rules: readonly GitignoreRule[];
  readonly #anchored: boolean;

  /** @param rules Compiled lines in file order. */
  private constructor(rules: GitignoreRule[]) {
    this.#rules = rules;
    this.#anchored = rules.some((rule) => rule.anchored);
  }

  /**
   * Parses a .gitignore file's text.
   *
   * @param text The file's content.
   * @param options `ignoreCase`: fold ASCII case, as git does with `core.ignorecase`
   *   (default PLATFORM_IGNORE_CASE: false on Linux, true on macOS and Windows).
   * @returns The rules; `size` is 0 when the text has none.
   *
   * @example
   * ```ts
   * import { GitignoreRules } from "./gitignore_rules.ts";
   * const rules = GitignoreRules.parse("*.log\n!keep.log\nbuild/\n");
   * const entry = (path: string, isDir = false) => ({ path, name: path.split("/").pop()!, isDir });
   * if (rules.match(entry("a/x.log"), 0) !== true) throw new Error();
   * if (rules.match(entry("keep.log"), 0) !== false) throw new Error();
   * if (rules.match(entry("build"), 0) !== undefined) throw new Error();
   * if (rules.match(entry("build", true), 0) !== true) throw new Error();
   * ```
   */
  static parse(text: string, options: { ignoreCase?: boolean } = {}): GitignoreRules {
    const ignoreCase = options.ignoreCase ?? PLATFORM_IGNORE_CASE;
    // A BOM before the first line and a CR after the last are dropped, as npm:ignore does.
    const body = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r$/, "");
    const rules: GitignoreRule[] = [];
    for (const line of body.split(/\r?\n/)) {
      const rule = compileLine(line, ignoreCase);
      if (rule !== null) rules.push(rule);
    }
    return new GitignoreRules(rules);
  }

  /** Number of rules. */
  get size(): number {
    return this.#rules.length;
  }

  /**
   * The verdict of the last rule matching an entry (git's "last match wins" within a file).
   *
   * @param entry The entry's path, name and type.
   * @param from Length of this file's folder prefix in `entry.path` (0 at the walk's root),
   *   so `entry.path.slice(from)` is the path anchored rules see.
   * @returns true when excluded, false when re-included by `!`, undefined when no rule matches.
   */
  match(entry: GitignoreEntry, from: number): boolean | undefined {
    const rules = this.#rules;
    const { name, isDir } = entry;
    const relative = this.#anchored ? (from === 0 ? entry.path : entry.path.slice(from)) : "";
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i]!;
      if (rule.dirOnly && !isDir) continue;
      if (rule.test(rule.anchored ? relative : name)) return !rule.negative;
    }
    return undefined;
  }
}
