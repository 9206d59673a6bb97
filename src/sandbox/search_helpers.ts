// The search helpers of one tool group: Workers the host starts beside the group's tool
// worker so grep_search can use every core (src/tools/search/parallel_grep.ts). They are
// started from the host thread because Deno takes about half a second to start a Worker from
// inside another Worker, longer than most searches. Each gets the group's read grant and
// nothing else (no write, net, run, env, sys, ffi or import) and installs the group's deny
// guard before it serves, so it can read no more than the tool itself. They run only
// harness's own search code; a tool reaches them through the ports handed to one call.

import {
  type EffectivePermissions,
  noPermissions,
  type WorkerPermissions,
} from "./effective_permissions.ts";
import type { HelperInit, HelperPort } from "./search_helper_worker.ts";

const HELPER_URL = new URL("./search_helper_worker.ts", import.meta.url).href;

/** The tools handed helper ports. */
export const SEARCH_TOOLS: ReadonlySet<string> = new Set(["grep_search"]);

/** Helpers worth starting here: one per core beside the tool's own thread, at most three. */
export function helperCount(): number {
  const cores = typeof navigator === "undefined" ? 1 : navigator.hardwareConcurrency ?? 1;
  return Math.max(0, Math.min(3, cores - 1));
}

/** The helpers' permissions: the group's read grant only. */
export function helperPermissions(effective: EffectivePermissions): WorkerPermissions {
  return { ...noPermissions(), read: effective.permissions.read };
}

/** A group's helper Workers, started at once and kept until close(). */
export class SearchHelpers {
  readonly #workers: Worker[] = [];

  /**
   * @param effective The tool group's sandbox; helpers get its read grant and deny guard.
   * @param cwd The folder relative deny entries are resolved from (as in the tool worker).
   * @param count How many helpers (default helperCount()).
   */
  constructor(effective: EffectivePermissions, cwd: string, count = helperCount()) {
    if (effective.permissions.read === false) return;
    const init: HelperInit = { type: "init", guard: effective.guard, cwd };
    for (let i = 0; i < count; i++) {
      const worker = new Worker(HELPER_URL, {
        type: "module",
        name: `harness-search-helper-${i + 1}`,
        deno: { permissions: helperPermissions(effective) },
      });
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault(); // a helper's crash must not end the harness
        this.#drop(worker);
      };
      worker.postMessage(init);
      this.#workers.push(worker);
    }
  }

  #drop(worker: Worker): void {
    worker.terminate();
    const at = this.#workers.indexOf(worker);
    if (at !== -1) this.#workers.splice(at, 1);
  }

  /** How many helpers run. */
  get size(): number {
    return this.#workers.length;
  }

  /** Fresh ports for one call, one per helper; the helpers hold the other ends. */
  ports(): MessagePort[] {
    return this.#workers.map((worker) => {
      const channel = new MessageChannel();
      const message: HelperPort = { type: "port", port: channel.port1 };
      worker.postMessage(message, [channel.port1]);
      return channel.port2;
    });
  }

  /** Terminates the helpers. */
  close(): void {
    for (const worker of this.#workers) worker.terminate();
    this.#workers.length = 0;
  }
}
