// grep_search on every core: the tool's own worker walks the tree (walk_tree.ts, .gitignore
// and all) and publishes the files it will search into shared memory, while helper workers
// (src/sandbox/search_helpers.ts, each with the tool's own read grant and deny guard) and then
// the walker itself claim chunks of that list in order and search them with the same
// FileGrep as the sequential search. Opening a file costs most of the time in a sandbox
// (Deno resolves every folder of the path for its permission check), so this is where the
// cores pay off.
//
// The answer is the sequential one, byte for byte: chunks are claimed in walk order and a
// claimed chunk is always searched to its end, so the chunks searched are a prefix of the
// walk; workers stop claiming once more matches than asked for are found (or a file fails),
// and the results are merged in walk order, counting files up to the same file where the
// sequential search stops.

import { realpathSync } from "node:fs";
import { sep } from "node:path";
import { ToolError } from "../define_tool.ts";
import { BINARY } from "./file_reader.ts";
import {
  DENIED,
  emptySummary,
  fileFilterOf,
  FileGrep,
  type GrepMatch,
  type GrepOptions,
  type GrepSummary,
  UNREAD,
} from "./grep_files.ts";
import { walkTree } from "./walk_tree.ts";

/** Files per claimed chunk: small enough to balance the work, large enough to claim rarely. */
const CHUNK_FILES = 32;

/** Indexes into the shared control array. */
const PUBLISHED = 0; // files published so far
const WALK_DONE = 1; // 1 once the walk has published its last file
const NEXT_CHUNK = 2; // the next chunk to claim
const MATCHES = 3; // matching lines found so far, by everyone
const STOP = 4; // 1: claim no more chunks (enough matches, a failure, or an abort)
const JOINED = 5; // helpers that took part (each answers with one "done")
const CLOSED = 6; // 1 once the walker has finished its share: late helpers only answer
const CONTROL_SLOTS = 8;

/** Published chunks waiting beyond the next before the walker searches one itself. */
const BACKLOG_CHUNKS = 4;

/** Bytes of published paths the shared list can hold, and paths: far beyond real trees. */
const MAX_NAME_BYTES = 512 * 1024 * 1024;
const MAX_FILES = 8 * 1024 * 1024;

/** The work of one search, in shared memory: the published paths and the control words. */
export interface SharedFileList {
  control: SharedArrayBuffer;
  /** Int32 end offset of each path in `names`. */
  ends: SharedArrayBuffer;
  /** UTF-8 workspace-relative paths, back to back. */
  names: SharedArrayBuffer;
}

/** What the walker sends each helper for one search. */
export interface GrepRequest {
  type: "grep";
  list: SharedFileList;
  /** The real workspace root and separator: a file's real path is `root + path`. */
  root: string;
  pattern: string;
  caseSensitive: boolean;
  maxResults: number;
}

/** A failure met in a chunk, at one file; thrown in walk order by the walker. */
interface ChunkFailure {
  /** Index of the file in the walk. */
  file: number;
  name: string;
  message: string;
  /** ToolError's category. */
  type?: string;
}

/** A matching file in a chunk, with the counts the summary needs if the search stops there. */
interface ChunkMatch {
  file: number;
  /** Files searched (and binaries skipped) in the chunk up to and including this one. */
  searched: number;
  binaries: number;
  lines: GrepMatch[];
}

/** What searching one chunk found. */
interface ChunkResult {
  chunk: number;
  searched: number;
  binaries: number;
  matches: ChunkMatch[];
  /** Files the sandbox refused to open, skipped. */
  denied: { file: number; path: string }[];
  failure?: ChunkFailure & { searched: number; binaries: number };
}

/** A helper's answer to one GrepRequest. */
export interface GrepDone {
  type: "done";
  chunks: ChunkResult[];
}

function serialiseError(error: unknown, file: number): ChunkFailure {
  if (error instanceof ToolError) {
    return { file, name: "ToolError", message: error.message, type: error.type };
  }
  if (error instanceof Error) return { file, name: error.name, message: error.message };
  return { file, name: "Error", message: String(error) };
}

/** The error a failure stands for, as the sequential search would have thrown it. */
function reviveError(failure: ChunkFailure): Error {
  if (failure.name === "ToolError") {
    return new ToolError(
      (failure.type ?? "internal_error") as ConstructorParameters<typeof ToolError>[0],
      failure.message,
    );
  }
  if (failure.name === "NotCapable") return new Deno.errors.NotCapable(failure.message);
  const error = new Error(failure.message);
  error.name = failure.name;
  return error;
}

/** Tells every thread to claim no more chunks (and wakes those waiting for paths). */
function stopAll(control: Int32Array): void {
  Atomics.store(control, STOP, 1);
  Atomics.notify(control, PUBLISHED);
}

/**
 * A claimed chunk that failed as a whole (not at one file): the merge throws when it reaches
 * it, rather than taking the chunk as missing and ending the searched prefix early.
 */
function failedChunk(claimed: { chunk: number; from: number }, error: unknown): ChunkResult {
  return {
    chunk: claimed.chunk,
    searched: 0,
    binaries: 0,
    matches: [],
    denied: [],
    failure: { ...serialiseError(error, claimed.from), searched: 0, binaries: 0 },
  };
}

/** Reads the shared list: the control words and the published paths. */
class ListView {
  readonly control: Int32Array;
  // Views without a length track the growable buffers as the walk grows them.
  readonly #ends: Int32Array;
  readonly #names: Uint8Array;
  readonly #decoder = new TextDecoder();

  constructor(list: SharedFileList) {
    this.control = new Int32Array(list.control);
    this.#ends = new Int32Array(list.ends);
    this.#names = new Uint8Array(list.names);
  }

  /** The workspace-relative path of file `i` (published). */
  path(i: number): string {
    const from = i === 0 ? 0 : this.#ends[i - 1]!;
    return this.#decoder.decode(this.#names.subarray(from, this.#ends[i]!));
  }

  /**
   * Claims the next chunk if it is already published and `backlog` more are waiting
   * behind it; never waits (the walker publishes, so it must not wait for itself).
   */
  claimPublished(backlog: number): { chunk: number; from: number; to: number } | null {
    const { control } = this;
    if (Atomics.load(control, STOP) === 1) return null;
    const chunk = Atomics.load(control, NEXT_CHUNK);
    const published = Atomics.load(control, PUBLISHED);
    if ((chunk + 1 + backlog) * CHUNK_FILES > published) return null;
    if (Atomics.compareExchange(control, NEXT_CHUNK, chunk, chunk + 1) !== chunk) return null;
    return { chunk, from: chunk * CHUNK_FILES, to: (chunk + 1) * CHUNK_FILES };
  }

  /**
   * Claims the next chunk and waits until its files are published (or the walk ends).
   * Returns its first and end file index, or null when there is no more work.
   */
  claim(): { chunk: number; from: number; to: number } | null {
    const { control } = this;
    if (Atomics.load(control, STOP) === 1) return null;
    // A claimed chunk is always searched, even if STOP is set meanwhile: skipping one could
    // leave a hole before chunks already searched (the merge needs a prefix of the walk).
    const chunk = Atomics.add(control, NEXT_CHUNK, 1);
    const from = chunk * CHUNK_FILES;
    for (;;) {
      const published = Atomics.load(control, PUBLISHED);
      const done = Atomics.load(control, WALK_DONE) === 1;
      if (published >= from + CHUNK_FILES || done) {
        // Read again: the walk may have published more before it said it was done.
        const total = Atomics.load(control, PUBLISHED);
        if (from >= total) return null;
        return { chunk, from, to: Math.min(from + CHUNK_FILES, total) };
      }
      // The walker stops walking at STOP and then says it is done: no wait lasts.
      Atomics.wait(control, PUBLISHED, published, 50);
    }
  }
}

/** Searches the files of one claimed chunk. */
function searchChunk(
  view: ListView,
  claimed: { chunk: number; from: number; to: number },
  root: string,
  grep: FileGrep,
  maxResults: number,
): ChunkResult {
  const { control } = view;
  const result: ChunkResult = {
    chunk: claimed.chunk,
    searched: 0,
    binaries: 0,
    matches: [],
    denied: [],
  };
  let found = 0;
  for (let file = claimed.from; file < claimed.to; file++) {
    let outcome: ReturnType<FileGrep["search"]>;
    const path = view.path(file);
    try {
      outcome = grep.search(root + path, path, maxResults - found);
    } catch (error) {
      result.failure = {
        ...serialiseError(error, file),
        searched: result.searched,
        binaries: result.binaries,
      };
      stopAll(control);
      break;
    }
    if (outcome === UNREAD) continue;
    if (outcome === DENIED) {
      result.denied.push({ file, path });
      continue;
    }
    result.searched++;
    if (outcome === BINARY) {
      result.binaries++;
      continue;
    }
    if (outcome.length === 0) continue;
    found += outcome.length;
    result.matches.push({
      file,
      searched: result.searched,
      binaries: result.binaries,
      lines: outcome,
    });
    // More than asked for in this chunk alone: the rest of it cannot be shown.
    if (found > maxResults) break;
  }
  if (Atomics.add(control, MATCHES, found) + found > maxResults) stopAll(control);
  return result;
}

/**
 * Claims and searches chunks until none is left or the search should stop, adding what each
 * found to `results`. Shared by the walker and the helpers.
 */
function searchChunks(
  view: ListView,
  root: string,
  grep: FileGrep,
  maxResults: number,
  results: ChunkResult[],
): void {
  for (let claimed = view.claim(); claimed !== null; claimed = view.claim()) {
    try {
      results.push(searchChunk(view, claimed, root, grep, maxResults));
    } catch (error) {
      // Not one file's failure (searchChunk records those): the whole chunk fails.
      results.push(failedChunk(claimed, error));
      stopAll(view.control);
      return;
    }
  }
}

/**
 * A helper's side of one search: joins unless the walker has already finished, searches
 * chunks, and always answers once it has joined.
 *
 * @param request The walker's request.
 * @param reply Sends the answer (a MessagePort's postMessage).
 */
export function serveGrepRequest(request: GrepRequest, reply: (done: GrepDone) => void): void {
  const view = new ListView(request.list);
  const { control } = view;
  Atomics.add(control, JOINED, 1);
  if (Atomics.load(control, CLOSED) === 1) {
    reply({ type: "done", chunks: [] });
    return;
  }
  const grep = new FileGrep(request);
  const chunks: ChunkResult[] = [];
  try {
    searchChunks(view, request.root, grep, request.maxResults, chunks);
  } catch (error) {
    // Claiming failed, so no chunk can carry the error: fail the search from its start.
    stopAll(control);
    chunks.push(failedChunk({ chunk: 0, from: 0 }, error));
  } finally {
    grep.release();
  }
  reply({ type: "done", chunks });
}

/** Appends paths to the shared list as the walk finds them, growing the buffers. */
class Publisher {
  readonly list: SharedFileList;
  readonly #control: Int32Array;
  readonly #encoder = new TextEncoder();
  // Views without a length: they track the buffers as #grow grows them.
  readonly #ends: Int32Array;
  readonly #names: Uint8Array;
  #count = 0;
  #bytes = 0;

  constructor() {
    const growable = (bytes: number, max: number) =>
      new SharedArrayBuffer(bytes, { maxByteLength: max } as unknown as undefined);
    this.list = {
      control: new SharedArrayBuffer(CONTROL_SLOTS * 4),
      ends: growable(4096 * 4, MAX_FILES * 4),
      names: growable(256 * 1024, MAX_NAME_BYTES),
    };
    this.#control = new Int32Array(this.list.control);
    this.#ends = new Int32Array(this.list.ends);
    this.#names = new Uint8Array(this.list.names);
  }

  get control(): Int32Array {
    return this.#control;
  }

  /** Paths added so far. */
  get count(): number {
    return this.#count;
  }

  /** Adds one path; publishes whole chunks. Returns false when the list is full. */
  add(path: string): boolean {
    if (this.#count === this.#ends.length) {
      if (!this.#grow(this.list.ends, this.#ends.byteLength * 2, MAX_FILES * 4)) return false;
    }
    // A UTF-16 unit takes at most 3 bytes of UTF-8.
    if (this.#bytes + path.length * 3 > this.#names.length) {
      const want = Math.max(this.#names.length * 2, this.#bytes + path.length * 3);
      if (!this.#grow(this.list.names, want, MAX_NAME_BYTES)) return false;
    }
    this.#bytes += this.#encoder.encodeInto(path, this.#names.subarray(this.#bytes)).written;
    this.#ends[this.#count++] = this.#bytes;
    if (this.#count % CHUNK_FILES === 0) this.#publish();
    return true;
  }

  #grow(buffer: SharedArrayBuffer, bytes: number, max: number): boolean {
    const target = Math.min(bytes, max);
    if (target <= buffer.byteLength) return false;
    (buffer as unknown as { grow(bytes: number): void }).grow(target);
    return true;
  }

  #publish(): void {
    Atomics.store(this.#control, PUBLISHED, this.#count);
    Atomics.notify(this.#control, PUBLISHED);
  }

  /** Publishes the rest and tells the helpers the walk is over. */
  finish(): void {
    Atomics.store(this.#control, PUBLISHED, this.#count);
    Atomics.store(this.#control, WALK_DONE, 1);
    Atomics.notify(this.#control, PUBLISHED);
  }
}

/** A folder the sandbox refused, and how many files the walk had published before it. */
interface DeniedDir {
  path: string;
  position: number;
}

/**
 * Merges chunk results in walk order into what the sequential search returns. Denied files
 * and folders count up to the file where the sequential search would have stopped.
 */
function merge(
  chunks: Map<number, ChunkResult>,
  maxResults: number,
  deniedDirs: readonly DeniedDir[],
): GrepSummary {
  const summary = emptySummary();
  let stopFile = Infinity;
  chunks: for (let chunk = 0;; chunk++) {
    const result = chunks.get(chunk);
    if (result === undefined) break; // the end of the searched prefix
    // A chunk's matches all come before its failure: its search stopped there.
    for (const match of result.matches) {
      const room = maxResults - summary.matches.length;
      summary.filesMatched++;
      if (match.lines.length > room) {
        summary.filesSearched += match.searched;
        summary.binaryFilesSkipped += match.binaries;
        summary.matches.push(...match.lines.slice(0, room));
        summary.truncated = true;
        stopFile = match.file;
        for (const denied of result.denied) {
          if (denied.file < stopFile) summary.deniedFiles.push(denied.path);
        }
        break chunks;
      }
      summary.matches.push(...match.lines);
    }
    if (result.failure !== undefined) throw reviveError(result.failure);
    summary.filesSearched += result.searched;
    summary.binaryFilesSkipped += result.binaries;
    for (const denied of result.denied) summary.deniedFiles.push(denied.path);
  }
  // A folder met before the stopping file: the sequential walk met it too.
  summary.deniedDirs = deniedDirs.filter((d) => d.position <= stopFile).map((d) => d.path);
  return summary;
}

/** Options of grepTreeParallel beyond the search's own. */
export interface ParallelOptions {
  /** Aborts the search: nobody claims another chunk. */
  signal?: AbortSignal;
  /**
   * Whether the walker searches chunks too: during the walk when helpers fall behind, and
   * after it (default true). Tests turn it off to make the helpers search every file.
   */
  walkerSearches?: boolean;
}

/**
 * Searches the files under `start` with the helpers behind `ports` and this thread. Gives
 * the same summary as grepTree (grep_files.ts).
 *
 * @param workspace Absolute workspace root.
 * @param start Workspace-relative folder ("" for the whole workspace).
 * @param options Pattern, filters and limits.
 * @param ports One MessagePort per helper (search_helper_worker.ts answers on it).
 * @param parallel Abort signal; whether this thread searches too.
 * @returns Matches in walk order and counts, as grepTree returns them.
 */
export async function grepTreeParallel(
  workspace: string,
  start: string,
  options: GrepOptions,
  ports: readonly MessagePort[],
  parallel: ParallelOptions = {},
): Promise<GrepSummary> {
  const filter = fileFilterOf(options);
  const publisher = new Publisher();
  const { control } = publisher;
  // The walk names each file by its real path: the real root, a separator, then `path`.
  const root = realpathSync(workspace) + sep;
  const request: GrepRequest = {
    type: "grep",
    list: publisher.list,
    root,
    pattern: options.pattern,
    caseSensitive: options.caseSensitive,
    maxResults: options.maxResults,
  };
  const chunks = new Map<number, ChunkResult>();
  const grep = new FileGrep(options);
  const view = new ListView(publisher.list);
  const answers = ports.map((port) => answerOf(port));
  const walkerSearches = parallel.walkerSearches !== false;
  for (const port of ports) port.postMessage(request);
  const stop = () => stopAll(control);
  parallel.signal?.addEventListener("abort", stop, { once: true });
  let full = false;
  const deniedDirs: DeniedDir[] = [];
  // A failure of the walk counts where the sequential search would meet it: after every
  // file published before it, which are still searched.
  let walkFailure: unknown;
  try {
    walkTree(workspace, start, {
      includeHidden: options.includeHidden,
      respectGitignore: options.respectGitignore,
      onDenied: (path) => deniedDirs.push({ path, position: publisher.count }),
      visit(entry) {
        if (entry.kind !== "file") return;
        if (filter !== null && !filter.matches(entry.path)) return;
        if (entry.absPath !== root + entry.path) {
          throw new Error(`The walk named "${entry.absPath}", not "${root}${entry.path}"`);
        }
        if (!publisher.add(entry.path)) {
          full = true;
          return "stop";
        }
        // Helpers still starting, or slower than the walk: search a waiting chunk here, so a
        // search that stops early at max_results does not walk the whole tree first.
        const claimed = walkerSearches ? view.claimPublished(BACKLOG_CHUNKS) : null;
        if (claimed !== null) {
          const result = searchChunk(view, claimed, root, grep, options.maxResults);
          chunks.set(result.chunk, result);
        }
        if (Atomics.load(control, STOP) === 1) return "stop";
      },
    });
  } catch (error) {
    walkFailure = error;
  } finally {
    publisher.finish();
  }
  try {
    if (walkerSearches) {
      const mine: ChunkResult[] = [];
      searchChunks(view, root, grep, options.maxResults, mine);
      for (const result of mine) chunks.set(result.chunk, result);
    }
  } finally {
    grep.release();
  }
  // Without the walker's share, every helper must take part: wait for all of them.
  const helped = walkerSearches ? undefined : await Promise.all(answers);
  Atomics.store(control, CLOSED, 1);
  for (const done of helped ?? await joinedAnswers(answers, control)) {
    for (const result of done.chunks) chunks.set(result.chunk, result);
  }
  parallel.signal?.removeEventListener("abort", stop);
  if (parallel.signal?.aborted) throw new ToolError("cancelled", "The search was cancelled");
  const summary = merge(chunks, options.maxResults, deniedDirs);
  if (summary.truncated) return summary;
  if (walkFailure !== undefined) throw walkFailure;
  if (full) {
    throw new ToolError(
      "limit_reached",
      `More than ${MAX_FILES} files or ${MAX_NAME_BYTES / 1024 / 1024} MB of paths to search: ` +
        "narrow the search with file_filter",
    );
  }
  return summary;
}

/** A helper's next answer on `port`. */
function answerOf(port: MessagePort): Promise<GrepDone> {
  return new Promise<GrepDone>((settle) => {
    port.onmessage = (event: MessageEvent<GrepDone>) => {
      if (event.data?.type === "done") settle(event.data);
    };
  });
}

/**
 * The answers of the helpers that joined. A helper joins before it reads CLOSED, so once
 * CLOSED is set, JOINED grows only by helpers that answer at once with nothing.
 */
async function joinedAnswers(
  answers: Promise<GrepDone>[],
  control: Int32Array,
): Promise<GrepDone[]> {
  const got: GrepDone[] = [];
  const pending = new Map(answers.map((answer, i) => [i, answer.then((done) => ({ i, done }))]));
  while (got.length < Atomics.load(control, JOINED) && pending.size > 0) {
    const { i, done } = await Promise.race(pending.values());
    pending.delete(i);
    got.push(done);
  }
  return got;
}
