// The workers of a tool host's groups (tool_catalog.ts): each started on its group's first
// call, and replaced when it died (a hang, an abort, a crash), when a folder its read list
// was split around (--deny-read inside a grant) has changed, so a file made since is not
// refused, or when the file gate granted a folder it should read (a loaded skill's). tool_host.ts
// asks it for a group's worker before each request.

import type { Imported, SandboxOptions, SandboxWorker } from "./sandbox_worker.ts";
import { startSandbox } from "./sandbox_worker.ts";
import type { ToolGroup } from "./tool_catalog.ts";
import { splitAllowList, splitChanged } from "./allow_list_split.ts";
import { withReadFolders } from "../grants/effective_permissions.ts";

/** What the workers need of their host. */
export interface GroupWorkersHost {
  options: SandboxOptions;
  /** Whether a group holds only built-in tools (their read lists are not split). */
  builtin(group: ToolGroup): boolean;
  /** A worker imported its plugins (the host refreshes its schema cache). */
  imported(message: Imported, group: ToolGroup): void;
  /**
   * The gate's session folders (a loaded skill's, read-only) the group's worker reads and
   * `ctx.resolve` takes by absolute path; the list only grows.
   */
  readFolders(group: ToolGroup): readonly string[];
}

/** The groups' workers. */
export class GroupWorkers {
  readonly #host: GroupWorkersHost;
  /** The folders each group's worker had its read list split around, and their times. */
  readonly #split = new Map<ToolGroup, ReadonlyMap<string, number | undefined>>();
  /** How many session folders each group's worker was started with. */
  readonly #reads = new Map<ToolGroup, number>();
  #closed = false;

  constructor(host: GroupWorkersHost) {
    this.#host = host;
  }

  /**
   * The group's live worker, started or replaced as needed, for a caller about to send it a
   * request. It is reserved until the caller's task ends, so refreshSplit (another call
   * changed a split folder) does not kill it between being handed out and the request (which
   * then keeps it busy).
   */
  worker(group: ToolGroup): Promise<SandboxWorker> {
    const handOut = (worker: SandboxWorker) => {
      worker.reserve();
      return worker;
    };
    const pending = group.worker;
    if (!pending) return this.#restart(group, pending).then(handOut);
    return pending.then(
      (worker) => {
        if (!worker.dead && this.#outdated(group, worker)) {
          worker.kill("its read list has changed");
        }
        return worker.dead ? this.#restart(group, pending).then(handOut) : handOut(worker);
      },
      () => this.#restart(group, pending).then(handOut),
    );
  }

  /** Starts a fresh worker for each idle group whose split read list is out of date. */
  refreshSplit(): void {
    if (this.#closed) return;
    for (const group of this.#split.keys()) {
      const pending = group.worker;
      void pending?.then((worker) => {
        if (worker.dead || group.worker !== pending || !this.#outdated(group, worker)) return;
        worker.kill("its read list has changed");
        void this.#restart(group, pending).catch(() => undefined);
      }, () => undefined);
    }
  }

  /**
   * Whether an idle worker's read list (split around --deny-read paths) no longer lists what
   * its folders hold: a file made since would be refused. A busy one is kept for now.
   */
  #outdated(group: ToolGroup, worker: SandboxWorker): boolean {
    if (worker.busy) return false;
    // A skill loaded since: the folder the gate granted is not in this worker's permissions.
    const reads = this.#reads.get(group);
    if (reads !== undefined && reads !== this.#host.readFolders(group).length) return true;
    const split = this.#split.get(group);
    return split !== undefined && split.size > 0 && splitChanged(split);
  }

  /** Starts a fresh worker unless another call already replaced `stale`. */
  #restart(group: ToolGroup, stale: Promise<SandboxWorker> | undefined): Promise<SandboxWorker> {
    if (group.worker !== stale) return this.worker(group);
    group.worker = this.#start(group);
    return group.worker;
  }

  async #start(group: ToolGroup): Promise<SandboxWorker> {
    const readRoots = this.#host.readFolders(group);
    this.#reads.set(group, readRoots.length);
    const effective = withReadFolders(group.effective, readRoots);
    const { guard } = effective;
    // For plugin code, Deno itself refuses --deny-read paths inside the grant, node:fs
    // included. Built-in tools keep the whole folders (they list the workspace itself): their
    // node:fs reads ask the deny guard first (platform/read_check.ts).
    // harness's data and config folders are left out the same way (the gate hides them even
    // under -R), but for what they keep visible.
    const { permissions, split } = this.#host.builtin(group)
      ? { permissions: effective.permissions, split: new Map() }
      : splitAllowList(effective, this.#host.options.gate?.rules.hidden ?? []);
    this.#split.set(group, split);
    const sandbox = await startSandbox({
      permissions,
      guard,
      plugins: group.plugins,
      options: this.#host.options,
      mode: "serve",
      name: `harness-tools-${group.plugins.map((p) => p.name).join("+").slice(0, 80)}`,
      ...(group.config ? { toolConfig: group.config } : {}),
      ...(readRoots.length > 0 ? { readRoots: [...readRoots] } : {}),
    });
    sandbox.onImported = (message) => this.#host.imported(message, group);
    await sandbox.loaded;
    return sandbox;
  }

  /** Terminates the groups' workers; none is started or replaced afterwards. */
  async close(groups: readonly ToolGroup[]): Promise<void> {
    this.#closed = true;
    for (const group of groups) {
      const worker = group.worker;
      delete group.worker;
      const sandbox = await worker?.catch(() => undefined);
      sandbox?.kill("the tool host was closed");
    }
  }
}
