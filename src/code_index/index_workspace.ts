// Brings a workspace's code graph up to date: runs the indexing workers (index_workers.ts)
// under the user's read grant, feeds them what the store already knows, and writes what they
// find. Used on first use and lazily by the code tools (changed files only, on the session's
// workers), and by `harness index`. A file no grammar parses is never sent to a worker.

import type { Grants } from "../sandbox/grants/grants.ts";
import type { GraphStore } from "./graph_store.ts";
import { IndexWorkers } from "./index_workers.ts";
import { grammarFor } from "./languages.ts";
import type { IndexRequest } from "./index_worker.ts";

/** Options of {@linkcode indexWorkspace}. */
export interface IndexOptions {
  workspace: string;
  grants: Grants;
  store: GraphStore;
  /** Refresh only these workspace-relative paths. */
  only?: string[];
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  /** Larger files (generated or minified code) are not indexed. Default 1 MiB. */
  maxFileBytes?: number;
  /** Workers kept between runs (the session's); else started for this run and stopped. */
  workers?: IndexWorkers;
}

/** What one indexing run did. */
export interface IndexSummary {
  /** Source files seen (indexed now or already up to date). */
  files: number;
  parsed: number;
  removed: number;
  /** Files too large, unreadable or outside the read grant. */
  skipped: number;
  /** Files a grammar could not parse ("path: reason"); indexed as empty. */
  failures: string[];
  elapsedMs: number;
}

/**
 * Indexes the workspace (or `only` some files) and returns counts.
 *
 * @throws Error with a user-facing message when the read grant does not cover the workspace
 *   or the worker fails.
 */
export async function indexWorkspace(options: IndexOptions): Promise<IndexSummary> {
  const started = performance.now();
  const workers = options.workers ?? new IndexWorkers(options.workspace, options.grants);
  if (!workers.readable) {
    throw new Error(
      `Cannot index "${options.workspace}": no read access; run harness with --allow-read=.`,
    );
  }
  const fingerprints = options.store.fingerprints();
  // Only code a grammar parses: an edited README costs nothing.
  const only = options.only?.filter((path) => grammarFor(path) !== undefined);
  if (only?.length === 0) {
    const gone = options.only!.filter((path) => fingerprints.has(path));
    options.store.removeFiles(gone);
    return {
      files: 0,
      parsed: 0,
      removed: gone.length,
      skipped: 0,
      failures: [],
      elapsedMs: performance.now() - started,
    };
  }
  const known: IndexRequest["known"] = {};
  for (const [path, f] of fingerprints) known[path] = [f.size, f.mtimeMs, f.hash];
  // A first index: one worker per core (at most four), each parsing its share of the walk's
  // files. After that, changes are few and the session's one worker does it.
  const first = fingerprints.size === 0 && !only;
  const count = first ? Math.max(1, Math.min(4, navigator.hardwareConcurrency ?? 1)) : 1;
  let parsed = 0;
  const progress = Array.from({ length: count }, () => ({ done: 0, total: 0 }));
  const report = () => {
    const done = progress.reduce((sum, p) => sum + p.done, 0);
    const total = progress.reduce((sum, p) => sum + p.total, 0);
    options.onProgress?.(done, total);
  };
  try {
    const jobs = Array.from({ length: count }, (_, index) => ({
      known,
      maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
      shard: { index, count },
      ...(only ? { only } : {}),
    }));
    const replies = await workers.run(jobs, (shard, reply) => {
      switch (reply.type) {
        case "planned":
          progress[shard] = { done: 0, total: reply.total };
          report();
          break;
        case "progress":
          progress[shard] = { done: reply.done, total: reply.total };
          report();
          break;
        case "file":
          options.store.putFile(reply.file, reply.grammar, reply.symbols, reply.chunks);
          parsed++;
          break;
        case "touched":
          options.store.touchFile(reply.file);
          break;
        default: {
          const never: never = reply;
          throw new Error(`Unexpected message ${JSON.stringify(never)}`);
        }
      }
    }, options.signal);
    for (const p of progress) p.done = p.total;
    report();
    const summary = {
      seen: replies.flatMap((r) => r.seen),
      skipped: replies.reduce((sum, r) => sum + r.skipped, 0),
      failures: replies.flatMap((r) => r.failures),
      partial: replies[0]?.partial ?? false,
    };
    const seen = new Set(summary.seen);
    const candidates = summary.partial ? options.only ?? [] : [...fingerprints.keys()];
    const gone = candidates.filter((path) => fingerprints.has(path) && !seen.has(path));
    options.store.removeFiles(gone);
    return {
      files: summary.seen.length,
      parsed,
      removed: gone.length,
      skipped: summary.skipped,
      failures: summary.failures,
      elapsedMs: performance.now() - started,
    };
  } finally {
    // The session keeps one worker for the next update; a run of its own keeps none.
    if (options.workers) workers.trim(1);
    else workers.close();
  }
}
