// Entry of a sandbox Worker (started with `deno: { permissions }` from the host thread by
// sandbox_worker.ts). A "list" worker imports every plugin and reports the schemas; a "serve"
// worker imports its group's plugins on the first request (a project plugin only if its files
// still hash as the user trusted them), revokes the read grants it needed for that, then
// serves validate/run. All plugin code runs here, never on the main thread.

import type { ToolContext, ToolDefinition } from "../../tools/define_tool.ts";
import type { FileChange } from "../../tools/file_change.ts";
import { readText } from "../../tools/builtin/read_text_file.ts";
import { localFiles } from "../../tools/local_files.ts";
import { RemoteFiles } from "./file_channel.ts";
import { resolveWorkspacePath } from "../../tools/workspace_path.ts";
import { SearchClient } from "../../tools/search/search_client.ts";
import { JobClient } from "../../jobs/job_client.ts";
import { toolOutputsDir } from "../../config/folders.ts";
import { CommandLauncher } from "../commands/command_sandbox_launcher.ts";
import { assertMayWrite, installDenyGuard, replaceDenoMember } from "./deny_guard.ts";
import { classifyError, progressReporter, returnedReply } from "./worker_results.ts";
import { changedSincePinned } from "../../platform/import_graph.ts";
// Loaded with the worker, before its permissions apply: import_graph.ts imports the lexer on
// first use, and a dynamic import inside the sandbox would be checked against its grants.
import "es-module-lexer";
import {
  describeIssues,
  type LoadFailure,
  loadPlugin,
  type PluginRef,
  shown,
  wireInfo,
  type WireToolInfo,
} from "../../plugin_loader/plugin_definition.ts";
import { RemoteProcesses } from "../processes/remote_process.ts";
import type { HostToWorker, LoadMessage, WorkerToHost } from "./worker_protocol.ts";

export type { HostToWorker, WorkerToHost } from "./worker_protocol.ts";
export type { PluginRef, WireToolInfo } from "../../plugin_loader/plugin_definition.ts";
export { describeIssues } from "../../plugin_loader/plugin_definition.ts";

interface WorkerScope {
  postMessage(message: WorkerToHost): void;
  onmessage: ((event: MessageEvent<HostToWorker>) => void) | null;
  close(): void;
}

const scope = globalThis as unknown as WorkerScope;
// A tool's console output goes to the host, which shows it on stderr through the terminal
// sanitiser within a rate cap (console_relay.ts): harness's stdout carries -p answers and ACP
// messages, and a plugin's escape sequences must not reach the terminal.
relayConsole((text) => post({ type: "console", text }));
const tools = new Map<string, ToolDefinition>();
/** Why a plugin of this worker failed to import, by its file name (the tool's name). */
const importFailures = new Map<string, string>();
const controllers = new Map<number, AbortController>();
let setup: LoadMessage | undefined;
let imported: Promise<void> | undefined;
let launcher: CommandLauncher | undefined;
/** Processes `ctx.spawn` asked the host for: this worker has no `run` permission. */
const processes = new RemoteProcesses();

function post(message: WorkerToHost): void {
  scope.postMessage(message);
}

/**
 * Reports `Deno.exit()`, `self.close()` and uncaught errors to the host, which fails the
 * running calls and replaces this worker. Handling the error here keeps Deno from printing
 * it over the REPL.
 */
function reportSelfTermination(): void {
  const onUncaught = (event: Event, error: unknown) => {
    event.preventDefault();
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    post({ type: "crashed", reason: `uncaught error in the tool's worker: ${text}` });
  };
  globalThis.addEventListener("error", (e) => onUncaught(e, (e as ErrorEvent).error));
  globalThis.addEventListener(
    "unhandledrejection",
    (e) => onUncaught(e, (e as PromiseRejectionEvent).reason),
  );
  const realExit = Deno.exit;
  replaceDenoMember("exit", (code?: number) => {
    post({ type: "crashed", reason: `the tool called Deno.exit(${code ?? ""})` });
    realExit(code);
  });
  const realClose = scope.close.bind(scope);
  scope.close = () => {
    post({ type: "crashed", reason: "the tool closed its worker with self.close()" });
    realClose();
  };
}

/**
 * Sends what the tool prints to `send`: every console method, and writes to Deno.stdout and
 * Deno.stderr (text longer than 8,000 characters is cut here, before it is posted).
 */
function relayConsole(send: (text: string) => void): void {
  const cap = (text: string) => text.length > 8_000 ? text.slice(0, 8_000) : text;
  const format = (args: unknown[]) =>
    args.map((arg) => typeof arg === "string" ? arg : Deno.inspect(arg)).join(" ");
  const log = (...args: unknown[]) => send(cap(format(args)));
  for (const name of ["log", "info", "debug", "error", "warn", "trace", "dir", "table"] as const) {
    (console as unknown as Record<string, unknown>)[name] = log;
  }
  const decoder = new TextDecoder();
  const stream = {
    write: (bytes: Uint8Array) => {
      send(cap(decoder.decode(bytes)));
      return Promise.resolve(bytes.length);
    },
    writeSync: (bytes: Uint8Array) => {
      send(cap(decoder.decode(bytes)));
      return bytes.length;
    },
    writable: new WritableStream<Uint8Array>({
      write: (bytes) => send(cap(decoder.decode(bytes))),
    }),
    isTerminal: () => false,
    close: () => {},
  };
  replaceDenoMember("stdout", stream);
  replaceDenoMember("stderr", stream);
}

function classify(error: unknown, tool: string) {
  return classifyError(error, tool, setup?.grants, setup?.narrowing);
}

// ---- requests ------------------------------------------------------------------------------

/**
 * Refuses a plugin whose files changed after the host checked them (a project plugin against
 * the user's trust, any other against what harness listed at start): the model may have
 * rewritten it through a write grant.
 */
async function checkTrusted(plugin: PluginRef): Promise<void> {
  if (plugin.pins === undefined) return;
  const changed = await changedSincePinned(plugin.path, plugin.pins);
  if (changed === undefined) return;
  throw new Error(
    `${changed}: the new code does not run in this session; restart harness in this folder ` +
      "to review it (a project plugin is asked about again)",
  );
}

/** Imports every plugin of this worker, then revokes the read grants only imports needed. */
async function importPlugins(message: LoadMessage): Promise<{
  tools: WireToolInfo[];
  failures: LoadFailure[];
}> {
  const infos: WireToolInfo[] = [];
  const failures: LoadFailure[] = [];
  for (const plugin of message.plugins) {
    // The host starts this plugin's deadline now: a top level that never returns blocks this
    // thread, and the host names the file and loads the rest without it.
    if (message.mode === "list") post({ type: "importing", path: plugin.path });
    try {
      await checkTrusted(plugin);
      const definition = await loadPlugin(plugin, message.importTimeoutMs);
      infos.push(wireInfo(definition, plugin.path));
      tools.set(definition.name, definition);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      failures.push({ path: plugin.path, reason: text });
      importFailures.set(plugin.name, text);
    }
  }
  for (const path of message.revokeRead) {
    await Deno.permissions.revoke({ name: "read", path });
  }
  return { tools: infos, failures };
}

async function handleLoad(message: LoadMessage): Promise<void> {
  setup = message;
  launcher = new CommandLauncher(message.commands, {
    grants: message.grants,
    workspace: message.workspace,
    start: (request) => processes.spawn(request),
  });
  reportSelfTermination();
  installDenyGuard(message.guard, message.cwd, {
    readOnly: message.readOnly ?? [],
    ...(message.gate ? { gate: message.gate } : {}),
  });
  if (message.mode === "list") {
    post({ type: "loaded", ...await importPlugins(message) });
    return;
  }
  post({ type: "loaded", tools: [], failures: [] });
}

/** In "serve" mode, the first request imports the plugins (once); later ones just wait. */
function ensureImported(): Promise<void> {
  if (!setup || setup.mode === "list") return Promise.resolve();
  const message = setup;
  imported ??= importPlugins(message).then((result) => post({ type: "imported", ...result }));
  return imported;
}

function loadFailure(name: string): string | undefined {
  const reason = importFailures.get(name);
  return reason === undefined
    ? undefined
    : `Tool "${name}" cannot load inside its sandbox: ${reason}`;
}

function unknownTool(name: string): string {
  const names = [...tools.keys()].join(", ") || "none";
  return `Unknown tool "${name}": available tools are ${names}`;
}

async function handleValidate(
  message: Extract<HostToWorker, { type: "validate" }>,
): Promise<void> {
  await ensureImported();
  const tool = tools.get(message.name);
  if (!tool) {
    const issue = loadFailure(message.name) ?? unknownTool(message.name);
    post({ type: "validated", id: message.id, ok: false, issues: [issue] });
    return;
  }
  const parsed = tool.parameters.safeParse(message.args, { reportInput: true });
  if (parsed.success) post({ type: "validated", id: message.id, ok: true, value: parsed.data });
  else {
    post({
      type: "validated",
      id: message.id,
      ok: false,
      issues: describeIssues(parsed.error.issues),
    });
  }
}

async function handleRun(message: Extract<HostToWorker, { type: "run" }>): Promise<void> {
  const { id, name, state } = message;
  await ensureImported();
  const tool = tools.get(name);
  const failure = loadFailure(name);
  if (failure !== undefined) {
    post({ type: "failed", id, errorType: "internal_error", message: failure, state });
    return;
  }
  if (!tool || !setup || !launcher) {
    post({ type: "failed", id, errorType: "validation_failed", message: unknownTool(name), state });
    return;
  }
  const controller = new AbortController();
  controllers.set(id, controller);
  const ctx: ToolContext = {
    ...toolContext(setup, launcher, {
      signal: controller.signal,
      state,
      files: message.files,
      name,
    }),
    progress: progressReporter((text) => post({ type: "output", id, text })),
    ...(message.search ? { search: new SearchClient(message.search) } : {}),
    ...(message.jobs ? { jobs: new JobClient(message.jobs) } : {}),
  };
  try {
    post(returnedReply(await tool.run(message.args, ctx), { id, name, state }));
  } catch (error) {
    post({ type: "failed", id, ...classify(error, name), state });
  } finally {
    controllers.delete(id);
    message.search?.close();
    message.files?.close();
    message.jobs?.close();
  }
}

/**
 * What a call's `run` or `preview` gets besides its arguments; `files` is the port to the
 * host's file access when the host gave one (the editor's), else the worker's own.
 */
function toolContext(
  load: LoadMessage,
  commands: CommandLauncher,
  call: {
    signal: AbortSignal;
    state: Record<string, unknown>;
    files: MessagePort | undefined;
    name?: string;
  },
): ToolContext {
  const workspace = load.workspace;
  const outputsDir = toolOutputsDir(load.dataDir);
  const config = call.name === undefined ? undefined : load.toolConfig?.[call.name];
  return {
    workspace,
    resolve: (path: string) =>
      resolveWorkspacePath(workspace, path, [
        outputsDir,
        ...(load.readRoots ?? []),
        ...(load.planFolder ? [load.planFolder] : []),
      ]),
    signal: call.signal,
    dataDir: load.dataDir,
    state: call.state,
    files: call.files ? new RemoteFiles(call.files) : localFiles,
    ...(load.outputLimit ? { outputLimit: load.outputLimit } : {}),
    ...(config ? { config } : {}),
    spawn: (program, options) => commands.spawn(program, options),
    commands,
  };
}

/**
 * What a call would change (the approval prompt's diff): the tool's preview, and the file as
 * this worker reads it now, through the same grants and deny guard as the call's `run`.
 */
async function handlePreview(message: Extract<HostToWorker, { type: "preview" }>): Promise<void> {
  const { id, name } = message;
  await ensureImported();
  const tool = tools.get(name);
  // A tool without a preview (it changes no single file) has nothing to show.
  if (!tool?.preview || !setup || !launcher) {
    message.files?.close();
    post({ type: "previewed", id });
    return;
  }
  const ctx = toolContext(setup, launcher, {
    signal: new AbortController().signal,
    // A copy: a preview changes no conversation state.
    state: structuredClone(message.state),
    files: message.files,
  });
  try {
    const preview = await tool.preview(message.args, ctx);
    if (typeof preview?.path !== "string" || typeof preview.content !== "string") {
      throw new Error(`the preview returned ${shown(preview)}: expected { path, content }`);
    }
    const abs = ctx.resolve(preview.path);
    // No diff of a change the call could not write: the deny guard (.git, harness's folders,
    // --deny-write) and the worker's write grant refuse it as they would refuse `run`.
    assertMayWrite(abs);
    if (Deno.permissions.querySync({ name: "write", path: abs }).state !== "granted") {
      throw new Deno.errors.NotCapable(`Requires write access to "${abs}"`);
    }
    const there = await ctx.files.stat(abs);
    const before = there ? (await readText(ctx.files, abs, preview.path)).text : null;
    const change: FileChange = { path: preview.path, before, after: preview.content };
    post({ type: "previewed", id, change });
  } catch (error) {
    post({ type: "previewed", id, error: classify(error, name).message });
  } finally {
    message.files?.close();
  }
}

function safely(id: number | undefined, task: () => Promise<void> | void): void {
  Promise.resolve().then(task).catch((error) => {
    // Usually a state or value that cannot be cloned back to the host.
    if (id === undefined) throw error;
    post({
      type: "failed",
      id,
      errorType: "internal_error",
      message: `Cannot send the tool's result back: ${
        error instanceof Error ? error.message : String(error)
      }`,
    });
  });
}

function onHostMessage(event: MessageEvent<HostToWorker>): void {
  const message = event.data;
  switch (message.type) {
    case "load":
      safely(undefined, () => handleLoad(message));
      return;
    case "validate":
      safely(message.id, () => handleValidate(message));
      return;
    case "run":
      safely(message.id, () => handleRun(message));
      return;
    case "preview":
      safely(message.id, () => handlePreview(message));
      return;
    case "abort":
      controllers.get(message.id)?.abort(new DOMException(message.reason, "AbortError"));
      return;
    case "processes":
      processes.connect(message.port);
      return;
    default: {
      const never: never = message;
      throw new Error(`unknown message ${JSON.stringify(never)}`);
    }
  }
}

// Serve only inside a Worker, so importing this module elsewhere (doc tests) has no effect.
const workerScopeClass = (globalThis as unknown as Record<string, unknown>).WorkerGlobalScope;
if (typeof workerScopeClass === "function" && globalThis instanceof workerScopeClass) {
  scope.onmessage = onHostMessage;
}
