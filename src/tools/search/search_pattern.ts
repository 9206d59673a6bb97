// grep_search's pattern language (plain text where `*` matches any run of characters within
// a line), compiled once per search into the line regex and a cheaper whole-file test that
// rejects most files before any line is looked at. Used by grep_files.ts.

/** A compiled grep_search pattern. */
export interface SearchPattern {
  /** Global regex that finds matches (used line by line on files that may match). */
  regex: RegExp;
  /** A test on a whole file's text: false means no line can match, true means maybe. */
  mayMatch: (text: string) => boolean;
  /**
   * The same test on the file's raw bytes, when it is cheaper there: files it rejects are
   * never decoded. Exact for UTF-8 (and any ASCII-compatible encoding) because the piece
   * it looks for is ASCII, and ASCII bytes decode to the same characters in the same order.
   */
  mayMatchBytes?: (bytes: Uint8Array) => boolean;
}

/**
 * Pieces at least this long are searched case-insensitively in the bytes (Horspool skips
 * about this many bytes per step); shorter ones go to the regex engine, which was faster
 * below it on the bench tree.
 */
const MIN_BYTE_SEARCH_LENGTH = 8;

/**
 * A case-insensitive Boyer-Moore-Horspool search for lower-case ASCII `needle` in bytes,
 * folding ASCII letters only, which is exactly what a non-unicode `i` regex does for an
 * ASCII pattern (it never maps a non-ASCII character to an ASCII one).
 */
function asciiFoldSearcher(needle: string): (bytes: Uint8Array) => boolean {
  const m = needle.length;
  const want = Uint8Array.from(needle, (c) => c.charCodeAt(0));
  const fold = Uint8Array.from({ length: 256 }, (_, c) => (c >= 65 && c <= 90 ? c + 32 : c));
  const skip = new Int32Array(256).fill(m);
  for (let i = 0; i < m - 1; i++) {
    const c = want[i]!;
    skip[c] = m - 1 - i;
    if (c >= 97 && c <= 122) skip[c - 32] = m - 1 - i;
  }
  const last = want[m - 1]!;
  return (bytes) => {
    const n = bytes.length;
    for (let i = m - 1; i < n; i += skip[bytes[i]!]!) {
      if (fold[bytes[i]!] !== last) continue;
      let j = m - 2;
      let k = i - 1;
      while (j >= 0 && fold[bytes[k]!] === want[j]) {
        j--;
        k--;
      }
      if (j < 0) return true;
    }
    return false;
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * Converts a grep_search pattern to a regular expression: text is literal, `*` matches any
 * run of characters within a line.
 *
 * @param pattern The pattern.
 * @param caseSensitive Whether case matters.
 * @returns A global regular expression.
 *
 * @example
 * ```ts
 * import { patternToRegExp } from "./search_pattern.ts";
 * const re = patternToRegExp("foo*(", false);
 * if (!re.test("FOO bar(")) throw new Error();
 * ```
 */
export function patternToRegExp(pattern: string, caseSensitive: boolean): RegExp {
  const source = pattern.split("*").map(escapeRegExp).join(".*");
  return new RegExp(source, caseSensitive ? "g" : "gi");
}

/**
 * Compiles a pattern. The whole-file test looks for the longest literal piece only (every
 * match contains it): `String.prototype.includes` when case cannot matter, which is
 * vectorised and about 40x faster than a case-insensitive regex; else, for a long ASCII
 * piece, a case-folding byte search that also spares decoding files without it; else the
 * piece as a non-global `i` regex, which is cheaper than the full pattern with its `.*`.
 *
 * @param pattern The grep_search pattern.
 * @param caseSensitive Whether case matters.
 * @returns The line regex and the whole-file test.
 *
 * @example
 * ```ts
 * import { compileSearchPattern } from "./search_pattern.ts";
 * const p = compileSearchPattern("deprecated*since", false);
 * if (!p.mayMatch("x\nDeprecated\n") || p.mayMatch("nothing here")) throw new Error();
 * const bytes = new TextEncoder().encode("é DEPRECATED");
 * if (p.mayMatchBytes?.(bytes) !== true) throw new Error();
 * ```
 */
export function compileSearchPattern(pattern: string, caseSensitive: boolean): SearchPattern {
  const regex = patternToRegExp(pattern, caseSensitive);
  const longest = pattern.split("*").reduce((a, b) => (b.length > a.length ? b : a), "");
  if (longest === "") return { regex, mayMatch: () => true };
  // A non-unicode `i` regex folds letters only; ASCII text without letters matches exactly.
  if (caseSensitive || !/[A-Za-z\u0080-\uffff]/.test(longest)) {
    return { regex, mayMatch: (text) => text.includes(longest) };
  }
  const piece = new RegExp(escapeRegExp(longest), "i");
  const mayMatch = (text: string) => piece.test(text);
  if (longest.length >= MIN_BYTE_SEARCH_LENGTH && !/[\u0080-\uffff]/.test(longest)) {
    return { regex, mayMatch, mayMatchBytes: asciiFoldSearcher(longest.toLowerCase()) };
  }
  return { regex, mayMatch };
}
