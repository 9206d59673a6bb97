// Brings a workspace's code graph up to date: starts the indexing worker under the user's
// read grant, feeds it what the store already knows, and writes what it finds. Used on first
// use and lazily by the code tools (changed files only), and by `harness index`.

import { effectivePermissions } from "../sandbox/effective_permissions.ts";
import type { Grants } from "../sandbox/grants.ts";
import { loadGrammarAssets } from "./grammar_assets.ts";
import type { GraphStore } from "./graph_store.ts";
import type { IndexReply, IndexRequest } from "./index_worker.ts";

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
  const { permissions, guard } = effectivePermissions(options.grants, { read: ["."] }, {
    workspace: options.workspace,
  });
  if (permissions.read === false) {
    throw new Error(
      `Cannot index "${options.workspace}": no read access; run harness with --allow-read=.`,
    );
  }
  const known: IndexRequest["known"] = {};
  const fingerprints = options.store.fingerprints();
  for (const [path, f] of fingerprints) known[path] = [f.size, f.mtimeMs, f.hash];
  const assets = await loadGrammarAssets();
  // One worker per core (at most four), each parsing its share of the walk's files.
  const count = options.only ? 1 : Math.max(1, Math.min(4, navigator.hardwareConcurrency ?? 1));
  const workers = Array.from(
    { length: count },
    () =>
      new Worker(new URL("./index_worker.ts", import.meta.url), {
        type: "module",
        name: "harness-indexer",
        deno: { permissions: { ...permissions, write: false, net: false, run: false, ffi: false } },
      }),
  );
  let parsed = 0;
  const progress = workers.map(() => ({ done: 0, total: 0 }));
  const report = () => {
    const done = progress.reduce((sum, p) => sum + p.done, 0);
    const total = progress.reduce((sum, p) => sum + p.total, 0);
    options.onProgress?.(done, total);
  };
  try {
    const replies = await Promise.all(
      workers.map((worker, index) =>
        new Promise<Extract<IndexReply, { type: "done" }>>((resolve, reject) => {
          const onAbort = () => reject(new Error("Indexing was cancelled"));
          options.signal?.addEventListener("abort", onAbort, { once: true });
          worker.onerror = (event) => {
            event.preventDefault();
            reject(new Error(`The indexing worker failed: ${event.message}`));
          };
          worker.onmessage = (event: MessageEvent<IndexReply>) => {
            const reply = event.data;
            switch (reply.type) {
              case "planned":
                progress[index] = { done: 0, total: reply.total };
                report();
                break;
              case "progress":
                progress[index] = { done: reply.done, total: reply.total };
                report();
                break;
              case "file":
                options.store.putFile(reply.file, reply.grammar, reply.symbols, reply.chunks);
                parsed++;
                break;
              case "touched":
                options.store.touchFile(reply.file);
                break;
              case "done":
                progress[index]!.done = progress[index]!.total;
                report();
                resolve(reply);
                break;
              case "failed":
                reject(new Error(`The indexing worker failed: ${reply.message}`));
                break;
              default: {
                const never: never = reply;
                reject(new Error(`Unexpected message ${JSON.stringify(never)}`));
              }
            }
          };
          const request: IndexRequest = {
            type: "index",
            workspace: options.workspace,
            known,
            assets,
            guard,
            maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
            shard: { index, count },
            ...(options.only ? { only: options.only } : {}),
          };
          worker.postMessage(request);
        })
      ),
    );
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
    for (const worker of workers) worker.terminate();
  }
}
