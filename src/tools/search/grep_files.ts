// The search behind grep_search: walks the tree, reads each candidate file once
// (file_reader.ts), skips binaries (a NUL in the first 64 KiB, before decoding), rejects
// most files with a cheap literal test (search_pattern.ts) and only then finds the matching
// lines. Patterns are plain text where `*` matches any run of characters within a line. A
// file that matches is confirmed on its open handle (FileReader.confirm) before its lines are
// reported, so a folder swapped for a symbolic link during the search never shows a file
// outside it.

import { BINARY, FileReader } from "./file_reader.ts";
import type { GlobMatcher } from "./glob_matcher.ts";
import { compileSearchPattern } from "./search_pattern.ts";
import { type WalkDecision, type WalkEntry, walkTree } from "./walk_tree.ts";

export { patternToRegExp } from "./search_pattern.ts";

/** One matching line. */
export interface GrepMatch {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line (cut around the match when very long). */
  text: string;
}

export interface GrepOptions {
  /** Text to find; `*` matches any characters within a line. */
  pattern: string;
  caseSensitive: boolean;
  /**
   * Glob on workspace-relative paths, compiled with `dot` (compileGlob); a glob without `/`
   * matches file names.
   */
  fileFilter?: GlobMatcher;
  maxResults: number;
  includeHidden: boolean;
  respectGitignore: boolean;
}

/** The outcome of a search. */
export interface GrepSummary {
  matches: GrepMatch[];
  /** True when more matches exist than maxResults. */
  truncated: boolean;
  /**
   * Files read (binaries included). Absent when the search stopped at maxResults without
   * counting (ripgrep stops mid-way); the result does not show it then.
   */
  filesSearched?: number;
  filesMatched: number;
  /** Files the sandbox refused to open (a --deny-read entry), skipped, in walk order. */
  deniedFiles: string[];
  /** Folders the sandbox refused to list, skipped, in walk order. */
  deniedDirs: string[];
}

/** Characters of a matching line shown; longer lines are cut around the match. */
const MAX_LINE_CHARS = 300;

/**
 * A matching line as the result shows it: whole up to 300 characters, else cut around the
 * match with "…" where text was left out.
 *
 * @param line The line without its line break.
 * @param column Where the match starts (UTF-16 index).
 * @param length The match's length.
 *
 * @example
 * ```ts
 * import { cutLine } from "./grep_files.ts";
 * const cut = cutLine("x".repeat(1000) + "hit", 1000, 3);
 * if (!cut.startsWith("…") || !cut.endsWith("hit")) throw new Error(cut);
 * ```
 */
export function cutLine(line: string, column: number, length: number): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const from = Math.max(0, Math.min(column - 100, line.length - MAX_LINE_CHARS));
  const to = Math.min(line.length, from + Math.max(MAX_LINE_CHARS, length));
  return `${from > 0 ? "…" : ""}${line.slice(from, to)}${to < line.length ? "…" : ""}`;
}

/**
 * Finds the lines of `text` that match, at most `limit` of them (one entry per line).
 * Returns `limit + 1` entries at most so the caller can tell that more exist.
 */
function matchingLines(text: string, regex: RegExp, path: string, limit: number): GrepMatch[] {
  const found: GrepMatch[] = [];
  let line = 1;
  let counted = 0; // text before this index has been counted into `line`
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    const at = match.index;
    for (
      let nl = text.indexOf("\n", counted);
      nl !== -1 && nl < at;
      nl = text.indexOf("\n", nl + 1)
    ) {
      line++;
      counted = nl + 1;
    }
    const start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
    let end = text.indexOf("\n", at + match[0].length);
    if (end === -1) end = text.length;
    const raw = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    found.push({ path, line, text: cutLine(raw, at - start, match[0].length) });
    if (found.length > limit || end >= text.length) break;
    // Continue on the next line: one entry per matching line.
    line++;
    counted = end + 1;
    regex.lastIndex = end + 1;
  }
  return found;
}

/** What FileGrep.search returns for a file it could not read (vanished, unreadable, over the size limit). */
const UNREAD = "unread";

/** What FileGrep.search returns for a file the sandbox refuses to open (--deny-read). */
const DENIED = "denied";

/** A summary of the built-in search, which counts every file it reads. */
export type CountedSummary = GrepSummary & { filesSearched: number };

/**
 * The search of one file: read once into a reused buffer, binaries skipped, a cheap
 * whole-file test before any line is looked at, and a match confirmed on the open file.
 */
class FileGrep {
  readonly #pattern: ReturnType<typeof compileSearchPattern>;
  readonly #decoder = new TextDecoder();
  readonly #reader = new FileReader();

  constructor(options: Pick<GrepOptions, "pattern" | "caseSensitive">) {
    this.#pattern = compileSearchPattern(options.pattern, options.caseSensitive);
  }

  /**
   * Searches one regular file.
   *
   * @param absPath Real absolute path (from the walk).
   * @param path Workspace-relative path, for the matches.
   * @param limit Matching lines wanted; `limit + 1` are returned at most, so the caller can
   *   tell that more exist.
   * @returns UNREAD, DENIED (the sandbox refused it: never read), BINARY, or the matching
   *   lines (empty when none).
   * @throws {ToolError} when a folder on its path was swapped for a link while it was read.
   */
  search(
    absPath: string,
    path: string,
    limit: number,
  ): GrepMatch[] | typeof UNREAD | typeof DENIED | typeof BINARY {
    const { regex, mayMatch, mayMatchBytes } = this.#pattern;
    let bytes: Uint8Array | typeof BINARY | null;
    try {
      bytes = this.#reader.readText(absPath);
    } catch (error) {
      // A --deny-read file inside the grant (the guard refuses it before the open) or a file
      // outside the grant (Deno's own refusal, which node:fs passes on as an Error of that
      // name): skipped and reported, as ripgrep skips a file it may not open. Never read.
      if (error instanceof Deno.errors.NotCapable || (error as Error)?.name === "NotCapable") {
        return DENIED;
      }
      return UNREAD; // unreadable or vanished: skip, as grep -s does
    }
    if (bytes === null) return UNREAD; // over MAX_SEARCH_FILE_BYTES
    // A NUL in the first 64 KiB marks a binary file; the reader checks the first chunk it
    // reads, so a binary is neither read whole nor decoded.
    if (bytes === BINARY) return BINARY;
    if (mayMatchBytes !== undefined && !mayMatchBytes(bytes)) return [];
    const text = this.#decoder.decode(bytes);
    if (mayMatchBytes === undefined && !mayMatch(text)) return [];
    const lines = matchingLines(text, regex, path, limit);
    // A match: confirm on the still-open file that it is the one its path names.
    if (lines.length > 0) this.#reader.confirm(absPath, path);
    return lines;
  }

  /** Closes the file last read. */
  release(): void {
    this.#reader.release();
  }
}

/**
 * A search's summary before any file is searched.
 *
 * @returns No matches and zero counts.
 */
export function emptySummary(): CountedSummary {
  return {
    matches: [],
    truncated: false,
    filesSearched: 0,
    filesMatched: 0,
    deniedFiles: [],
    deniedDirs: [],
  };
}

/**
 * Searches the files under `start` (or `start` itself, a file) for a pattern.
 *
 * @param workspace Absolute workspace root.
 * @param start Workspace-relative folder ("" for the whole workspace).
 * @param options Pattern, filters and limits.
 * @returns Matches in walk order (folders depth-first, names sorted) and counts.
 *
 * @example
 * ```ts
 * import { grepTree } from "./grep_files.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "one\nTwo\n");
 * const r = grepTree(dir, "", { pattern: "two", caseSensitive: false, maxResults: 10, includeHidden: false, respectGitignore: true });
 * if (r.matches[0]?.line !== 2) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function grepTree(
  workspace: string,
  start: string,
  options: GrepOptions,
): CountedSummary {
  const grep = new FileGrep(options);
  const filter = options.fileFilter ?? null;
  const summary = emptySummary();
  const visit = (entry: WalkEntry): WalkDecision => {
    if (entry.kind !== "file") return; // FIFOs and devices could block or never end
    if (filter !== null && !filter.matches(entry.path)) return;
    const room = options.maxResults - summary.matches.length;
    const found = grep.search(entry.absPath, entry.path, room);
    if (found === UNREAD) return;
    if (found === DENIED) {
      summary.deniedFiles.push(entry.path);
      return;
    }
    summary.filesSearched++;
    if (found === BINARY) return;
    if (found.length === 0) return;
    summary.filesMatched++;
    if (found.length > room) {
      summary.matches.push(...found.slice(0, room));
      summary.truncated = true;
      return "stop";
    }
    summary.matches.push(...found);
  };
  try {
    summary.deniedDirs = walkTree(workspace, start, {
      includeHidden: options.includeHidden,
      respectGitignore: options.respectGitignore,
      visit,
    }).deniedDirs;
  } finally {
    grep.release();
  }
  return summary;
}
