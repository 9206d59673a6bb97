// Entry of a sandbox Worker (created by tool_host.ts with `deno: { permissions }`). It imports
// plugin files by URL, checks each default export, then serves validate/run requests. All
// plugin code runs here, never on the main thread. Deny lists that Worker permissions cannot
// express are enforced by a guard around Deno's file, network and process APIs.

import { basename, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { ToolErrorType } from "../messages.ts";
import {
  defineTool,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolPermissions,
} from "../tools/define_tool.ts";
import { resolveWorkspacePath } from "../tools/workspace_path.ts";
import { covers, describeNotCapable, type Grants, type PermissionName } from "./grants.ts";

/** A plugin file to import. */
export interface PluginRef {
  url: string;
  path: string;
  name: string;
}

/** Messages from the host. */
export type HostToWorker =
  | {
    type: "load";
    plugins: PluginRef[];
    /** Read grants added only so plugin files can be imported; revoked after loading. */
    revokeRead: string[];
    guard: Partial<Record<PermissionName, string[]>>;
    grants: Grants;
    workspace: string;
    dataDir: string;
    cwd: string;
    importTimeoutMs: number;
  }
  | { type: "validate"; id: number; name: string; args: unknown }
  | { type: "run"; id: number; name: string; args: unknown; state: Record<string, unknown> }
  | { type: "abort"; id: number; reason: string };

/** A valid tool as the worker reports it. */
export interface WireToolInfo {
  name: string;
  description: string;
  risk: ToolDefinition["risk"];
  parameters: Record<string, unknown>;
  permissions?: ToolPermissions;
  timeoutMs?: number;
  path: string;
}

/** Messages to the host. */
export type WorkerToHost =
  | { type: "loaded"; tools: WireToolInfo[]; failures: { path: string; reason: string }[] }
  | { type: "validated"; id: number; ok: true; value: unknown }
  | { type: "validated"; id: number; ok: false; issues: string[] }
  | {
    type: "done";
    id: number;
    output: string;
    display?: string;
    final?: boolean;
    state: Record<string, unknown>;
  }
  | {
    type: "failed";
    id: number;
    errorType: Exclude<ToolErrorType, "none">;
    message: string;
    state?: Record<string, unknown>;
  }
  | { type: "crashed"; reason: string };

interface WorkerScope {
  postMessage(message: WorkerToHost): void;
  onmessage: ((event: MessageEvent<HostToWorker>) => void) | null;
  close(): void;
}

const scope = globalThis as unknown as WorkerScope;
const tools = new Map<string, ToolDefinition>();
const controllers = new Map<number, AbortController>();
let setup: Extract<HostToWorker, { type: "load" }> | undefined;

function post(message: WorkerToHost): void {
  scope.postMessage(message);
}

// ---- plugin definitions ----------------------------------------------------------------

const permissionValue = z.union([z.boolean(), z.array(z.string())]).optional();
const definitionSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]+$/, "must use only letters, digits, _ and -"),
  description: z.string().trim().min(1, "must be a non-empty string"),
  risk: z.enum(["safe", "low", "medium", "high"]),
  parameters: z.custom<z.ZodType>(
    (v) => typeof v === "object" && v !== null && "_zod" in v,
    "must be a zod schema such as z.object({ ... })",
  ),
  permissions: z.strictObject({
    read: permissionValue,
    write: permissionValue,
    net: permissionValue,
    run: permissionValue,
    env: permissionValue,
    sys: permissionValue,
    ffi: permissionValue,
  }).optional(),
  timeoutMs: z.number().int().positive().optional(),
  run: z.custom<ToolDefinition["run"]>((v) => typeof v === "function", "must be a function"),
});

function pathName(path: readonly PropertyKey[], root: string): string {
  if (path.length === 0) return root;
  return path.map((k, i) =>
    typeof k === "number" ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`
  ).join("");
}

function shown(value: unknown): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function expectedWords(expected: string): string {
  const words: Record<string, string> = {
    string: "a string",
    number: "a number",
    int: "an integer",
    boolean: "true or false",
    object: "an object",
    array: "an array",
    null: "null",
  };
  return words[expected] ?? expected;
}

/**
 * Turns zod issues into plain sentences naming the field, e.g. `"path" is required:
 * expected a string` or `"limit" must be a number, got "ten"`.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { describeIssues } from "./tool_worker.ts";
 * const r = z.object({ path: z.string() }).safeParse({}, { reportInput: true });
 * if (r.success || describeIssues(r.error.issues)[0] !== '"path" is required: expected a string') throw new Error();
 * ```
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], root = "arguments"): string[] {
  return issues.map((issue) => {
    const field = `"${pathName(issue.path, root)}"`;
    const got = "input" in issue ? `, got ${shown(issue.input)}` : "";
    switch (issue.code) {
      case "invalid_type":
        return "input" in issue && issue.input !== undefined
          ? `${field} must be ${expectedWords(issue.expected)}${got}`
          : `${field} is required: expected ${expectedWords(issue.expected)}`;
      case "too_small":
      case "too_big": {
        const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
        const most = issue.code === "too_small" ? "at least" : "at most";
        const strict = issue.code === "too_small" ? "more than" : "less than";
        const limit = `${issue.inclusive === false ? strict : most} ${String(bound)}`;
        const plural = Number(bound) === 1 ? "" : "s";
        if (issue.origin === "string") {
          return `${field} must have ${limit} character${plural}${got}`;
        }
        if (issue.origin === "array" || issue.origin === "set") {
          return `${field} must have ${limit} item${plural}`;
        }
        return `${field} must be ${limit}${got}`;
      }
      case "invalid_value":
        return `${field} must be one of ${issue.values.map((v) => shown(v)).join(", ")}${got}`;
      case "invalid_format":
        return `${field} must be a valid ${issue.format}${got}`;
      case "unrecognized_keys":
        return `${field} has unknown field${issue.keys.length > 1 ? "s" : ""} ${
          issue.keys.map((k) => `"${k}"`).join(", ")
        }: remove ${issue.keys.length > 1 ? "them" : "it"}`;
      default:
        return issue.message.startsWith("must ")
          ? `${field} ${issue.message}`
          : `${field}: ${issue.message}`;
    }
  });
}

async function importWithTimeout(url: string, ms: number): Promise<Record<string, unknown>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`import did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([import(url) as Promise<Record<string, unknown>>, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function loadPlugin(plugin: PluginRef, timeoutMs: number): Promise<ToolDefinition> {
  const module = await importWithTimeout(plugin.url, timeoutMs);
  let exported = module.default;
  if (exported === undefined) {
    throw new Error("it has no default export: end it with `export default defineTool({ ... })`");
  }
  if (typeof exported === "function") {
    exported = await (exported as (api: unknown) => unknown)({ z, ToolError, defineTool });
  }
  const checked = definitionSchema.safeParse(exported, { reportInput: true });
  if (!checked.success) {
    throw new Error(
      `bad definition: ${describeIssues(checked.error.issues, "definition").join("; ")}`,
    );
  }
  const definition = checked.data as ToolDefinition;
  if (definition.name !== plugin.name) {
    throw new Error(
      `its name "${definition.name}" differs from the file name: rename the tool or the file to "${plugin.name}"`,
    );
  }
  return definition;
}

function jsonSchemaOf(definition: ToolDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(definition.parameters, { io: "input" }) as Record<string, unknown>;
  delete schema.$schema;
  if (schema.type !== "object") {
    throw new Error("its parameters must be an object schema: use z.object({ ... })");
  }
  return schema;
}

// ---- the deny guard ----------------------------------------------------------------------

type Access = "read" | "write" | "rw" | null;

const FS_GUARDS: Record<string, Access[]> = {
  readFile: ["read"],
  readTextFile: ["read"],
  readDir: ["read"],
  stat: ["read"],
  lstat: ["read"],
  realPath: ["read"],
  readLink: ["read"],
  writeFile: ["write"],
  writeTextFile: ["write"],
  mkdir: ["write"],
  remove: ["write"],
  truncate: ["write"],
  chmod: ["write"],
  chown: ["write"],
  utime: ["write"],
  create: ["rw"],
  copyFile: ["read", "write"],
  rename: ["rw", "rw"],
  link: ["rw", "rw"],
  symlink: [null, "write"],
};

function denyError(kind: PermissionName, target: string): Error {
  return new Deno.errors.NotCapable(`Requires ${kind} access to "${target}"`);
}

function replaceDenoMember(name: string, value: unknown): void {
  try {
    Object.defineProperty(Deno, name, { value, writable: true, configurable: true });
  } catch { /* a frozen member stays unguarded; Deno's own allow list still applies */ }
}

function installDenyGuard(guard: Partial<Record<PermissionName, string[]>>, cwd: string): void {
  const check = (kind: PermissionName, target: string) => {
    if ((guard[kind] ?? []).some((entry) => covers(kind, entry, target))) {
      throw denyError(kind, target);
    }
  };
  const toPath = (p: unknown) => resolvePath(cwd, p instanceof URL ? fileURLToPath(p) : String(p));
  const checkPath = (access: Access, p: unknown) => {
    if (access === null) return;
    const path = toPath(p);
    if (access !== "write") check("read", path);
    if (access !== "read") check("write", path);
  };
  const denoRecord = Deno as unknown as Record<string, (...args: unknown[]) => unknown>;
  if (guard.read || guard.write) {
    for (const [base, accesses] of Object.entries(FS_GUARDS)) {
      for (const name of [base, `${base}Sync`]) {
        const original = denoRecord[name];
        if (typeof original !== "function") continue;
        replaceDenoMember(name, (...args: unknown[]) => {
          accesses.forEach((access, i) => checkPath(access, args[i]));
          return original.apply(Deno, args);
        });
      }
    }
    for (const name of ["open", "openSync"]) {
      const original = denoRecord[name]!;
      replaceDenoMember(name, (path: unknown, options?: Deno.OpenOptions) => {
        const o = options ?? {};
        const writes = Boolean(o.write || o.append || o.truncate || o.create || o.createNew);
        checkPath(writes ? (o.read ? "rw" : "write") : "read", path);
        return original.call(Deno, path, options);
      });
    }
  }
  if (guard.net) {
    const checkHost = (hostname: string, port: number | string | undefined) => {
      check("net", port === undefined || port === "" ? hostname : `${hostname}:${port}`);
      check("net", hostname);
    };
    const originalFetch = globalThis.fetch;
    globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.protocol === "http:" || url.protocol === "https:") {
        checkHost(url.hostname, url.port || (url.protocol === "https:" ? 443 : 80));
      }
      return originalFetch(input, init);
    };
    for (const name of ["connect", "connectTls", "listen", "listenTls"]) {
      const original = denoRecord[name]!;
      replaceDenoMember(name, (options: { hostname?: string; port?: number }) => {
        if (options && typeof options.port === "number") {
          checkHost(
            options.hostname ?? (name.startsWith("listen") ? "0.0.0.0" : "127.0.0.1"),
            options.port,
          );
        }
        return original.call(Deno, options);
      });
    }
  }
  if (guard.run) {
    const Original = Deno.Command;
    const denied = guard.run;
    class GuardedCommand extends Original {
      constructor(command: string | URL, options?: Deno.CommandOptions) {
        const target = command instanceof URL ? fileURLToPath(command) : command;
        if (denied.some((d) => d === target || (!/[\\/]/.test(d) && d === basename(target)))) {
          throw denyError("run", target);
        }
        super(command, options);
      }
    }
    replaceDenoMember("Command", GuardedCommand);
  }
  if (guard.ffi) {
    const original = denoRecord.dlopen;
    if (typeof original === "function") {
      replaceDenoMember("dlopen", (path: unknown, symbols: unknown) => {
        check("ffi", toPath(path));
        return original.call(Deno, path, symbols);
      });
    }
  }
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

// ---- errors --------------------------------------------------------------------------------

const TOOL_ERROR_TYPES = new Set<string>([
  "not_found",
  "validation_failed",
  "permission_denied",
  "io_error",
  "parse_error",
  "timeout",
  "internal_error",
  "limit_reached",
  "cancelled",
  "interrupted",
]);

function classify(
  error: unknown,
  tool: string,
): { errorType: Exclude<ToolErrorType, "none">; message: string } {
  if (error instanceof ToolError || (error instanceof Error && error.name === "ToolError")) {
    const type = (error as { type?: unknown }).type;
    if (typeof type === "string" && TOOL_ERROR_TYPES.has(type)) {
      return { errorType: type as Exclude<ToolErrorType, "none">, message: error.message };
    }
  }
  if (!(error instanceof Error)) return { errorType: "internal_error", message: String(error) };
  const grants = setup?.grants;
  if (error instanceof Deno.errors.NotCapable || /^Requires \w+ access/.test(error.message)) {
    return {
      errorType: "permission_denied",
      message: grants ? describeNotCapable(error.message, { grants, tool }) : error.message,
    };
  }
  if (error instanceof Deno.errors.NotFound) {
    return { errorType: "not_found", message: error.message };
  }
  if (Object.values(Deno.errors).some((type) => error instanceof type)) {
    return { errorType: "io_error", message: error.message };
  }
  const name = error.name && error.name !== "Error" ? `${error.name}: ` : "";
  return { errorType: "internal_error", message: `${name}${error.message}` };
}

// ---- requests ------------------------------------------------------------------------------

async function handleLoad(message: Extract<HostToWorker, { type: "load" }>): Promise<void> {
  setup = message;
  reportSelfTermination();
  installDenyGuard(message.guard, message.cwd);
  const infos: WireToolInfo[] = [];
  const failures: { path: string; reason: string }[] = [];
  for (const plugin of message.plugins) {
    try {
      const definition = await loadPlugin(plugin, message.importTimeoutMs);
      const parameters = jsonSchemaOf(definition);
      tools.set(definition.name, definition);
      infos.push({
        name: definition.name,
        description: definition.description.trim(),
        risk: definition.risk,
        parameters,
        path: plugin.path,
        ...(definition.permissions ? { permissions: definition.permissions } : {}),
        ...(definition.timeoutMs ? { timeoutMs: definition.timeoutMs } : {}),
      });
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      failures.push({ path: plugin.path, reason: text });
    }
  }
  for (const path of message.revokeRead) {
    await Deno.permissions.revoke({ name: "read", path });
  }
  post({ type: "loaded", tools: infos, failures });
}

function unknownTool(name: string): string {
  const names = [...tools.keys()].join(", ") || "none";
  return `Unknown tool "${name}": available tools are ${names}`;
}

function handleValidate(message: Extract<HostToWorker, { type: "validate" }>): void {
  const tool = tools.get(message.name);
  if (!tool) {
    post({ type: "validated", id: message.id, ok: false, issues: [unknownTool(message.name)] });
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
  const tool = tools.get(name);
  if (!tool || !setup) {
    post({ type: "failed", id, errorType: "validation_failed", message: unknownTool(name), state });
    return;
  }
  const controller = new AbortController();
  controllers.set(id, controller);
  const workspace = setup.workspace;
  const ctx: ToolContext = {
    workspace,
    resolve: (path: string) => resolveWorkspacePath(workspace, path),
    signal: controller.signal,
    dataDir: setup.dataDir,
    state,
  };
  try {
    const returned: unknown = await tool.run(message.args, ctx);
    const output = typeof returned === "string" ? { output: returned } : returned;
    if (
      typeof output !== "object" || output === null ||
      typeof (output as { output?: unknown }).output !== "string"
    ) {
      post({
        type: "failed",
        id,
        errorType: "internal_error",
        message: `Tool "${name}" returned ${shown(returned)}: expected { output: string }`,
        state,
      });
      return;
    }
    const { output: text, display, final } = output as {
      output: string;
      display?: unknown;
      final?: unknown;
    };
    post({
      type: "done",
      id,
      output: text,
      state,
      ...(typeof display === "string" ? { display } : {}),
      ...(final === true ? { final: true } : {}),
    });
  } catch (error) {
    post({ type: "failed", id, ...classify(error, name), state });
  } finally {
    controllers.delete(id);
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
    case "abort":
      controllers.get(message.id)?.abort(new DOMException(message.reason, "AbortError"));
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
