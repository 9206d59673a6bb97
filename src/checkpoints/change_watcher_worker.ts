// The worker behind change_watcher.ts: one file system watcher over the workspace's folders
// and a sentinel folder of harness's own, collecting the paths that change. Asked to flush, it
// writes a sentinel file and answers once the watcher reports it: the watcher reports events
// in the order they happened, so every change made before the flush has been collected then.
// Setting up the watcher walks the whole tree, which is why it runs here, off the main thread.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

import { join } from "node:path";

/** What the main thread sends. */
export type WatcherRequest =
  | { type: "watch"; roots: string[]; sentinelDir: string }
  | { type: "flush"; token: string };

/** What the worker answers. */
export type WatcherReply =
  | { type: "ready" }
  | { type: "failed"; reason: string }
  | { type: "flushed"; token: string; paths: string[]; overflow: boolean };

/** Paths collected before the set counts as overflowed (the caller then scans instead). */
const MAX_PATHS = 100_000;

let watcher: Deno.FsWatcher | undefined;
let sentinelDir = "";
const changed = new Set<string>();
let overflow = false;
const pending = new Set<string>();

function post(reply: WatcherReply): void {
  self.postMessage(reply);
}

async function watch(roots: string[], sentinels: string): Promise<void> {
  sentinelDir = sentinels;
  try {
    watcher = Deno.watchFs([...roots, sentinels], { recursive: true });
  } catch (error) {
    post({ type: "failed", reason: (error as Error).message });
    return;
  }
  post({ type: "ready" });
  try {
    for await (const event of watcher) {
      if (event.flag === "rescan") overflow = true;
      for (const path of event.paths) {
        if (path.startsWith(`${sentinelDir}/`) || path === sentinelDir) {
          const token = path.slice(sentinelDir.length + 1);
          if (pending.delete(token)) answer(token);
          continue;
        }
        if (changed.size >= MAX_PATHS) overflow = true;
        else changed.add(path);
      }
    }
  } catch (error) {
    overflow = true;
    post({ type: "failed", reason: (error as Error).message });
  }
}

function answer(token: string): void {
  post({ type: "flushed", token, paths: [...changed], overflow });
  changed.clear();
  overflow = false;
  try {
    Deno.removeSync(join(sentinelDir, token));
  } catch { /* already gone */ }
}

self.onmessage = (message: MessageEvent<WatcherRequest>) => {
  const request = message.data;
  if (request.type === "watch") {
    void watch(request.roots, request.sentinelDir);
  } else {
    pending.add(request.token);
    try {
      Deno.writeTextFileSync(join(sentinelDir, request.token), "");
    } catch (error) {
      pending.delete(request.token);
      post({ type: "failed", reason: (error as Error).message });
    }
  }
};
