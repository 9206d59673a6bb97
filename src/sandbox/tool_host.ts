// The outer sandbox: runs every tool in a Web Worker whose `deno.permissions` are the user's
// grants narrowed by what the tool declares. One worker serves all tools with identical
// effective permissions; workers start lazily, and a worker that hangs, is aborted or crashes
// is terminated and replaced on the next call. Implements the loop's ToolRunner seam.

import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type AgentError, err, ok, type Result } from "../errors.ts";
import { makeToolResult, type ToolErrorType, type ToolResult } from "../messages.ts";
import type { PluginFile, PluginOrigin } from "../plugins/load_plugins.ts";
import type { ToolInfo, ToolRun, ToolRunner } from "../tools/tool_runner.ts";
import { truncateToolResult } from "../tools/truncate_output.ts";
import {
  type EffectivePermissions,
  effectivePermissions,
  grantCovers,
  type Grants,
  type WorkerPermissions,
} from "./grants.ts";
import type { HostToWorker, PluginRef, WireToolInfo, WorkerToHost } from "./tool_worker.ts";

/** Options of {@linkcode createToolHost}. */
export interface ToolHostOptions {
  grants: Grants;
  /** Absolute workspace root. */
  workspace: string;
  /** The session's data folder (full outputs, tool files). */
  dataDir: string;
  /** Plugin files in discovery order (see src/plugins/load_plugins.ts). */
  pluginFiles: PluginFile[];
  /** Per-tool timeout overrides in milliseconds, by tool name. */
  timeouts?: Record<string, number>;
  /** Hard cap on a tool's output in bytes (default 1 MiB). */
  maxOutputSize?: number;
  /** Cap on what the model sees of one output, in characters (default 30000). */
  toolOutputLimit?: number;
  /** How long an aborted or timed-out tool may take to stop before its worker is killed (default 1000). */
  abortGraceMs?: number;
  /** Time allowed to import one plugin file (default 10000). */
  importTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const ORIGIN_RANK: Record<PluginOrigin, number> = { builtin: 0, user: 1, project: 2, flag: 3 };
const WORKER_URL = new URL("./tool_worker.ts", import.meta.url).href;

type Reply = WorkerToHost | { type: "lost"; reason: string };
type LoadMessage = Extract<HostToWorker, { type: "load" }>;
type Loaded = Extract<WorkerToHost, { type: "loaded" }>;

/** Local files a module imports statically (relative, absolute or file: specifiers), itself included. */
async function localImportGraph(path: string, seen = new Set<string>()): Promise<Set<string>> {
  if (seen.has(path)) return seen;
  let source: string;
  try {
    source = await Deno.readTextFile(path);
  } catch {
    return seen; // the import itself will report the problem
  }
  seen.add(path);
  const specifiers = source.matchAll(
    /(?:^|[;\s])(?:import|export)\s*(?:type\s)?[^'"`;]*?(?:from\s*)?["']([^"']+)["']/g,
  );
  for (const [, specifier] of specifiers) {
    if (!specifier) continue;
    let target: string | undefined;
    if (specifier.startsWith("file:")) target = fileURLToPath(specifier);
    else if (specifier.startsWith(".")) target = resolve(dirname(path), specifier);
    else if (isAbsolute(specifier)) target = specifier;
    if (target) await localImportGraph(target, seen);
  }
  return seen;
}

/** One Worker and its outstanding requests. */
class SandboxWorker {
  readonly worker: Worker;
  readonly loaded: Promise<Loaded | { type: "lost"; reason: string }>;
  readonly #pending = new Map<number, (reply: Reply) => void>();
  #settleLoad: (reply: Loaded | { type: "lost"; reason: string }) => void = () => {};
  dead = false;

  constructor(permissions: WorkerPermissions, load: LoadMessage, name: string) {
    this.loaded = new Promise((settle) => (this.#settleLoad = settle));
    this.worker = new Worker(WORKER_URL, { type: "module", name, deno: { permissions } });
    this.worker.onmessage = (event: MessageEvent<WorkerToHost>) => this.#receive(event.data);
    this.worker.onerror = (event: ErrorEvent) => {
      event.preventDefault(); // an uncaught error in a worker must not end the harness
      this.kill(`the tool's worker crashed: ${event.message}`);
    };
    this.worker.onmessageerror = () =>
      this.kill("a message from the tool's worker could not be read");
    this.worker.postMessage(load);
  }

  #receive(message: WorkerToHost): void {
    switch (message.type) {
      case "loaded":
        this.#settleLoad(message);
        return;
      case "crashed":
        this.kill(message.reason);
        return;
      case "validated":
      case "done":
      case "failed": {
        const settle = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        settle?.(message);
        return;
      }
      default: {
        const never: never = message;
        throw new Error(`unknown worker message ${JSON.stringify(never)}`);
      }
    }
  }

  request(message: Extract<HostToWorker, { id: number }>): Promise<Reply> {
    if (this.dead) {
      return Promise.resolve({ type: "lost", reason: "the tool's worker has stopped" });
    }
    return new Promise((settle) => {
      this.#pending.set(message.id, settle);
      this.worker.postMessage(message);
    });
  }

  post(message: HostToWorker): void {
    if (!this.dead) this.worker.postMessage(message);
  }

  /** Terminates the worker; every outstanding request is answered with `lost`. */
  kill(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.worker.terminate();
    this.#settleLoad({ type: "lost", reason });
    for (const settle of this.#pending.values()) settle({ type: "lost", reason });
    this.#pending.clear();
  }
}

interface ToolGroup {
  key: string;
  effective: EffectivePermissions;
  plugins: PluginRef[];
  worker?: Promise<SandboxWorker>;
  /** Why a tool of this group failed to load inside its own sandbox. */
  loadFailures: Map<string, string>;
}

/** Runs tools in sandboxed Workers. Create it with {@linkcode createToolHost}. */
export class ToolHost implements ToolRunner {
  readonly #options: ToolHostOptions;
  readonly #tools: ToolInfo[];
  readonly #groupOf = new Map<string, ToolGroup>();
  readonly #groups: ToolGroup[];
  #nextId = 1;

  constructor(options: ToolHostOptions, tools: ToolInfo[], groups: ToolGroup[]) {
    this.#options = options;
    this.#tools = tools;
    this.#groups = groups;
    for (const group of groups) {
      for (const plugin of group.plugins) this.#groupOf.set(plugin.name, group);
    }
  }

  /** Tools loaded, builtin first, in discovery order. */
  list(): readonly ToolInfo[] {
    return this.#tools;
  }

  #unknown(name: string): string {
    const names = this.#tools.map((t) => t.name).join(", ") || "none";
    return `Unknown tool "${name}": available tools are ${names}`;
  }

  #worker(group: ToolGroup): Promise<SandboxWorker> {
    const pending = group.worker;
    if (!pending) return this.#restart(group, pending);
    return pending.then(
      (worker) => worker.dead ? this.#restart(group, pending) : worker,
      () => this.#restart(group, pending),
    );
  }

  /** Starts a fresh worker unless another call already replaced `stale`. */
  #restart(group: ToolGroup, stale: Promise<SandboxWorker> | undefined): Promise<SandboxWorker> {
    if (group.worker !== stale) return this.#worker(group);
    group.worker = this.#startWorker(group);
    return group.worker;
  }

  async #startWorker(group: ToolGroup): Promise<SandboxWorker> {
    const { permissions, guard } = group.effective;
    const sandbox = await startSandbox({
      permissions,
      guard,
      plugins: group.plugins,
      options: this.#options,
      name: `harness-tools-${group.plugins.map((p) => p.name).join("+").slice(0, 80)}`,
    });
    const loaded = await sandbox.loaded;
    if (loaded.type === "loaded") {
      for (const failure of loaded.failures) {
        const plugin = group.plugins.find((p) => p.path === failure.path);
        if (plugin) group.loadFailures.set(plugin.name, failure.reason);
      }
    }
    return sandbox;
  }

  /** Checks arguments with the tool's zod schema inside its sandbox; issues are plain words. */
  async validate(name: string, args: unknown): Promise<Result<unknown, string[]>> {
    const group = this.#groupOf.get(name);
    if (!group) return err([this.#unknown(name)]);
    const worker = await this.#worker(group).catch((error: unknown) => String(error));
    if (typeof worker === "string") {
      return err([`Cannot start the sandbox of "${name}": ${worker}`]);
    }
    const loadFailure = group.loadFailures.get(name);
    if (loadFailure) return err([`Tool "${name}" cannot load inside its sandbox: ${loadFailure}`]);
    const reply = await worker.request({ type: "validate", id: this.#nextId++, name, args });
    if (reply.type === "validated") return reply.ok ? ok(reply.value) : err(reply.issues);
    const reason = reply.type === "lost" ? reply.reason : "unexpected reply";
    return err([`Cannot check the arguments of "${name}": ${reason}`]);
  }

  /**
   * Runs a validated call (the value `validate` returned) in the tool's sandbox. Never throws
   * for tool failures: timeouts, aborts, crashes and thrown errors become results.
   */
  async run(
    name: string,
    args: unknown,
    options: { signal?: AbortSignal; state: Record<string, unknown> },
  ): Promise<ToolRun> {
    const started = performance.now();
    const finish = async (
      reply: { data?: string; errorType?: ToolErrorType; message?: string },
      extra: { display?: string; final?: boolean; state?: Record<string, unknown> } = {},
    ): Promise<ToolRun> => {
      const result: ToolResult = makeToolResult({
        executionTimeMs: performance.now() - started,
        ...(reply.data === undefined ? {} : { data: reply.data }),
        ...(reply.errorType === undefined ? {} : { errorType: reply.errorType }),
        ...(reply.message === undefined ? {} : { errorMessage: reply.message }),
      });
      const truncated = await truncateToolResult(result, {
        dataDir: this.#options.dataDir,
        tool: name,
        ...(this.#options.maxOutputSize ? { maxOutputSize: this.#options.maxOutputSize } : {}),
        ...(this.#options.toolOutputLimit
          ? { toolOutputLimit: this.#options.toolOutputLimit }
          : {}),
      });
      return {
        result: truncated,
        state: extra.state ?? options.state,
        ...(extra.display === undefined ? {} : { display: extra.display }),
        ...(extra.final ? { final: true } : {}),
      };
    };
    const group = this.#groupOf.get(name);
    const info = this.#tools.find((t) => t.name === name);
    if (!group || !info) {
      return await finish({ errorType: "validation_failed", message: this.#unknown(name) });
    }
    if (options.signal?.aborted) {
      return await finish({ errorType: "cancelled", message: "Cancelled before it started" });
    }
    const worker = await this.#worker(group).catch((error: unknown) => String(error));
    if (typeof worker === "string") {
      return await finish({
        errorType: "internal_error",
        message: `Cannot start the sandbox of "${name}": ${worker}`,
      });
    }
    const loadFailure = group.loadFailures.get(name);
    if (loadFailure) {
      return await finish({
        errorType: "internal_error",
        message: `Tool "${name}" cannot load inside its sandbox: ${loadFailure}`,
      });
    }
    if (options.signal?.aborted) {
      return await finish({ errorType: "cancelled", message: "Cancelled before it started" });
    }
    const id = this.#nextId++;
    const timeoutMs = this.#options.timeouts?.[name] ?? info.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const reply = worker.request({ type: "run", id, name, args, state: options.state });
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<"timeout" | "cancelled">((settle) => {
      timer = setTimeout(() => settle("timeout"), timeoutMs);
      onAbort = () => settle("cancelled");
      options.signal?.addEventListener("abort", onAbort, { once: true });
    });
    const first = await Promise.race([reply, stop]);
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    if (first === "timeout" || first === "cancelled") {
      // Let the tool see ctx.signal (run_command kills its process group), then make sure.
      worker.post({ type: "abort", id, reason: first });
      const grace = this.#options.abortGraceMs ?? 1000;
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      const late = await Promise.race([
        reply,
        new Promise<null>((settle) => (graceTimer = setTimeout(() => settle(null), grace))),
      ]);
      clearTimeout(graceTimer);
      if (first === "timeout" || late === null) worker.kill(`the call was stopped (${first})`);
      const state = late && "state" in late && late.state ? { state: late.state } : {};
      return first === "timeout"
        ? await finish({
          errorType: "timeout",
          message: `Tool "${name}" did not finish within ${timeoutMs / 1000} s and was stopped: ` +
            "try a smaller request",
        }, state)
        : await finish({ errorType: "cancelled", message: "Cancelled by the user" }, state);
    }
    switch (first.type) {
      case "done":
        return await finish({ data: first.output }, {
          state: first.state,
          ...(first.display === undefined ? {} : { display: first.display }),
          ...(first.final ? { final: true } : {}),
        });
      case "failed":
        return await finish(
          { errorType: first.errorType, message: first.message },
          first.state ? { state: first.state } : {},
        );
      case "lost":
        return await finish({
          errorType: "internal_error",
          message: `Tool "${name}" crashed: ${first.reason}. Its sandbox was restarted`,
        });
      default:
        return await finish({
          errorType: "internal_error",
          message: `Unexpected reply "${first.type}"`,
        });
    }
  }

  /** Terminates every worker. */
  async close(): Promise<void> {
    for (const group of this.#groups) {
      const worker = group.worker;
      delete group.worker;
      const sandbox = await worker?.catch(() => undefined);
      sandbox?.kill("the tool host was closed");
    }
  }
}

async function startSandbox(
  config: {
    permissions: WorkerPermissions;
    guard: EffectivePermissions["guard"];
    plugins: PluginRef[];
    options: ToolHostOptions;
    name: string;
  },
): Promise<SandboxWorker> {
  const { permissions, options } = config;
  // Importing a plugin needs read access to its files; grant what the sandbox lacks and let
  // the worker revoke it once the plugins are loaded.
  const revokeRead: string[] = [];
  const granted = permissions.read === true ? undefined : permissions.read || [];
  if (granted) {
    for (const plugin of config.plugins) {
      for (const file of await localImportGraph(plugin.path)) {
        if (!grantCovers("read", granted, file) && !revokeRead.includes(file)) {
          revokeRead.push(file);
        }
      }
    }
  }
  const workerPermissions: WorkerPermissions = revokeRead.length === 0 ? permissions : {
    ...permissions,
    read: [...(granted ?? []), ...revokeRead],
  };
  return new SandboxWorker(workerPermissions, {
    type: "load",
    plugins: config.plugins,
    revokeRead,
    guard: config.guard,
    grants: options.grants,
    workspace: options.workspace,
    dataDir: options.dataDir,
    cwd: Deno.cwd(),
    importTimeoutMs: options.importTimeoutMs ?? 10_000,
  }, config.name);
}

/**
 * Loads the plugin files in a sandbox with no permissions, checks every definition, and
 * returns a host whose workers start on first use. A broken or duplicate plugin is reported
 * as `plugin_invalid` and skipped (the first of a name wins: builtin, user, project, flag).
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
  const files = [...options.pluginFiles].sort((a, b) =>
    ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin]
  );
  const refs = files.map((f): PluginRef => ({ url: f.url, path: f.path, name: f.name }));
  const none: WorkerPermissions = {
    read: false,
    write: false,
    net: false,
    run: false,
    env: false,
    sys: false,
    ffi: false,
    import: false,
  };
  const errors: AgentError[] = [];
  let loaded: Loaded = { type: "loaded", tools: [], failures: [] };
  if (refs.length > 0) {
    let loader: SandboxWorker;
    try {
      loader = await startSandbox({
        permissions: none,
        guard: {},
        plugins: refs,
        options,
        name: "harness-plugin-loader",
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      errors.push({
        kind: "plugin_invalid",
        file: files.map((f) => f.path).join(", "),
        reason: `cannot start a sandbox worker: ${reason}`,
      });
      return { host: new ToolHost(options, [], []), errors };
    }
    const budget = (options.importTimeoutMs ?? 10_000) + 20_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reply = await Promise.race([
      loader.loaded,
      new Promise<{ type: "lost"; reason: string }>((settle) =>
        timer = setTimeout(() => settle({ type: "lost", reason: "loading did not finish" }), budget)
      ),
    ]);
    clearTimeout(timer);
    loader.kill("plugins loaded");
    if (reply.type === "lost") {
      errors.push({
        kind: "plugin_invalid",
        file: files.map((f) => f.path).join(", "),
        reason: `${reply.reason}: a plugin may block while it is imported`,
      });
    } else loaded = reply;
  }
  const byPath = new Map<string, WireToolInfo>(loaded.tools.map((t) => [t.path, t]));
  const failures = new Map(loaded.failures.map((f) => [f.path, f.reason]));
  const tools: ToolInfo[] = [];
  const groups = new Map<string, ToolGroup>();
  const envNames = Object.keys(Deno.env.toObject());
  for (const file of files) {
    const failure = failures.get(file.path);
    const wire = byPath.get(file.path);
    if (failure !== undefined || !wire) {
      errors.push({
        kind: "plugin_invalid",
        file: file.path,
        reason: failure ?? "it was not loaded",
      });
      continue;
    }
    const first = tools.find((t) => t.name === wire.name);
    if (first) {
      errors.push({
        kind: "plugin_invalid",
        file: file.path,
        reason:
          `a tool named "${wire.name}" is already loaded from "${first.source}": rename or remove one of them`,
      });
      continue;
    }
    tools.push({
      name: wire.name,
      description: wire.description,
      risk: wire.risk,
      parameters: wire.parameters,
      source: file.path,
      origin: file.origin,
      ...(wire.permissions ? { permissions: wire.permissions } : {}),
      ...(wire.timeoutMs ? { timeoutMs: wire.timeoutMs } : {}),
    });
    const effective = effectivePermissions(options.grants, wire.permissions, {
      workspace: options.workspace,
      env: envNames,
    });
    const key = JSON.stringify(effective);
    const group: ToolGroup = groups.get(key) ??
      { key, effective, plugins: [], loadFailures: new Map() };
    group.plugins.push({
      url: file.url || pathToFileURL(file.path).href,
      path: file.path,
      name: file.name,
    });
    groups.set(key, group);
  }
  return { host: new ToolHost(options, tools, [...groups.values()]), errors };
}
