// grep_search through ripgrep (run by the host in the command sandbox, search_client.ts),
// giving the built-in search's answer (grep_files.ts): the same lines, each checked with the
// built-in's regex, in walk order, cut at max_results in the same file, the same counts and
// the same skipped paths. ripgrep searches on every core in no particular order; its lines
// are put in walk order here. Only when far more lines match than asked for (a common word)
// is it stopped, and a second, sorted run on one thread finds where the walk would have
// stopped: with that many lines, early in the walk.

import { cutLine, type GrepMatch, type GrepOptions, type GrepSummary } from "./grep_files.ts";
import { deniedOnWalk } from "./denied_paths.ts";
import { walkOrderKey } from "./walk_order.ts";
import { type RgLine, RgOutput } from "./rg_output.ts";
import { rgRegex } from "./search_arguments.ts";
import { type SearchClient, type SearchRun, STOP } from "./search_client.ts";
import type { GrepRequest } from "./search_protocol.ts";
import { patternToRegExp } from "./search_pattern.ts";
import { folderIgnored } from "./walk_tree.ts";

/** A name glob ripgrep's file types read as picomatch does: no classes, ranges or extglobs. */
const PLAIN_NAME_GLOB = /^[A-Za-z0-9_.\-*?{},]+$/;

/**
 * How many candidate lines, per line asked for, the first run (every core, any order) may
 * gather before it is stopped for the sorted run: up to it, the whole output is cheaper to
 * read and sort than a run on one thread; past it, the sorted run stops within about the
 * first eighth of the tree.
 */
const FIRST_RUN_LINES_PER_RESULT = 8;

/** The most bytes of candidate lines the first run gathers before it is stopped. */
const FIRST_RUN_BYTES = 8 * 1024 * 1024;

/** A literal folder name: no glob syntax. */
const LITERAL_NAME = /^[^*?[\]{}()!+@\\]+$/;

/** Where ripgrep looks for a file_filter, or undefined when it cannot express it exactly. */
type FilterPlan = Pick<GrepRequest, "folder" | "nameGlob" | "topLevelOnly">;

function nameGlobPlan(glob: string): FilterPlan | undefined {
  if (glob === "*" || glob === "**") return { folder: "" };
  if (!PLAIN_NAME_GLOB.test(glob) || /\{[^}]*(\{|\.\.)/.test(glob)) return undefined;
  return { folder: "", nameGlob: glob };
}

/**
 * The file_filter as a folder and a name glob: `*.ts`, `**\/*.ts`, `src/**\/*.ts` and
 * `docs/*.md` are; anything else is left to the built-in search. A folder the built-in walk
 * would not enter (hidden, ignored, a link) is left to it too: ripgrep searches a folder it
 * is given.
 */
function filterPlan(workspace: string, options: GrepOptions): FilterPlan | undefined {
  const filter = (options.fileFilter?.source ?? "").replaceAll("\\", "/").replace(/^\.\//, "");
  if (filter === "") return { folder: "" };
  const slash = filter.lastIndexOf("/");
  if (slash === -1) return nameGlobPlan(filter);
  let folder = filter.slice(0, slash);
  let topLevelOnly = true;
  if (folder === "**" || folder.endsWith("/**")) {
    folder = folder.slice(0, -2).replace(/\/$/, "");
    topLevelOnly = false;
  }
  const name = nameGlobPlan(filter.slice(slash + 1));
  if (name === undefined) return undefined;
  if (folder === "") return topLevelOnly ? { ...name, topLevelOnly } : name;
  const parts = folder.split("/");
  if (
    parts.some((part) =>
      part === "" || part === "." || part === ".." || !LITERAL_NAME.test(part) ||
      (!options.includeHidden && part.startsWith("."))
    )
  ) return undefined;
  if (options.respectGitignore && folderIgnored(workspace, folder)) return undefined;
  try {
    const real = Deno.realPathSync(`${workspace}/${folder}`);
    if (real !== `${Deno.realPathSync(workspace)}/${folder}`) return undefined; // a link
  } catch {
    return undefined; // missing: the built-in search says "no matches"
  }
  return { ...name, folder, ...(topLevelOnly ? { topLevelOnly } : {}) };
}

/** Adds files' matching lines in walk order, stopping where the built-in search stops. */
class MatchCollector {
  readonly matches: GrepMatch[] = [];
  filesMatched = 0;
  truncated = false;
  /** The file where the search stopped. */
  stopPath: string | undefined;

  constructor(readonly max: number) {}

  /** Adds one file's lines; false once more than `max` lines were found. */
  add(path: string, lines: GrepMatch[]): boolean {
    if (lines.length === 0) return true;
    this.filesMatched++;
    const room = this.max - this.matches.length;
    if (lines.length > room) {
      this.matches.push(...lines.slice(0, room));
      this.truncated = true;
      this.stopPath = path;
      return false;
    }
    this.matches.push(...lines);
    return true;
  }
}

/** Checks ripgrep's lines with the built-in search's regex and shapes them as it does. */
class LineCheck {
  readonly #regex: RegExp;
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });

  constructor(options: GrepOptions) {
    const global = patternToRegExp(options.pattern, options.caseSensitive);
    this.#regex = new RegExp(global.source, global.flags.replace("g", ""));
  }

  /** The lines of one file that the built-in search reports, in order. */
  lines(lines: readonly RgLine[]): GrepMatch[] {
    const found: GrepMatch[] = [];
    for (const { path, line, bytes } of lines) {
      let text = this.#decoder.decode(bytes);
      // The built-in search decodes whole files, which drops a byte order mark at the start.
      if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.endsWith("\r")) text = text.slice(0, -1);
      const match = this.#regex.exec(text);
      if (match === null) continue; // ripgrep's `*` crosses more than the built-in's
      found.push({ path, line, text: cutLine(text, match.index, match[0].length) });
    }
    return found;
  }
}

/** Whether a path passes the file_filter, asked once per file (lines come file by file). */
function filterOf(options: GrepOptions): (path: string) => boolean {
  // ripgrep's name glob matches a few names picomatch's does not (one starting with a line
  // break): each file is checked with the filter itself.
  const filter = options.fileFilter;
  if (filter === undefined) return () => true;
  let last: [string, boolean] = ["", true];
  return (path) => {
    if (last[0] !== path) last = [path, filter.matches(path)];
    return last[1];
  };
}

/** What the first run (every core, any order) gathered. */
interface ParallelRun {
  run: SearchRun;
  output: RgOutput;
  byFile: Map<string, RgLine[]>;
  /** Stopped: far more lines matched than asked for. */
  tooMany: boolean;
}

/** Runs ripgrep on every core to the end, unless far more lines match than asked for. */
async function parallelRun(
  client: SearchClient,
  request: GrepRequest,
  filtered: (path: string) => boolean,
  signal?: AbortSignal,
): Promise<ParallelRun> {
  const output = new RgOutput();
  const byFile = new Map<string, RgLine[]>();
  let candidates = 0;
  let bytes = 0;
  let tooMany = false;
  const budget = FIRST_RUN_LINES_PER_RESULT * request.maxCount;
  const run = await client.run(request, (chunk, root) => {
    output.push(chunk, root, (line) => {
      if (!filtered(line.path)) return;
      const lines = byFile.get(line.path);
      if (lines) lines.push(line);
      else byFile.set(line.path, [line]);
      candidates++;
      bytes += line.bytes.length;
    });
    tooMany = candidates > budget || bytes > FIRST_RUN_BYTES;
    return tooMany ? STOP : undefined;
  }, signal);
  return { run, output, byFile, tooMany };
}

/**
 * Runs ripgrep on one thread in walk order, adding each file's lines to the collector until
 * it is full; returns the files searched (undefined when cut), or false when it failed.
 */
async function sortedRun(
  client: SearchClient,
  request: GrepRequest,
  filtered: (path: string) => boolean,
  add: (lines: RgLine[]) => boolean,
  signal?: AbortSignal,
): Promise<number | undefined | false> {
  const sorted = new RgOutput();
  let current: RgLine[] = [];
  let more = true;
  const flush = () => {
    if (more && current.length > 0) more = add(current);
    current = [];
  };
  const run = await client.run({ ...request, sorted: true }, (bytes, root) => {
    sorted.push(bytes, root, (line) => {
      if (!filtered(line.path)) return;
      if (current.length > 0 && current[0]!.path !== line.path) flush();
      current.push(line);
    });
    return more ? undefined : STOP;
  }, signal);
  if ("unavailable" in run || (run.code === null && more)) return false;
  flush();
  return sorted.filesSearched();
}

/**
 * Searches with ripgrep.
 *
 * @param client The call's search client.
 * @param workspace Absolute workspace root.
 * @param options grep_search's options.
 * @param signal Stops ripgrep when aborted.
 * @returns The built-in search's summary, or undefined when ripgrep cannot answer this
 *   (not installed, no sandbox, a pattern or filter it cannot express, an error): search
 *   with the built-in search then.
 */
export async function grepWithRg(
  client: SearchClient,
  workspace: string,
  options: GrepOptions,
  signal?: AbortSignal,
): Promise<GrepSummary | undefined> {
  const plan = filterPlan(workspace, options);
  if (plan === undefined || rgRegex(options.pattern) === undefined) return undefined;
  const check = new LineCheck(options);
  const request: GrepRequest = {
    type: "grep",
    pattern: options.pattern,
    caseSensitive: options.caseSensitive,
    includeHidden: options.includeHidden,
    respectGitignore: options.respectGitignore,
    maxCount: options.maxResults + 1,
    sorted: false,
    ...plan,
  };
  const filtered = filterOf(options);
  const { run: first, output, byFile, tooMany } = await parallelRun(
    client,
    request,
    filtered,
    signal,
  );
  if ("unavailable" in first) return undefined;
  const collector = new MatchCollector(options.maxResults);
  let searched = output.filesSearched();
  if (!tooMany) {
    // Every file's lines (at most maxCount each) in walk order: the walk stops at that file.
    if (first.code === null || searched === undefined) return undefined; // aborted, an error
    const paths = [...byFile.keys()].map((path) => [walkOrderKey(path), path] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    for (const [, path] of paths) {
      if (!collector.add(path, check.lines(byFile.get(path)!))) break;
    }
  } else {
    if (signal?.aborted) return undefined;
    // Far more lines match than asked for: one thread in walk order, stopped where enough are.
    const add = (lines: RgLine[]) => collector.add(lines[0]!.path, check.lines(lines));
    const counted = await sortedRun(client, request, filtered, add, signal);
    if (counted === false) return undefined;
    searched = counted;
    if (!collector.truncated && searched === undefined) return undefined;
  }
  const filter = options.fileFilter;
  const denied = deniedOnWalk(workspace, "", first.excluded, {
    includeHidden: options.includeHidden,
    respectGitignore: options.respectGitignore,
    file: (path) => filter === undefined || filter.matches(path),
    ...(collector.stopPath === undefined ? {} : { before: collector.stopPath }),
  });
  return {
    matches: collector.matches,
    truncated: collector.truncated,
    ...(collector.truncated ? {} : { filesSearched: searched! }),
    filesMatched: collector.filesMatched,
    ...denied,
  };
}
