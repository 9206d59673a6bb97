// The outer sandbox: runs every tool in a Web Worker whose `deno.permissions` are the user's
// grants narrowed by what the tool declares. The tool list loads in the background (from the
// schema cache, else a loader worker), so the REPL shows its prompt first; `ready()` resolves
// once it is known. One worker serves all tools with identical effective permissions and
// imports their plugins on its first call; a worker that hangs, is aborted or crashes is
// terminated and replaced on the next call. A source of the tool set (src/tools/tool_set.ts):
// it hands in one entry per plugin. What a call needs (the groups' workers, ripgrep and fd,
// the call's ports and its end) loads with the first call, warmUp or /tools: a -p run that
// calls no tool only lists them, from the cache.

import type { AgentError, Result } from "../../errors.ts";
import { err, ok } from "../../errors.ts";
import type {
  EntryCall,
  ToolEntry,
  ToolInfo,
  ToolRun,
  ToolSource,
} from "../../tools/tool_entry.ts";
import type { CallEnd } from "./call_end.ts";
import { loadCallMachinery, type Machinery } from "./call_machinery.ts";
import type { PreviewResult } from "../../tools/file_change.ts";
import type { FilePort } from "../../tools/file_port.ts";
import { loadToolCatalog, type ToolCatalog, type ToolGroup } from "./tool_catalog.ts";
import type { SandboxWorker } from "./sandbox_worker.ts";
import type { ToolHostOptions } from "./tool_host_options.ts";
import { spawnCommand } from "../commands/command_sandbox.ts";
import { trackCommandGroup } from "../commands/command_sandbox_groups.ts";
import { GroupChild } from "../commands/group_child.ts";
import { toolOutputsDir } from "../../config/folders.ts";
import { ownField } from "../../platform/json_values.ts";
import { JobTable } from "../../jobs/job_table.ts";
import { noteMovedEntries } from "./moved_entries.ts";
import { withSessionReads } from "../../gate/session_reads.ts";
import { withReadFolders } from "../grants/effective_permissions.ts";

const DEFAULT_TIMEOUT_MS = 120_000;
/** How long a preview (reading one file, working out the edit) may take. */
const PREVIEW_TIMEOUT_MS = 10_000;

/** What a call is run with: the user's abort, the conversation's state, where output goes. */
type RunOptions = EntryCall;

/** Runs tools in sandboxed Workers. Create it with {@linkcode openToolHost}. */
export class ToolHost implements ToolSource {
  readonly #options: ToolHostOptions;
  readonly #loading: Promise<ToolCatalog>;
  #catalog: ToolCatalog | undefined;
  #tools: readonly ToolInfo[] = [];
  #entries: readonly ToolEntry[] = [];
  readonly #groupOf = new Map<string, ToolGroup>();
  /** The groups workers are started for (the catalog's, or one per tool). */
  #groups: ToolGroup[] = [];
  /** The workers, search service and call code, once a call needed them. */
  #machinery: Promise<Machinery> | undefined;
  #closed = false;
  #nextId = 1;
  /** The workspace's jobs: what run_command starts, on this thread (src/jobs/). */
  readonly jobs: JobTable;

  /**
   * @param options The grants, plugins and limits.
   * @param catalog The tool list when another host listed it (a narrowed host's).
   */
  constructor(options: ToolHostOptions, catalog?: Promise<ToolCatalog>) {
    this.#options = options;
    this.jobs = openJobs(options);
    this.#loading = (catalog ?? loadToolCatalog(options)).then((catalog) => {
      this.#catalog = catalog;
      this.#tools = catalog.tools;
      this.#entries = catalog.tools.map((info) => this.#entry(info));
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

  /**
   * A host of the same plugins, pinned as this one listed them, under other grants with their
   * own gate and command sandbox (a subagent's, plan mode's): its workers are its own, built
   * from those grants, and it is closed apart from this one.
   *
   * @param narrowing The grants, gate, command sandbox and plan folder it runs under.
   * @returns The new host.
   */
  narrowed(
    narrowing: Pick<
      ToolHostOptions,
      "grants" | "gate" | "commandSandbox" | "planFolder" | "narrowing"
    >,
  ): ToolHost {
    const options: ToolHostOptions = { ...this.#options, ...narrowing };
    return new ToolHost(options, this.#loading.then((catalog) => catalog.narrowed(options)));
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

  /** One entry per tool loaded (the same array until the list changes); empty until `ready`. */
  entries(): readonly ToolEntry[] {
    return this.#entries;
  }

  #entry(info: ToolInfo): ToolEntry {
    const { name } = info;
    return {
      info,
      validate: (args) => this.validate(name, args),
      run: (args, call) => this.run(name, args, call),
      preview: (args, state, files) => this.preview(name, args, state, files),
    };
  }

  /** The workers, search service and call code, loaded (and made) on the first need. */
  #machine(): Promise<Machinery> {
    this.#machinery ??= loadCallMachinery(this.#options, {
      builtin: (group) => this.#builtin(group),
      imported: (message, group) => void this.#catalog?.remember(message, group),
      readFolders: (group) => this.#readFolders(group),
    });
    return this.#machinery;
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
  async #worker(group: ToolGroup): Promise<SandboxWorker> {
    return await (await this.#machine()).workers.worker(group);
  }

  /** The gate's session folders (a loaded skill's) the built-in read tools' workers read. */
  #readFolders(group: ToolGroup): readonly string[] {
    const reads = (name: string) => this.#tools.find((t) => t.name === name)?.permissions?.read;
    const readers = this.#builtin(group) && group.plugins.some((p) => reads(p.name));
    return readers ? this.#options.gate?.sessionReads() ?? [] : [];
  }

  /** Whether a group holds only built-in tools. */
  #builtin(group: ToolGroup): boolean {
    return group.plugins.every((plugin) =>
      this.#tools.some((tool) => tool.name === plugin.name && tool.origin === "builtin")
    );
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
   * @param files Where a built-in file tool reads (the editor's, under ACP).
   * @returns The change, or why there is none, or undefined.
   */
  async preview(
    name: string,
    args: unknown,
    state: Record<string, unknown> = {},
    files?: FilePort,
  ): Promise<PreviewResult | undefined> {
    await this.ready();
    const group = this.#groupOf.get(name);
    if (!group) return undefined;
    const worker = await this.#worker(group).catch((error: unknown) => String(error));
    if (typeof worker === "string") return { error: `cannot start its sandbox: ${worker}` };
    const id = this.#nextId++;
    const { ends, ports } = await this.#machine();
    const info = this.#tools.find((tool) => tool.name === name);
    const port = info && ports.filesPort(info, files, { changes: true });
    const portField = port ? { files: port.port } : {};
    const request = worker.request({ type: "preview", id, name, args, state, ...portField });
    void request.finally(() => port?.close());
    const reply = await ends.within(request, PREVIEW_TIMEOUT_MS);
    if (reply === undefined) {
      // A preview that hangs blocks its worker as a hung run would.
      worker.recycle("the preview did not finish");
      return { error: `the preview did not finish within ${PREVIEW_TIMEOUT_MS / 1000} s` };
    }
    return ends.previewOf(reply);
  }

  /**
   * Runs a validated call (the value `validate` returned) in the tool's sandbox. Never throws
   * for tool failures: timeouts, aborts, crashes and thrown errors become results.
   */
  async run(name: string, args: unknown, options: RunOptions): Promise<ToolRun> {
    const started = performance.now();
    const end = await this.#call(name, args, options);
    const { workers, ends } = await this.#machine();
    // A call may have made files beside a --deny-read path: replace the split workers now,
    // while the model thinks, rather than when they are next called.
    workers.refreshSplit();
    const run = await ends.callResult(name, end, {
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
    const { ends } = await this.#machine();
    if (options.signal?.aborted) return ends.CANCELLED_BEFORE_START;
    const worker = await this.#worker(group).catch((error: unknown) => String(error));
    if (typeof worker === "string") {
      return {
        errorType: "internal_error",
        message: `Cannot start the sandbox of "${name}": ${worker}`,
      };
    }
    if (options.signal?.aborted) return ends.CANCELLED_BEFORE_START;
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
    const { search, ends, ports: callPorts } = await this.#machine();
    const ports = callPorts.openCallPorts(
      { ...this.#options, search, jobs: this.jobs },
      {
        info: call.info,
        effective: withReadFolders(call.group.effective, this.#readFolders(call.group)),
        files: options.files,
        jobOwner: options.jobOwner,
      },
    );
    const reply = worker.request(
      { type: "run", id, name, args: call.args, state: options.state, ...ports.ports },
      options.onOutput,
    );
    void reply.finally(() => ports.close());
    const first = await ends.replyOrStop(reply, timeoutMs, options.signal);
    if (first !== "timeout" && first !== "cancelled") return ends.replyEnd(name, first);
    // Let the tool see ctx.signal (run_command kills its process group), then make sure.
    worker.post({ type: "abort", id, reason: first });
    const late = await ends.within(reply, this.#options.abortGraceMs ?? 1000);
    if (first === "timeout" || late === undefined) {
      worker.recycle(`the call was stopped (${first})`);
    }
    return ends.stoppedEnd(name, { why: first, timeoutMs, late });
  }

  /** One line for `/tools`: what grep_search and glob search with here. */
  async searchNote(): Promise<string> {
    return await (await this.#machine()).search.note();
  }

  /** Terminates every worker (after the tool list has loaded, so no loader is left behind). */
  async close(): Promise<void> {
    this.#closed = true;
    const machinery = await this.#machinery?.catch(() => undefined);
    machinery?.search.close();
    await this.jobs.close();
    await this.#loading.catch(() => undefined);
    await machinery?.workers.close(this.#groups);
  }
}

/**
 * The jobs of a host: commands started on this (the host) thread in the command sandbox with
 * the user's grants and the gate's session folders (read-only), their process groups stopped
 * when harness exits, logged beside the saved outputs so read_file may page through them.
 */
function openJobs(options: ToolHostOptions): JobTable {
  return new JobTable({
    spawn: async (request) =>
      new GroupChild(
        spawnCommand(
          await (await import("./sandbox_worker.ts")).commandSandboxOf(options),
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
 * import { emptyGrants } from "../grants/grants.ts";
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
 * import { emptyGrants } from "../grants/grants.ts";
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
