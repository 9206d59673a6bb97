// One sandbox Worker: started from the host thread with `deno: { permissions }`, told which
// plugins it holds (with read access to their folders until they are imported), then asked
// to validate and run calls by id. A serving worker that hangs or crashes is replaced by a
// fresh one (tens of milliseconds from the host thread); one that is killed answers every
// outstanding request with "lost", and the tool host replaces it.

import { type CommandSandbox } from "../commands/command_sandbox.ts";
import { probeCommandSandbox } from "../commands/command_sandbox_probe.ts";
import { ProcessHost } from "../processes/process_host.ts";
import type { EffectivePermissions, WorkerPermissions } from "../grants/effective_permissions.ts";
import type { Grants } from "../grants/grants.ts";
import type { ToolGrants } from "../grants/tool_grants.ts";
import { dirname } from "../../platform/paths.ts";
import { tracePhase } from "../../platform/startup_trace.ts";
import { fileURLToPath } from "../../platform/file_urls.ts";
import { localImports } from "../../platform/import_graph.ts";
import { harnessUrl, servedFromBundle, toolWorkerUrl } from "../../platform/own_modules.ts";
import { covers, grantCovers } from "../grants/permission_value.ts";
import { FileGate } from "../../gate/file_gate.ts";
import { type ConsoleRelay, STDERR_RELAY } from "./console_relay.ts";
import { gateRules } from "../../gate/protected_set.ts";
import { cacheDir, configDir, dataDir, toolOutputsDir } from "../../config/folders.ts";
import {
  type HostToWorker,
  type LoadMessage,
  transferOf,
  type WorkerToHost,
} from "./worker_protocol.ts";
import type { PluginRef } from "../../plugin_loader/plugin_definition.ts";

/** What every worker of one host shares. */
export interface SandboxOptions {
  grants: Grants;
  workspace: string;
  dataDir: string;
  importTimeoutMs?: number;
  /** Cap on what the model sees of one output, in characters (default 30000). */
  toolOutputLimit?: number;
  /** The start-up check of the command sandbox; probed on first use when left out. */
  commandSandbox?: Promise<CommandSandbox>;
  /** The run's file gate; left out, one is built from the grants and the command protection. */
  gate?: FileGate;
  /** Where tools' printed output goes (default: stderr, sanitised and capped). */
  consoleRelay?: ConsoleRelay;
  /** Built-in tools' own grants from the config (web_search's engine: grants/tool_grants.ts). */
  toolGrants?: ToolGrants;
  /**
   * Plan mode's plan folder (plan_mode_grants.ts), when it is outside the workspace: the file
   * tools take absolute paths inside it, and a tool that declares the workspace may write there
   * too (the grants then allow nothing else).
   */
  planFolder?: string;
  /** Why the grants are narrower than the user's (plan mode, a subagent), for refusals. */
  narrowing?: { planFolder?: string; narrowedFrom?: Grants };
}

const NO_COMMANDS: CommandSandbox = {
  mode: "required",
  confinement: { kind: "unused" },
  env: {},
};
const probed = new WeakMap<Grants, Promise<CommandSandbox>>();

/** The command sandbox of `options`, probing it (mode "auto") once per grants when not given. */
export function commandSandboxOf(options: SandboxOptions): Promise<CommandSandbox> {
  if (options.commandSandbox) return options.commandSandbox;
  let sandbox = probed.get(options.grants);
  if (!sandbox) {
    sandbox = probeCommandSandbox("auto", { grants: options.grants, env: Deno.env.toObject() });
    probed.set(options.grants, sandbox);
  }
  return sandbox;
}

/** The harness's own source folder: plugins may import its modules (define_tool.ts, ...). */
const HARNESS_SRC = fileURLToPath(harnessUrl("src/"));

export type Reply = WorkerToHost | { type: "lost"; reason: string };
export type Loaded = Extract<WorkerToHost, { type: "loaded" }>;
export type Imported = Extract<WorkerToHost, { type: "imported" }>;

/** One tool Worker and its outstanding requests; replaced by a fresh one when it is recycled. */
export class SandboxWorker {
  #worker: Worker;
  readonly loaded: Promise<Loaded | { type: "lost"; reason: string }>;
  readonly #pending = new Map<number, (reply: Reply) => void>();
  /** Callers handed this worker in the current task, about to send it a request. */
  readonly #reserved = new Set<symbol>();
  /** Where output a running request reports goes, by request id. */
  readonly #outputs = new Map<number, (text: string) => void>();
  /** The processes this worker's tools started (`ctx.spawn`), started by this thread. */
  readonly #processes: ProcessHost;
  /** The tool worker's Deno permissions: the tool's, never `run`. */
  readonly #permissions: WorkerPermissions;
  readonly #load: LoadMessage;
  readonly #name: string;
  /** The worker's module: the bundle's for its tools, or the source's. */
  readonly #url: string;
  #settleLoad: (reply: Loaded | { type: "lost"; reason: string }) => void = () => {};
  /** A serving worker that has answered "load" can be recycled instead of killed. */
  #recyclable = false;
  dead = false;
  /** Called when a "list" worker starts importing a plugin file. */
  onImporting: ((path: string) => void) | undefined;
  /** Called when a "serve" worker has imported its plugins (first request). */
  onImported: ((message: Imported) => void) | undefined;

  /** Where the tool's printed output goes: the terminal, sanitised and capped. */
  readonly #console: ConsoleRelay;

  constructor(
    permissions: WorkerPermissions,
    load: LoadMessage,
    name: string,
    relay: ConsoleRelay = STDERR_RELAY,
  ) {
    this.#console = relay;
    this.loaded = new Promise((settle) => (this.#settleLoad = settle));
    // Deno's `run` would let plugin code start anything outside the command sandbox: the
    // worker never gets it, and the host starts the processes its run grant allows.
    this.#processes = new ProcessHost({
      sandbox: load.commands,
      grants: load.grants,
      run: permissions.run,
    });
    this.#permissions = { ...permissions, run: false };
    this.#load = load;
    this.#name = name;
    this.#url = toolWorkerUrl(load.plugins.map((plugin) => plugin.path));
    void this.loaded.then((
      reply,
    ) => (this.#recyclable = reply.type === "loaded" && load.mode === "serve"));
    this.#worker = this.#start();
  }

  /**
   * Starts the tool worker from this (the host) thread. Deno checks the imports of a worker's
   * main module graph against its parent's permissions, and that graph is harness's own code
   * (tool_worker.ts and what it imports); plugins are imported later with computed URLs,
   * which Deno checks against the worker's own permissions
   * (tests/sandbox/workers/tool_host_plugin_escape_test.ts).
   */
  #start(): Worker {
    tracePhase("tool worker starting");
    const worker = new Worker(this.#url, {
      type: "module",
      name: this.#name,
      deno: { permissions: this.#permissions },
    });
    worker.onmessage = (event: MessageEvent<WorkerToHost>) => {
      if (worker === this.#worker) this.#receive(event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault(); // an uncaught error in a worker must not end the harness
      if (worker === this.#worker) this.recycle(`the tool's worker crashed: ${event.message}`);
    };
    worker.onmessageerror = () => {
      if (worker === this.#worker) {
        this.recycle("a message from the tool's worker could not be read");
      }
    };
    worker.postMessage(this.#load);
    // Its own channel to the host for `ctx.spawn`; the processes of the worker it replaces
    // are stopped.
    const port = this.#processes.connect();
    worker.postMessage({ type: "processes", port } satisfies HostToWorker, [port]);
    return worker;
  }

  #receive(message: WorkerToHost): void {
    switch (message.type) {
      case "loaded":
        tracePhase("tool worker loaded");
        this.#settleLoad(message);
        return;
      case "imported":
        this.onImported?.(message);
        return;
      case "crashed":
        this.recycle(message.reason);
        return;
      case "output":
        this.#outputs.get(message.id)?.(message.text);
        return;
      case "importing":
        this.onImporting?.(message.path);
        return;
      case "console":
        this.#console.relay(message.text);
        return;
      case "validated":
      case "previewed":
      case "done":
      case "failed": {
        // The call's console lines came before its answer: say what the cap dropped now.
        if (message.type !== "validated" && message.type !== "previewed") this.#console.flush();
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

  request(
    message: Extract<HostToWorker, { id: number }>,
    onOutput?: (text: string) => void,
  ): Promise<Reply> {
    if (this.dead) {
      return Promise.resolve({ type: "lost", reason: "the tool's worker has stopped" });
    }
    // The reservation this request was handed out under ends: the request keeps it busy.
    const first = this.#reserved.values().next();
    if (!first.done) this.#reserved.delete(first.value);
    return new Promise((settle) => {
      this.#pending.set(message.id, (reply) => {
        this.#outputs.delete(message.id);
        settle(reply);
      });
      if (onOutput) this.#outputs.set(message.id, onOutput);
      this.#worker.postMessage(message, transferOf(message));
    });
  }

  /** Whether a request is waiting for its answer, or one is about to be sent (reserve). */
  get busy(): boolean {
    return this.#pending.size > 0 || this.#reserved.size > 0;
  }

  /**
   * Counts the worker busy until its next request is sent, or the current task ends: it was
   * just handed to a caller that sends it a request before then (only promise callbacks run
   * in between).
   */
  reserve(): void {
    const token = Symbol("reserved");
    this.#reserved.add(token);
    setTimeout(() => this.#reserved.delete(token), 0);
  }

  post(message: HostToWorker): void {
    if (!this.dead) this.#worker.postMessage(message, transferOf(message));
  }

  /**
   * Replaces a serving tool worker (hung, stopped or crashed) with a fresh one; every
   * outstanding request is answered with `lost`. A worker that never finished loading is
   * killed instead.
   */
  recycle(reason: string): void {
    if (this.dead) return;
    if (!this.#recyclable) {
      this.kill(reason);
      return;
    }
    for (const settle of this.#pending.values()) settle({ type: "lost", reason });
    this.#pending.clear();
    this.#worker.terminate();
    this.#worker = this.#start();
  }

  /** Terminates the worker; every outstanding request is answered with `lost`. */
  kill(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.#worker.terminate();
    this.#processes.close();
    this.#settleLoad({ type: "lost", reason });
    for (const settle of this.#pending.values()) settle({ type: "lost", reason });
    this.#pending.clear();
  }
}

/**
 * The read grants a worker needs only to import `plugins`: each plugin's own folder, and the
 * harness modules its lexed import graph reaches. Nothing a comment or string names is
 * granted, and nothing outside those folders: a plugin importing any other file needs the
 * user's grants for it. A folder that holds one of the tool's grants is not added whole
 * (revoking it would revoke that grant); its graph's files are.
 */
async function importGrants(plugins: readonly PluginRef[], granted: string[]): Promise<string[]> {
  const extra = new Set<string>();
  const add = (path: string) => {
    if (!grantCovers("read", granted, path)) extra.add(path);
  };
  for (const plugin of plugins) {
    const folder = dirname(plugin.path);
    const graph = await localImports(plugin.path);
    const holdsGrant = granted.some((entry) => covers("read", folder, entry));
    if (holdsGrant) add(plugin.path);
    else add(folder);
    for (const file of graph.files) {
      if (covers("read", HARNESS_SRC, file)) add(file);
      else if (holdsGrant && covers("read", folder, file)) add(file);
    }
  }
  // A folder already added makes its files redundant.
  return [...extra].filter((path) =>
    ![...extra].some((other) => other !== path && covers("read", other, path))
  );
}

/**
 * The file gate a worker asks (as a view: Deno's own permissions check the grants): the
 * host's, or for a host started without one, one built from the command sandbox's protection
 * (tests and benchmarks). The protected set never depends on --allow-run.
 */
async function gateOf(options: SandboxOptions): Promise<FileGate> {
  if (options.gate) return options.gate;
  let gate = defaultGates.get(options);
  if (!gate) {
    const protection = (await commandSandboxOf(options)).protection;
    const env = Deno.env.toObject();
    gate = FileGate.open(gateRules({
      workspace: options.workspace,
      grants: options.grants,
      pluginFolders: protection?.folders ?? [],
      harness: { config: configDir(env), data: dataDir(env), cache: cacheDir(env) },
      outputsDir: options.dataDir,
      writableGit: protection?.writableGit ?? false,
    }));
    defaultGates.set(options, gate);
  }
  return gate;
}
const defaultGates = new WeakMap<SandboxOptions, FileGate>();

/** Starts a worker for `plugins`, granting read access to their folders until they are imported. */
export async function startSandbox(
  config: {
    permissions: WorkerPermissions;
    guard: EffectivePermissions["guard"];
    plugins: PluginRef[];
    options: SandboxOptions;
    mode: LoadMessage["mode"];
    name: string;
    /** Settings of the group's built-in tools, by tool name (`ctx.config`). */
    toolConfig?: LoadMessage["toolConfig"];
    /** Folders outside the workspace its tools may name (a loaded skill's; read-only). */
    readRoots?: string[];
  },
): Promise<SandboxWorker> {
  const { permissions, options } = config;
  // Importing a plugin needs read access to its files; grant what the sandbox lacks and let
  // the worker revoke it once the plugins are loaded. A built-in tool the bundle's worker
  // serves is not imported (unless pinned: the worker hashes its files first).
  const granted = permissions.read === true ? undefined : permissions.read || [];
  const imported = config.plugins.filter((plugin) =>
    plugin.pins !== undefined || !servedFromBundle(plugin.path)
  );
  const revokeRead = granted ? await importGrants(imported, granted) : [];
  // A tool that may read (the workspace) may also read the full outputs harness saved for
  // results it cut (truncate_output.ts), which those results name.
  const outputs = granted && granted.length > 0 ? [toolOutputsDir(options.dataDir)] : [];
  const workerPermissions: WorkerPermissions = revokeRead.length + outputs.length === 0
    ? permissions
    : { ...permissions, read: [...(granted ?? []), ...outputs, ...revokeRead] };
  const gate = (await gateOf(options)).view({ grantsByDeno: true });
  return new SandboxWorker(
    workerPermissions,
    {
      type: "load",
      mode: config.mode,
      plugins: config.plugins,
      revokeRead,
      guard: config.guard,
      gate,
      grants: options.grants,
      workspace: options.workspace,
      dataDir: options.dataDir,
      ...(options.planFolder ? { planFolder: options.planFolder } : {}),
      ...(options.narrowing ? { narrowing: options.narrowing } : {}),
      cwd: Deno.cwd(),
      importTimeoutMs: options.importTimeoutMs ?? 5_000,
      ...(options.toolOutputLimit ? { outputLimit: options.toolOutputLimit } : {}),
      ...(config.toolConfig ? { toolConfig: config.toolConfig } : {}),
      ...(config.readRoots ? { readRoots: config.readRoots } : {}),
      // A worker that may not start processes needs no start-up check.
      commands: permissions.run === false ? NO_COMMANDS : await commandSandboxOf(options),
    },
    config.name,
    options.consoleRelay,
  );
}
