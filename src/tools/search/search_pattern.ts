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
 * Bytes from most to least common in source text, for picking the rarest byte of a piece
 * (the one whose occurrences are scanned for): whitespace, punctuation, then letters by
 * English frequency. Bytes not listed count as rarest.
 */
const COMMON_BYTES = " \n\tetaoinsrlhdcu.,;()=_'\"/mpfg-{}0:1bywv2*kx>[]<3$j4q5z6789";

/** Rank of each byte: higher is more common. */
const BYTE_RANK: Uint8Array = (() => {
  const rank = new Uint8Array(256);
  for (let i = 0; i < COMMON_BYTES.length; i++) {
    const c = COMMON_BYTES.charCodeAt(i);
    rank[c] = Math.max(rank[c]!, COMMON_BYTES.length - i);
  }
  for (let c = 65; c <= 90; c++) rank[c] = rank[c + 32]!; // upper case as common as lower
  return rank;
})();

/**
 * A search for an ASCII `needle` in bytes that scans for its rarest byte with
 * `Uint8Array.prototype.indexOf` (a native scan, several GB/s) and compares the rest at each
 * hit. Case-insensitive: `needle` is lower case, both cases of the rare byte are scanned and
 * ASCII letters fold, which is exactly what a non-unicode `i` regex does for an ASCII pattern
 * (it never maps a non-ASCII character to an ASCII one). Files it rejects are never decoded.
 */
function byteSearcher(needle: string, ignoreCase: boolean): (bytes: Uint8Array) => boolean {
  const m = needle.length;
  const want = Uint8Array.from(needle, (c) => c.charCodeAt(0));
  const fold = Uint8Array.from(
    { length: 256 },
    (_, c) => (ignoreCase && c >= 65 && c <= 90 ? c + 32 : c),
  );
  let rare = 0;
  for (let i = 1; i < m; i++) if (BYTE_RANK[want[i]!]! < BYTE_RANK[want[rare]!]!) rare = i;
  const byte = want[rare]!;
  const variants = ignoreCase && byte >= 97 && byte <= 122 ? [byte, byte - 32] : [byte];
  return (bytes) => {
    const last = bytes.length - m + rare; // the rare byte's last possible index
    for (const variant of variants) {
      for (
        let at = bytes.indexOf(variant, rare);
        at !== -1 && at <= last;
        at = bytes.indexOf(variant, at + 1)
      ) {
        const start = at - rare;
        let j = 0;
        while (j < m && fold[bytes[start + j]!] === want[j]) j++;
        if (j === m) return true;
      }
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
 * Compiles a pattern. The whole-file test looks for literal pieces (every match contains
 * them). When the longest is ASCII, every ASCII piece is searched in the raw bytes
 * (byteSearcher), which spares decoding the files without one: decoding UTF-8 costs about
 * ten times the scan. Otherwise the longest piece is searched in the decoded text. A
 * piece with other characters is searched in the decoded text: `String.prototype.includes`
 * when case cannot matter, else the piece as a non-global `i` regex.
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
 * const bytes = new TextEncoder().encode("é DEPRECATED since");
 * if (p.mayMatchBytes?.(new TextEncoder().encode("deprecated")) !== false) throw new Error();
 * if (p.mayMatchBytes?.(bytes) !== true) throw new Error();
 * ```
 */
export function compileSearchPattern(pattern: string, caseSensitive: boolean): SearchPattern {
  const regex = patternToRegExp(pattern, caseSensitive);
  const longest = pattern.split("*").reduce((a, b) => (b.length > a.length ? b : a), "");
  if (longest === "") return { regex, mayMatch: () => true };
  const ascii = !/[\u0080-\uffff]/.test(longest);
  // A non-unicode `i` regex folds letters only; ASCII text without letters matches exactly.
  const mayMatch = caseSensitive || !/[A-Za-z\u0080-\uffff]/.test(longest)
    ? (text: string) => text.includes(longest)
    : ((piece: RegExp) => (text: string) => piece.test(text))(
      new RegExp(escapeRegExp(longest), "i"),
    );
  if (!ascii) return { regex, mayMatch };
  // Every ASCII piece must occur somewhere in a matching file: a file with "deprecated" but
  // no "since" is rejected without decoding. Longest first; it rejects the most.
  const searchers = pattern.split("*")
    .filter((piece) => piece !== "" && !/[\u0080-\uffff]/.test(piece))
    .sort((a, b) => b.length - a.length)
    .map((piece) => byteSearcher(caseSensitive ? piece : piece.toLowerCase(), !caseSensitive));
  const mayMatchBytes = searchers.length === 1
    ? searchers[0]!
    : (bytes: Uint8Array) => searchers.every((found) => found(bytes));
  return { regex, mayMatch, mayMatchBytes };
}
