// Globs for glob and grep_search's file_filter: `*.ext` and `**/*.ext` by a matcher of our own
// (the common case, and glob tests every path fd lists), anything else by npm:picomatch, typed
// here (the package ships no types). picomatch loads only for a pattern that needs it: in a
// tool's worker its import cost about 20 ms of every glob and grep_search call. Paths given to
// matchers always use forward slashes.

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

let loaded: Promise<Picomatch> | undefined;

/** picomatch, loaded once, on first need. */
function loadPicomatch(): Promise<Picomatch> {
  loaded ??= import("picomatch").then((module) => module.default as Picomatch);
  return loaded;
}

/** A compiled glob with the folder a walk can start from. */
export interface GlobMatcher {
  /** The pattern as given. */
  source: string;
  /** Tests a slash-separated path relative to the glob's root. */
  matches(path: string): boolean;
  /** Static folder prefix of the pattern ("" when it starts with a glob), e.g. "src" for "src/**\/*.ts". */
  base: string;
  /** True when the pattern names dot-files or dot-folders explicitly. */
  namesHidden: boolean;
  /**
   * Set for `*.ext` and `**\/*.ext`: a path with no name starting with a dot and no control
   * character matches exactly when it ends with this (".ext"), so a listing can be tested
   * in bulk.
   */
  suffix?: string;
}

/**
 * picomatch's answer for `*.ext` (a name at any depth) and `**\/*.ext` (hidden folders too
 * excluded) without dot-names, without its regex: glob tests every path fd lists.
 */
function extensionMatcher(suffix: string, nameOnly: boolean): (path: string) => boolean {
  // picomatch's `*` never begins a name at a dot or a line break; its `**` crosses no line
  // break and no dot-folder. Tested without slicing the path: glob tests every path fd lists.
  const lineBreak = /[\n\r\u2028\u2029]/;
  return (path) => {
    if (!path.endsWith(suffix)) return false;
    const slash = path.lastIndexOf("/");
    const first = path.charCodeAt(slash + 1);
    if (
      first === 0x2e || first === 0x0a || first === 0x0d || first === 0x2028 || first === 0x2029
    ) {
      return false;
    }
    if (nameOnly || slash === -1) return true;
    if (path.charCodeAt(0) === 0x2e) return false;
    const dot = path.indexOf("/.");
    if (dot !== -1 && dot < slash) return false;
    const broken = path.search(lineBreak);
    return broken === -1 || broken > slash;
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
 * const g = await compileGlob("*.ts");
 * if (!g.matches("src/a.ts") || g.matches("src/a.js")) throw new Error();
 * if ((await compileGlob("src/**\/*.ts")).base !== "src") throw new Error();
 * ```
 */
export async function compileGlob(
  pattern: string,
  options: { dot?: boolean } = {},
): Promise<GlobMatcher> {
  const clean = pattern.replaceAll("\\", "/").replace(/^\.\//, "");
  const namesHidden = /(^|\/)\.[^./]/.test(clean);
  const extension = /^(\*\*\/)?\*(\.\w+)$/.exec(clean);
  if (extension !== null && !options.dot) {
    // Its walk starts at the top (picomatch's scan gives no static folder for these).
    const suffix = extension[2]!;
    const matches = extensionMatcher(suffix, extension[1] === undefined);
    return { source: pattern, matches, base: "", namesHidden, suffix };
  }
  const picomatch = await loadPicomatch();
  const matches = picomatch(clean, {
    dot: options.dot ?? false,
    basename: !clean.includes("/"),
    windows: false,
  });
  const scan = picomatch.scan(clean);
  const base = scan.isGlob && clean.includes("/") ? scan.base.replace(/\/$/, "") : "";
  return { source: pattern, matches, base, namesHidden };
}
