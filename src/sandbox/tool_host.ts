// The outer sandbox: runs every tool in a Web Worker whose `deno.permissions` are the user's
// grants narrowed by what the tool declares. The tool list loads in the background (from the
// schema cache, else a loader worker), so the REPL shows its prompt first; `ready()` resolves
// once it is known. One worker serves all tools with identical effective permissions and
// imports their plugins on its first call; a worker that hangs, is aborted or crashes is
// terminated and replaced on the next call. Implements the loop's ToolRunner seam.

import type { AgentError, Result } from "../errors.ts";
import { err, ok } from "../errors.ts";
import type { PluginFile } from "../plugins/load_plugins.ts";
import type { ToolInfo, ToolRun, ToolRunner } from "../tools/tool_runner.ts";
import {
  type CallEnd,
  callResult,
  CANCELLED_BEFORE_START,
  replyEnd,
  replyOrStop,
  stoppedEnd,
  within,
} from "./call_end.ts";
import type { PreviewResult } from "../tools/file_change.ts";
import { loadToolCatalog, type ToolCatalog, type ToolGroup } from "./tool_catalog.ts";
import {
  commandSandboxOf,
  type SandboxOptions,
  type SandboxWorker,
  startSandbox,
} from "./sandbox_worker.ts";
import { spawnCommand } from "./command_sandbox.ts";
import { trackCommandGroup } from "./command_sandbox_groups.ts";
import { GroupChild } from "./group_child.ts";
import { toolOutputsDir } from "../config/folders.ts";
import { EXTERNAL_SEARCH_TOOLS, SearchService } from "./search_service.ts";
import { splitAllowList, splitChanged } from "./allow_list_split.ts";
import { ownField } from "../platform/json_values.ts";
import { JobTable } from "../jobs/job_table.ts";
import { JOB_TOOLS, type JobSummary } from "../jobs/job_control.ts";
import { openJobPort } from "../jobs/job_service.ts";
import { noteMovedEntries } from "./moved_entries.ts";
import { withSessionReads } from "../gate/session_reads.ts";
import { type EffectivePermissions, withReadFolders } from "./effective_permissions.ts";

/** Options of {@linkcode openToolHost} and {@linkcode createToolHost}. */
export interface ToolHostOptions extends SandboxOptions {
  /** Plugin files in discovery order (see src/plugins/load_plugins.ts). */
  pluginFiles: PluginFile[];
  /** Schema cache file (see src/plugins/schema_cache.ts); without it every plugin is imported. */
  schemaCacheFile?: string;
  /** Project trust store (default: trustStoreFile() of src/config/trust_store.ts). */
  trustStoreFile?: string;
  /** Per-tool timeout overrides in milliseconds, by tool name. */
  timeouts?: Record<string, number>;
  /** Hard cap on a tool's output in bytes (default 1 MiB). */
  maxOutputSize?: number;
  /** How long an aborted or timed-out tool may take to stop before its worker is killed (default 1000). */
  abortGraceMs?: number;
  /** Time allowed to import one plugin file (default 10000). */
  importTimeoutMs?: number;
  /**
   * One worker per tool instead of one per group of tools with the same permissions: a
   * one-shot call (`harness tool`) then imports only the plugin it calls.
   */
  workerPerTool?: boolean;
  /** false: grep_search and glob never run ripgrep or fd (tests, benchmarks). */
  externalSearch?: boolean;
  /** A command run without timeout_ms moves to the background after this long [60000]. */
  backgroundAfterMs?: number;
  /** Told when a background job ends or starts to wait for input. */
  onJobChange?(job: JobSummary): void;
}

const DEFAULT_TIMEOUT_MS = 120_000;
/** How long a preview (reading one file, working out the edit) may take. */
const PREVIEW_TIMEOUT_MS = 10_000;

/** What a call is run with: the user's abort, the conversation's state, where output goes. */
type RunOptions = Parameters<ToolRunner["run"]>[2];

/** Runs tools in sandboxed Workers. Create it with {@linkcode openToolHost}. */
export class ToolHost implements ToolRunner {
  readonly #options: ToolHostOptions;
  readonly #loading: Promise<ToolCatalog>;
  #catalog: ToolCatalog | undefined;
  #tools: readonly ToolInfo[] = [];
  readonly #groupOf = new Map<string, ToolGroup>();
  /** The groups workers are started for (the catalog's, or one per tool). */
  #groups: ToolGroup[] = [];
  /** ripgrep and fd for the built-in search tools. */
  readonly #search: SearchService;
  /** The folders each group's worker had its read list split around, and their times. */
  readonly #split = new Map<ToolGroup, ReadonlyMap<string, number | undefined>>();
  /** How many of the gate's session folders (a loaded skill's) each group's worker reads. */
  readonly #reads = new Map<ToolGroup, number>();
  #closed = false;
  #nextId = 1;
  /** The workspace's jobs: what run_command starts, on this thread (src/jobs/). */
  readonly jobs: JobTable;

  constructor(options: ToolHostOptions) {
    this.#options = options;
    this.jobs = openJobs(options);
    this.#search = new SearchService({
      grants: options.grants,
      workspace: options.workspace,
      ...(options.commandSandbox ? { commandSandbox: options.commandSandbox } : {}),
    });
    this.#loading = loadToolCatalog(options).then((catalog) => {
      this.#catalog = catalog;
      this.#tools = catalog.tools;
      this.#groups = options.workerPerTool
        ? catalog.groups.flatMap((group) =>
          group.plugins.map((plugin) => ({ ...group, plugins: [plugin] }))
        )
        : catalog.groups;
      for (const group of this.#groups) {
        for (const plugin of group.plugins) this.#groupOf.set(plugin.name, group);
      }
      return catalog;
    });
  }

  /** Resolves when the tool list is known (plugins listed from the cache or imported). */
  async ready(): Promise<void> {
    await this.#loading;
  }

  /** Broken and duplicate plugins found while listing (after `ready`). */
  async loadErrors(): Promise<AgentError[]> {
    return (await this.#loading).errors;
  }

  /** Tools loaded, builtin first, in discovery order; empty until `ready` resolves. */
  list(): readonly ToolInfo[] {
    return this.#tools;
  }

  /**
   * Starts the worker of the largest tool group in the background, so the first call does
   * not wait for it. Its plugins are still imported on that first call.
   */
  async warmUp(): Promise<void> {
    await this.#loading;
    const largest = [...this.#groups].sort((a, b) => b.plugins.length - a.plugins.length)[0];
    if (largest && !this.#closed) await this.#worker(largest).catch(() => undefined);
  }

  #unknown(name: string): string {
    const names = this.#tools.map((t) => t.name).join(", ") || "none";
    return `Unknown tool "${name}": available tools are ${names}`;
  }

  /**
   * The group's worker for a caller about to send it a request. It is reserved until the
   * caller's task ends, so #refreshSplit (another call changed a split folder) does not kill
   * it between being handed out and the request (which then keeps it busy).
   */
  #worker(group: ToolGroup): Promise<SandboxWorker> {
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
  #refreshSplit(): void {
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

  /** Whether a group holds only built-in tools. */
  #builtin(group: ToolGroup): boolean {
    return group.plugins.every((plugin) =>
      this.#tools.some((tool) => tool.name === plugin.name && tool.origin === "builtin")
    );
  }

  /**
   * Whether an idle worker's read list (split around --deny-read paths) no longer lists what
   * its folders hold: a file made since would be refused. A busy one is kept for now.
   */
  #outdated(group: ToolGroup, worker: SandboxWorker): boolean {
    if (worker.busy) return false;
    // A skill loaded since: the folder it made readable is not in this worker's permissions.
    const reads = this.#reads.get(group);
    if (reads !== undefined && reads !== this.#sessionReads(group).length) return true;
    const split = this.#split.get(group);
    return split !== undefined && split.size > 0 && splitChanged(split);
  }

  /**
   * The gate's session folders (a loaded skill's, read-only) a group's worker may read: those
   * of harness's own tools that read files (they resolve every path they open, so a link in
   * the folder cannot carry them out of it). The command sandbox gets the same list.
   */
  #sessionReads(group: ToolGroup): readonly string[] {
    const reads = this.#options.gate?.sessionReads() ?? [];
    if (reads.length === 0 || !this.#builtin(group)) return [];
    const declares = group.plugins.some((plugin) =>
      this.#tools.find((tool) => tool.name === plugin.name)?.permissions?.read !== undefined
    );
    return declares ? reads : [];
  }

  /** A group's effective permissions with its session folders added to the read list. */
  #effective(group: ToolGroup): EffectivePermissions {
    return withReadFolders(group.effective, this.#sessionReads(group));
  }

  /** Starts a fresh worker unless another call already replaced `stale`. */
  #restart(group: ToolGroup, stale: Promise<SandboxWorker> | undefined): Promise<SandboxWorker> {
    if (group.worker !== stale) return this.#worker(group);
    group.worker = this.#startWorker(group);
    return group.worker;
  }

  async #startWorker(group: ToolGroup): Promise<SandboxWorker> {
    const effective = this.#effective(group);
    const { guard } = effective;
    const readRoots = this.#sessionReads(group);
    this.#reads.set(group, readRoots.length);
    // For plugin code, Deno itself refuses --deny-read paths inside the grant, node:fs
    // included. Built-in tools keep the whole folders (they list the workspace itself): their
    // node:fs reads ask the deny guard first (platform/read_check.ts).
    // harness's data and config folders are left out the same way (the gate hides them even
    // under -R), but for what they keep visible.
    const { permissions, split } = this.#builtin(group)
      ? { permissions: effective.permissions, split: new Map() }
      : splitAllowList(effective, this.#options.gate?.rules.hidden ?? []);
    this.#split.set(group, split);
    const sandbox = await startSandbox({
      permissions,
      guard,
      plugins: group.plugins,
      options: this.#options,
      mode: "serve",
      name: `harness-tools-${group.plugins.map((p) => p.name).join("+").slice(0, 80)}`,
      ...(group.config ? { toolConfig: group.config } : {}),
      ...(readRoots.length > 0 ? { readRoots: [...readRoots] } : {}),
    });
    sandbox.onImported = (message) => void this.#catalog?.remember(message, group);
    await sandbox.loaded;
    return sandbox;
  }

  /** Checks arguments with the tool's zod schema inside its sandbox; issues are plain words. */
  async validate(name: string, args: unknown): Promise<Result<unknown, string[]>> {
    await this.ready();
    const group = this.#groupOf.get(name);
    if (!group) return err([this.#unknown(name)]);
    const worker = await this.#worker(group).catch((error: unknown) => String(error));
    if (typeof worker === "string") {
      return err([`Cannot start the sandbox of "${name}": ${worker}`]);
    }
    const reply = await worker.request({ type: "validate", id: this.#nextId++, name, args });
    if (reply.type === "validated") return reply.ok ? ok(reply.value) : err(reply.issues);
    const reason = reply.type === "lost" ? reply.reason : "unexpected reply";
    return err([`Cannot check the arguments of "${name}": ${reason}`]);
  }

  /**
   * What a validated call of a file-changing tool would change, computed by the tool's
   * preview in its own sandbox (the grants its `run` has). Undefined for a tool without one.
   *
   * @param name The tool.
   * @param args The validated arguments.
   * @param state The conversation state (copied: a preview changes nothing).
   * @returns The change, or why there is none, or undefined.
   */
  async preview(
    name: string,
    args: unknown,
    state: Record<string, unknown> = {},
  ): Promise<PreviewResult | undefined> {
    await this.ready();
    const group = this.#groupOf.get(name);
    if (!group) return undefined;
    const worker = await this.#worker(group).catch((error: unknown) => String(error));
    if (typeof worker === "string") return { error: `cannot start its sandbox: ${worker}` };
    const id = this.#nextId++;
    const reply = await within(
      worker.request({ type: "preview", id, name, args, state }),
      PREVIEW_TIMEOUT_MS,
    );
    if (reply === undefined) {
      // A preview that hangs blocks its worker as a hung run would.
      worker.recycle("the preview did not finish");
      return { error: `the preview did not finish within ${PREVIEW_TIMEOUT_MS / 1000} s` };
    }
    if (reply.type === "previewed") {
      if (reply.change) return { change: reply.change };
      return reply.error === undefined ? undefined : { error: reply.error };
    }
    if (reply.type === "failed") return { error: reply.message };
    return { error: reply.type === "lost" ? reply.reason : "unexpected reply" };
  }

  /**
   * Runs a validated call (the value `validate` returned) in the tool's sandbox. Never throws
   * for tool failures: timeouts, aborts, crashes and thrown errors become results.
   */
  async run(name: string, args: unknown, options: RunOptions): Promise<ToolRun> {
    const started = performance.now();
    const end = await this.#call(name, args, options);
    // A call may have made files beside a --deny-read path: replace the split workers now,
    // while the model thinks, rather than when they are next called.
    this.#refreshSplit();
    const run = await callResult(name, end, {
      started,
      state: options.state,
      limits: this.#options,
    });
    // A command may have moved a denied or protected entry: the result says so (issue 38).
    return noteMovedEntries(run, this.#options.gate);
  }

  /** Finds the tool's worker and runs the call on it; every way it can end is a CallEnd. */
  async #call(name: string, args: unknown, options: RunOptions): Promise<CallEnd> {
    await this.ready();
    const group = this.#groupOf.get(name);
    const info = this.#tools.find((t) => t.name === name);
    if (!group || !info) return { errorType: "validation_failed", message: this.#unknown(name) };
    if (options.signal?.aborted) return CANCELLED_BEFORE_START;
    const worker = await this.#worker(group).catch((error: unknown) => String(error));
    if (typeof worker === "string") {
      return {
        errorType: "internal_error",
        message: `Cannot start the sandbox of "${name}": ${worker}`,
      };
    }
    if (options.signal?.aborted) return CANCELLED_BEFORE_START;
    return await this.#exchange(worker, { group, info, args }, options);
  }

  /** Sends the call to its worker and waits for the reply, the timeout or the user's abort. */
  async #exchange(
    worker: SandboxWorker,
    call: { group: ToolGroup; info: ToolInfo; args: unknown },
    options: RunOptions,
  ): Promise<CallEnd> {
    const { name } = call.info;
    const id = this.#nextId++;
    const timeoutMs = ownField(this.#options.timeouts ?? {}, name) ?? call.info.timeoutMs ??
      DEFAULT_TIMEOUT_MS;
    const search = this.#searchFor(call.group, call.info);
    const jobs = this.#jobsFor(call.info, options.jobOwner);
    const reply = worker.request(
      {
        type: "run",
        id,
        name,
        args: call.args,
        state: options.state,
        ...(search ? { search: search.port } : {}),
        ...(jobs ? { jobs: jobs.port } : {}),
      },
      options.onOutput,
    );
    void reply.finally(() => {
      search?.close();
      jobs?.close();
    });
    const first = await replyOrStop(reply, timeoutMs, options.signal);
    if (first !== "timeout" && first !== "cancelled") return replyEnd(name, first);
    // Let the tool see ctx.signal (run_command kills its process group), then make sure.
    worker.post({ type: "abort", id, reason: first });
    const late = await within(reply, this.#options.abortGraceMs ?? 1000);
    if (first === "timeout" || late === undefined) {
      worker.recycle(`the call was stopped (${first})`);
    }
    return stoppedEnd(name, { why: first, timeoutMs, late });
  }

  /** Only harness's own search tools may ask the host to run ripgrep or fd. */
  #searchFor(group: ToolGroup, info: ToolInfo): { port: MessagePort; close(): void } | undefined {
    const own = EXTERNAL_SEARCH_TOOLS.has(info.name) && info.origin === "builtin";
    return own && this.#options.externalSearch !== false
      ? this.#search.open(this.#effective(group))
      : undefined;
  }

  /**
   * Only harness's own run_command and job tools reach the jobs, those of the call's session;
   * only run_command starts one.
   */
  #jobsFor(info: ToolInfo, owner = ""): { port: MessagePort; close(): void } | undefined {
    if (info.origin !== "builtin" || !JOB_TOOLS.has(info.name)) return undefined;
    return openJobPort(this.jobs.scope(owner), {
      mayRun: info.name === "run_command",
      workspace: this.#options.workspace,
    });
  }

  /** One line for `/tools`: what grep_search and glob search with here. */
  searchNote(): Promise<string> {
    return this.#search.note();
  }

  /** Terminates every worker (after the tool list has loaded, so no loader is left behind). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#search.close();
    await this.jobs.close();
    await this.#loading.catch(() => undefined);
    for (const group of this.#groups) {
      const worker = group.worker;
      delete group.worker;
      const sandbox = await worker?.catch(() => undefined);
      sandbox?.kill("the tool host was closed");
    }
  }
}

/**
 * The jobs of a host: commands started on this (the host) thread in the command sandbox with
 * the user's grants, their process groups stopped when harness exits, logged beside the saved
 * outputs so read_file may page through them.
 */
function openJobs(options: ToolHostOptions): JobTable {
  return new JobTable({
    // A loaded skill's folder is readable for the session's commands too (read-only).
    spawn: async (request) =>
      new GroupChild(
        spawnCommand(
          await commandSandboxOf(options),
          withSessionReads(options.grants, options.gate?.sessionReads() ?? []),
          request,
          trackCommandGroup,
        ),
      ),
    logDir: toolOutputsDir(options.dataDir),
    backgroundAfterMs: options.backgroundAfterMs ?? 60_000,
    ...(options.onJobChange ? { onChange: options.onJobChange } : {}),
  });
}

/**
 * Returns a host at once and lists its tools in the background; await `ready()` before
 * relying on `list()`. Calls to `validate` and `run` wait for the list themselves.
 *
 * @example
 * ```ts
 * import { openToolHost } from "./tool_host.ts";
 * import { emptyGrants } from "./grants.ts";
 * const host = openToolHost({ grants: emptyGrants(), workspace: Deno.cwd(), dataDir: "/tmp", pluginFiles: [] });
 * await host.ready();
 * if (host.list().length !== 0) throw new Error();
 * await host.close();
 * ```
 */
export function openToolHost(options: ToolHostOptions): ToolHost {
  return new ToolHost(options);
}

/**
 * Opens a host and waits for its tool list. A broken or duplicate plugin is reported as
 * `plugin_invalid` and skipped (the first of a name wins: builtin, user, project, flag).
 *
 * @example
 * ```ts
 * import { createToolHost } from "./tool_host.ts";
 * import { emptyGrants } from "./grants.ts";
 * const { host, errors } = await createToolHost({
 *   grants: emptyGrants(), workspace: Deno.cwd(), dataDir: "/tmp", pluginFiles: [],
 * });
 * const run = await host.run("nope", {}, { state: {} });
 * if (errors.length !== 0 || run.result.error_type !== "validation_failed") throw new Error();
 * await host.close();
 * ```
 */
export async function createToolHost(
  options: ToolHostOptions,
): Promise<{ host: ToolHost; errors: AgentError[] }> {
  const host = openToolHost(options);
  return { host, errors: await host.loadErrors() };
}
