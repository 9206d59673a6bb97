// The indexing workers of one workspace, kept between runs: each starts under the user's read
// grant and loads tree-sitter once (index_worker.ts), so refreshing one file costs a message,
// not a worker start and eleven grammar loads. A worker gets a grammar with the first run that
// may need it (a TypeScript file: TypeScript's), never all eleven for one file. code_tools.ts
// keeps one set for the session; `harness index` makes one for its run. A worker that fails or
// is cancelled is stopped and replaced on the next run.

import { effectivePermissions } from "../sandbox/grants/effective_permissions.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { GRAMMARS, loadGrammarAssets } from "./grammar_assets.ts";
import { grammarFor, type GrammarId } from "./languages.ts";
import { readRoots } from "../tools/search/read_roots.ts";
import type { IndexInit, IndexReply, IndexRequest } from "./index_worker.ts";
import { ownWorkerUrl } from "../platform/own_modules.ts";

/** One shard's request, without the id the pool gives it. */
export type IndexJob = Omit<IndexRequest, "type" | "id">;

/** The end of one shard's run. */
export type IndexDone = Extract<IndexReply, { type: "done" }>;

/** What a shard reports on the way (files, progress). */
export type IndexProgress = Exclude<IndexReply, { type: "done" | "failed" }>;

/** Workers that index one workspace under the user's read grant. */
export class IndexWorkers {
  /** Workers started over this pool's life (each loads tree-sitter once). */
  started = 0;
  /** Jobs run over this pool's life. */
  jobs = 0;
  #workers: Worker[] = [];
  /** The grammars each worker has been sent. */
  #sent = new WeakMap<Worker, Set<GrammarId>>();
  #nextId = 1;
  readonly #workspace: string;
  readonly #permissions: ReturnType<typeof effectivePermissions>["permissions"];
  readonly #guard: IndexInit["guard"];

  /**
   * @param workspace The workspace folder.
   * @param grants The user's grants; the workers get the read grant only.
   */
  constructor(workspace: string, grants: Grants) {
    const { permissions, guard } = effectivePermissions(grants, { read: ["."] }, { workspace });
    this.#workspace = workspace;
    this.#permissions = permissions;
    this.#guard = guard;
  }

  /** Whether the read grant covers the workspace at all. */
  get readable(): boolean {
    return this.#permissions.read !== false;
  }

  /** Workers running now. */
  get size(): number {
    return this.#workers.length;
  }

  /**
   * Runs one job per worker (the shards of one walk), starting workers as needed.
   *
   * @param jobs One job per shard.
   * @param onReply Receives each shard's files and progress, with the shard's index.
   * @param signal Cancels the run; the workers that were in it are stopped.
   * @returns Each shard's end.
   */
  async run(
    jobs: readonly IndexJob[],
    onReply: (shard: number, reply: IndexProgress) => void,
    signal?: AbortSignal,
  ): Promise<IndexDone[]> {
    const workers = await this.#ensure(jobs.length);
    return await Promise.all(
      jobs.map((job, shard) => this.#one(workers[shard]!, job, (r) => onReply(shard, r), signal)),
    );
  }

  /** Stops every worker but the first `keep`. */
  trim(keep: number): void {
    for (const worker of this.#workers.splice(keep)) worker.terminate();
  }

  /** Stops every worker. */
  close(): void {
    this.trim(0);
  }

  async #ensure(count: number): Promise<Worker[]> {
    while (this.#workers.length < count) {
      // Tree-sitter's runtime now; grammars with the runs that need them (#grammarsFor).
      const assets = await loadGrammarAssets([]);
      const worker = new Worker(ownWorkerUrl("src/code_index/index_worker.ts"), {
        type: "module",
        name: "harness-indexer",
        deno: {
          permissions: { ...this.#permissions, write: false, net: false, run: false, ffi: false },
        },
      });
      const init: IndexInit = {
        type: "init",
        workspace: this.#workspace,
        roots: readRoots(this.#workspace, this.#permissions.read ?? false),
        assets,
        guard: this.#guard,
      };
      worker.postMessage(init, [assets.runtime.buffer as ArrayBuffer]);
      this.#workers.push(worker);
      this.#sent.set(worker, new Set());
      this.started++;
    }
    return this.#workers.slice(0, count);
  }

  /** The grammars a job may need that its worker lacks, read now, moved (not copied) to it. */
  async #grammarsFor(worker: Worker, job: IndexJob): Promise<IndexRequest["grammars"]> {
    const sent = this.#sent.get(worker) ?? new Set<GrammarId>();
    const needed = job.only
      ? [...new Set(job.only.map(grammarFor).filter((g) => g !== undefined))]
      : GRAMMARS;
    const missing = needed.filter((g) => !sent.has(g));
    if (missing.length === 0) return undefined;
    const { grammars } = await loadGrammarAssets(missing, { runtime: false });
    for (const g of missing) sent.add(g);
    return grammars;
  }

  async #one(
    worker: Worker,
    job: IndexJob,
    onReply: (reply: IndexProgress) => void,
    signal?: AbortSignal,
  ): Promise<IndexDone> {
    const id = this.#nextId++;
    this.jobs++;
    const grammars = await this.#grammarsFor(worker, job);
    const moved = Object.values(grammars ?? {}).map((bytes) => bytes.buffer as ArrayBuffer);
    return await new Promise((resolve, reject) => {
      const settle = () => {
        signal?.removeEventListener("abort", onAbort);
        worker.onmessage = null;
        worker.onerror = null;
      };
      const broken = (error: Error) => {
        settle();
        this.#drop(worker);
        reject(error);
      };
      const onAbort = () => broken(new Error("Indexing was cancelled"));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      worker.onerror = (event) => {
        event.preventDefault();
        broken(new Error(`The indexing worker failed: ${event.message}`));
      };
      worker.onmessage = (event: MessageEvent<IndexReply>) => {
        const reply = event.data;
        if (reply.id !== id && reply.id !== 0) return;
        if (reply.type === "failed") {
          broken(new Error(`The indexing worker failed: ${reply.message}`));
        } else if (reply.type === "done") {
          settle();
          resolve(reply);
        } else {
          onReply(reply);
        }
      };
      const request: IndexRequest = {
        type: "index",
        id,
        ...job,
        ...(grammars ? { grammars } : {}),
      };
      worker.postMessage(request, moved);
    });
  }

  #drop(worker: Worker): void {
    worker.terminate();
    this.#workers = this.#workers.filter((w) => w !== worker);
  }
}
