// Typed access to npm:picomatch (the package ships no types) for glob, grep_search's
// file_filter and get_file_tree. Paths given to matchers always use forward slashes.

import picomatchUntyped from "picomatch";

/** The picomatch options we use. */
interface PicomatchOptions {
  /** Let `*` and `**` match names that start with a dot. */
  dot?: boolean;
  /** Match patterns without a slash against the basename of the path. */
  basename?: boolean;
  /** Case-insensitive matching. */
  nocase?: boolean;
  /** Treat backslashes as path separators; we always pass forward slashes. */
  windows?: boolean;
}

interface PicomatchScan {
  /** The static directory prefix before the first glob segment. */
  base: string;
  /** The rest of the pattern. */
  glob: string;
  isGlob: boolean;
}

interface Picomatch {
  (pattern: string | string[], options?: PicomatchOptions): (path: string) => boolean;
  scan(pattern: string, options?: PicomatchOptions): PicomatchScan;
}

const picomatch: Picomatch = picomatchUntyped;

/** A compiled glob with the folder a walk can start from. */
export interface GlobMatcher {
  /** Tests a slash-separated path relative to the glob's root. */
  matches(path: string): boolean;
  /** Static folder prefix of the pattern ("" when it starts with a glob), e.g. "src" for "src/**\/*.ts". */
  base: string;
  /** True when the pattern names dot-files or dot-folders explicitly. */
  namesHidden: boolean;
}

/**
 * picomatch's answer for `*.ext` (a name at any depth) and `**\/*.ext` (hidden folders too
 * excluded) without dot-names, without its regex: glob tests every path fd lists.
 */
function extensionMatcher(suffix: string, nameOnly: boolean): (path: string) => boolean {
  // picomatch's `*` never begins a name at a dot or a line break; its `**` crosses no line
  // break and no dot-folder.
  const badName = /^[.\n\r\u2028\u2029]/;
  const badFolder = /[\n\r\u2028\u2029]|(?:^|\/)\./;
  return (path) => {
    if (!path.endsWith(suffix)) return false;
    const slash = path.lastIndexOf("/");
    if (badName.test(path.slice(slash + 1))) return false;
    return nameOnly || slash === -1 || !badFolder.test(path.slice(0, slash));
  };
}

/**
 * Compiles a glob. A pattern without `/` matches file names at any depth (`*.ts`),
 * like fd and ripgrep's --glob.
 *
 * @param pattern The glob, e.g. "**\/*.ts" or "*.md".
 * @param options `dot`: let wildcards match dot-names (default false).
 * @returns The matcher.
 *
 * @example
 * ```ts
 * import { compileGlob } from "./glob_matcher.ts";
 * const g = compileGlob("*.ts");
 * if (!g.matches("src/a.ts") || g.matches("src/a.js")) throw new Error();
 * if (compileGlob("src/**\/*.ts").base !== "src") throw new Error();
 * ```
 */
export function compileGlob(pattern: string, options: { dot?: boolean } = {}): GlobMatcher {
  const clean = pattern.replaceAll("\\", "/").replace(/^\.\//, "");
  const isMatch = picomatch(clean, {
    dot: options.dot ?? false,
    basename: !clean.includes("/"),
    windows: false,
  });
  const extension = /^(\*\*\/)?\*(\.\w+)$/.exec(clean);
  const matches = extension === null || options.dot
    ? isMatch
    : extensionMatcher(extension[2]!, extension[1] === undefined);
  const scan = picomatch.scan(clean);
  const base = scan.isGlob && clean.includes("/") ? scan.base.replace(/\/$/, "") : "";
  return {
    matches,
    base,
    namesHidden: /(^|\/)\.[^./]/.test(clean),
  };
}
