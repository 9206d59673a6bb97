// A file system watcher over the workspace for checkpoints of commands: what changed while a
// command ran is the set of paths the watcher reported between the command's start and its
// end, so no scan of the tree is needed per command. It runs in a worker
// (change_watcher_worker.ts); a flush returns every path changed since the last one, with
// "overflow" when the watcher lost track (then the caller scans the tree instead).

import { join } from "../platform/paths.ts";
import { ensurePrivateDir } from "../config/folders.ts";
import type { WatcherReply, WatcherRequest } from "./change_watcher_worker.ts";
import { ownWorkerUrl } from "../platform/own_modules.ts";

/** How long a flush may wait for the watcher before the caller scans instead. */
const FLUSH_TIMEOUT_MS = 5_000;

/** What a flush found. */
export interface WatchedChanges {
  /** Absolute paths reported since the last flush (files and folders). */
  paths: string[];
  /** The watcher may have missed changes (a queue overflow, an error, a slow flush). */
  overflow: boolean;
}

/** The watcher of one workspace's folders. */
export class ChangeWatcher {
  readonly #worker: Worker;
  readonly #sentinelDir: string;
  readonly #waiting = new Map<string, (changes: WatchedChanges) => void>();
  #failed: string | undefined;
  #count = 0;

  private constructor(worker: Worker, sentinelDir: string) {
    this.#worker = worker;
    this.#sentinelDir = sentinelDir;
  }

  /**
   * Starts watching (the worker walks the folders first: seconds on a very large tree).
   *
   * @param roots Folders to watch (absolute, real paths).
   * @param folder A private folder of harness's for the flush marks (created).
   * @returns The watcher once it watches.
   * @throws Error when the watcher cannot start (an inotify limit, a platform without one).
   */
  static start(roots: readonly string[], folder: string): Promise<ChangeWatcher> {
    ensurePrivateDir(folder);
    // The watcher reports real paths: the marks must be recognised under that name.
    const sentinelDir = Deno.realPathSync(folder);
    const worker = new Worker(ownWorkerUrl("src/checkpoints/change_watcher_worker.ts"), {
      type: "module",
    });
    const watcher = new ChangeWatcher(worker, sentinelDir);
    return new Promise((resolve, reject) => {
      // No watcher (an inotify limit reached): nothing of it stays behind.
      const fail = (reason: string) => {
        watcher.close();
        reject(new Error(reason));
      };
      worker.onmessage = (message: MessageEvent<WatcherReply>) => {
        const reply = message.data;
        if (reply.type === "ready") {
          worker.onmessage = (next: MessageEvent<WatcherReply>) => watcher.#receive(next.data);
          resolve(watcher);
        } else if (reply.type === "failed") {
          fail(reply.reason);
        }
      };
      worker.onerror = (event) => {
        event.preventDefault();
        fail(event.message);
      };
      const request: WatcherRequest = { type: "watch", roots: [...roots], sentinelDir };
      worker.postMessage(request);
    });
  }

  #receive(reply: WatcherReply): void {
    if (reply.type === "flushed") {
      this.#waiting.get(reply.token)?.({ paths: reply.paths, overflow: reply.overflow });
      this.#waiting.delete(reply.token);
    } else if (reply.type === "failed") {
      this.#failed = reply.reason;
      for (const done of this.#waiting.values()) done({ paths: [], overflow: true });
      this.#waiting.clear();
    }
  }

  /** Why the watcher stopped working, if it did. */
  get failed(): string | undefined {
    return this.#failed;
  }

  /**
   * Every path changed since the last flush: the worker marks this moment in the sentinel
   * folder and answers when the watcher reports the mark, after every earlier change.
   *
   * @returns The paths, or overflow when the watcher cannot say.
   */
  flush(): Promise<WatchedChanges> {
    if (this.#failed !== undefined) return Promise.resolve({ paths: [], overflow: true });
    const token = `flush-${++this.#count}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(token);
        resolve({ paths: [], overflow: true });
      }, FLUSH_TIMEOUT_MS);
      this.#waiting.set(token, (changes) => {
        clearTimeout(timer);
        resolve(changes);
      });
      const request: WatcherRequest = { type: "flush", token };
      this.#worker.postMessage(request);
    });
  }

  /** Stops watching and removes the sentinel folder. */
  close(): void {
    this.#worker.terminate();
    for (const done of this.#waiting.values()) done({ paths: [], overflow: true });
    this.#waiting.clear();
    try {
      Deno.removeSync(this.#sentinelDir, { recursive: true });
    } catch { /* already gone */ }
  }
}

/** Whether this platform's watcher reports the events of all its folders in one order. */
export function watcherOrdersEvents(): boolean {
  return Deno.build.os === "linux" || Deno.build.os === "darwin";
}

/** The sentinel folder of an owner in a shadow repository's git folder. */
export function sentinelFolder(gitDir: string, owner: string): string {
  return join(gitDir, `watch-${owner}`);
}
