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
  const scan = picomatch.scan(clean);
  const base = scan.isGlob && clean.includes("/") ? scan.base.replace(/\/$/, "") : "";
  return {
    matches: isMatch,
    base,
    namesHidden: /(^|\/)\.[^./]/.test(clean),
  };
}
