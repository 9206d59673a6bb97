// Keeps one workspace's code graph up to date for a session: every update runs on the
// session's indexing workers (index_workers.ts), one at a time. A whole-workspace update runs
// before each code tool answers; a one-file update after a file tool touched a code file, and
// for the curator's outline, which joins the update after the call when it has not started.

import type { Grants } from "../sandbox/grants/grants.ts";
import type { GraphStore } from "./graph_store.ts";
import type { IndexWorkers } from "./index_workers.ts";
import type { IndexSummary } from "./index_workspace.ts";
import { grammarFor } from "./languages.ts";

/** The updates of one workspace's graph. */
export class IndexUpdates {
  #queue: Promise<unknown> = Promise.resolve();
  #workers: IndexWorkers | undefined;
  /** One-file updates waiting or running, by path: a second request may join the first. */
  #pending = new Map<string, { done: Promise<unknown>; started: boolean }>();
  #generation = 0;

  /**
   * @param options The workspace, the user's grants, and the store (opened on first use).
   */
  constructor(
    readonly options: { workspace: string; grants: Grants; store: () => Promise<GraphStore> },
  ) {}

  /**
   * Brings the whole workspace up to date (changed files only).
   *
   * @param signal Cancels the update.
   * @returns What the update did.
   */
  all(signal?: AbortSignal): Promise<IndexSummary> {
    return this.#serial((workers, store) =>
      this.#index(workers, store, { ...(signal ? { signal } : {}) })
    );
  }

  /**
   * Re-indexes one file (a workspace-relative path); a file no grammar parses costs nothing.
   * A request made while an earlier one for the same file waits to start joins it (that one
   * reads the file as it is by then); with `joinRunning`, so does one made while it runs (the
   * caller knows the file has not changed since: the curator, right after the read).
   *
   * @param path The workspace-relative path.
   * @param options joinRunning: join an update of this file that has already started.
   */
  file(path: string, options: { joinRunning?: boolean } = {}): Promise<unknown> {
    if (grammarFor(path) === undefined) return Promise.resolve();
    const pending = this.#pending.get(path);
    if (pending && (!pending.started || options.joinRunning)) return pending.done;
    const entry: { done: Promise<unknown>; started: boolean } = {
      done: Promise.resolve(),
      started: false,
    };
    entry.done = this.#serial((workers, store) => {
      entry.started = true;
      return this.#index(workers, store, { only: [path] });
    }).finally(() => {
      if (this.#pending.get(path) === entry) this.#pending.delete(path);
    });
    this.#pending.set(path, entry);
    return entry.done;
  }

  /** Bumped whenever an update parsed or removed a file (search_code reloads its chunks then). */
  get generation(): number {
    return this.#generation;
  }

  /** The pool's counters: workers started and jobs run (for tests and bench/). */
  get counts(): { started: number; jobs: number } {
    return { started: this.#workers?.started ?? 0, jobs: this.#workers?.jobs ?? 0 };
  }

  /** Stops the workers. */
  close(): void {
    this.#workers?.close();
    this.#workers = undefined;
  }

  async #index(
    workers: IndexWorkers,
    store: GraphStore,
    extra: { only?: string[]; signal?: AbortSignal },
  ): Promise<IndexSummary> {
    const { indexWorkspace } = await import("./index_workspace.ts");
    const { workspace, grants } = this.options;
    const summary = await indexWorkspace({ workspace, grants, store, workers, ...extra });
    if (summary.parsed + summary.removed > 0) this.#generation++;
    return summary;
  }

  /** Runs updates one at a time, with the session's workers and the store. */
  #serial<T>(work: (workers: IndexWorkers, store: GraphStore) => Promise<T>): Promise<T> {
    const run = async () => {
      const store = await this.options.store();
      if (!this.#workers) {
        const { IndexWorkers } = await import("./index_workers.ts");
        this.#workers = new IndexWorkers(this.options.workspace, this.options.grants);
      }
      return await work(this.#workers, store);
    };
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => {});
    return next;
  }
}
