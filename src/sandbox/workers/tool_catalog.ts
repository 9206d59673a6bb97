// Builds the tool list of a host from plugin files: schemas come from the schema cache when
// a file (and what it imports) is unchanged, else from loader workers with no permissions
// that import the changed files, one per origin, so a plugin can only misreport plugins of
// its own origin. Built-in tools take their risk from builtin_risks.ts, never from the cache.
// Tools are grouped by origin class and effective permissions; each group later gets one
// "serve" worker that imports its plugins on the first call.

import { pathToFileURL } from "../../platform/file_urls.ts";
import denoJson from "../../../deno.json" with { type: "json" };
import type { AgentError } from "../../errors.ts";
import type { PluginFile, PluginOrigin } from "../../plugin_loader/load_plugins.ts";
import { trustedHash } from "../../permissions/project_trust.ts";
import {
  type CachedToolInfo,
  fingerprintFiles,
  SchemaCache,
} from "../../plugin_loader/schema_cache.ts";
import type { ToolPermissions } from "../../tools/define_tool.ts";
import type { ToolInfo } from "../../tools/tool_entry.ts";
import {
  type EffectivePermissions,
  effectivePermissions,
  noPermissions,
} from "../grants/effective_permissions.ts";
import { builtinRisk } from "../../plugin_loader/builtin_risks.ts";
import { type FilePin, importGraphPins, localImports } from "../../platform/import_graph.ts";
import { bundledToolStamp } from "../../platform/own_modules.ts";
import { grantCovers } from "../grants/permission_value.ts";
import { grantFor } from "../grants/tool_grants.ts";
import { withPlanFolder } from "../grants/plan_mode_grants.ts";
import type { Imported, SandboxOptions, SandboxWorker } from "./sandbox_worker.ts";
import type {
  LoadFailure,
  PluginRef,
  WireToolInfo,
} from "../../plugin_loader/plugin_definition.ts";

/** Tools that share effective permissions, and so one worker. */
export interface ToolGroup {
  key: string;
  effective: EffectivePermissions;
  plugins: PluginRef[];
  worker?: Promise<SandboxWorker>;
  /** `ctx.config` of a built-in tool the configuration grants something (grants/tool_grants.ts). */
  config?: Record<string, Readonly<Record<string, string>>>;
}

/** Options of {@linkcode loadToolCatalog}. */
export interface CatalogOptions extends SandboxOptions {
  pluginFiles: PluginFile[];
  /** The schema cache file; without it every plugin is imported to learn its schema. */
  schemaCacheFile?: string;
  /** The project trust store (default: trustStoreFile() of src/config/trust_store.ts). */
  trustStoreFile?: string;
}

/** The host's tools, their worker groups, and what to tell the user. */
export interface ToolCatalog {
  tools: ToolInfo[];
  groups: ToolGroup[];
  errors: AgentError[];
  /**
   * Forgets the cached schemas of the group's plugins that failed when its serve worker
   * imported them. What a serve worker reports is never stored: plugin code runs there.
   */
  remember(imported: Imported, group: ToolGroup): Promise<void>;
  /**
   * The same tools, pinned as they were listed, grouped for other grants (a subagent's, plan
   * mode's): a plugin the model rewrote since is not imported for them either.
   */
  narrowed(options: CatalogOptions): ToolCatalog;
}

const ORIGIN_RANK: Record<PluginOrigin, number> = { builtin: 0, user: 1, project: 2, flag: 3 };
const CACHE_WRITER = `harness ${denoJson.version}, deno ${Deno.version.deno}`;

/**
 * What the sandbox grants a tool: what it declares, plus read access to the workspace when it
 * declares write but not read, because `ctx.resolve` needs to read real paths to refuse
 * symbolic links leading out of the workspace (Deno's write check does not follow them). The
 * user's grants still bound it: without --allow-read for the workspace, resolve fails with
 * permission_denied instead of skipping the symlink check.
 */
function sandboxDeclaration(declared: ToolPermissions | undefined): ToolPermissions | undefined {
  if (!declared?.write || declared.read) return declared;
  return { ...declared, read: ["."] };
}

/**
 * Whether a plugin is hashed now and checked before each import: every plugin but the
 * built-ins, and those too when a write grant covers them (harness run from its own source).
 */
function pinned(file: PluginFile, options: CatalogOptions): boolean {
  return file.origin !== "builtin" || grantCovers("write", options.grants.allow.write, file.path);
}

/**
 * A plugin's fingerprint in the schema cache. A built-in the bundle serves is as fresh as the
 * bundle (its stamp), unless it is pinned (the model may write it): then, like any other
 * plugin, the hash of its file and the files it imports, remembered while their stats hold.
 */
async function fingerprintOf(
  path: string,
  cache: SchemaCache,
  pinned: boolean,
): Promise<string | undefined> {
  return (pinned ? undefined : bundledToolStamp(path)) ??
    await cache.fingerprint(path, async () => {
      const { files, missing } = await localImports(path);
      return { files, missing, fingerprint: await fingerprintFiles(files) };
    });
}

/** Time one plugin file's import may take in the loader (its top level) by default. */
export const DEFAULT_IMPORT_TIMEOUT_MS = 5_000;

/**
 * Imports `refs` in a worker with no permissions and returns their schemas. Plugin code runs
 * in that worker and can post messages of its own, so only reports about `refs` are kept.
 * Each file has its own deadline: a plugin whose top level never returns (it blocks the
 * worker's thread) is named as a failure and the files after it load in a new worker.
 */
async function importSchemas(
  refs: PluginRef[],
  options: CatalogOptions,
): Promise<{ tools: WireToolInfo[]; failures: LoadFailure[] } | { error: string }> {
  const tools: WireToolInfo[] = [];
  const failures: LoadFailure[] = [];
  let remaining = refs;
  while (remaining.length > 0) {
    const round = await importRound(remaining, options);
    if ("error" in round) return round;
    if (round.blocked === undefined) {
      tools.push(...round.tools);
      failures.push(...round.failures);
      break;
    }
    const blocked = round.blocked;
    failures.push({
      path: blocked,
      reason: `its import did not finish within ${
        (options.importTimeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS) / 1000
      } s (a top level that never returns?): fix or remove the file; the other plugins loaded`,
    });
    // The worker was stopped mid-way: every other file of the round is imported again.
    remaining = remaining.filter((ref) => ref.path !== blocked);
  }
  return {
    tools: tools.filter((tool) => refs.some((r) => r.path === tool.path && r.name === tool.name)),
    failures: failures.filter((failure) => refs.some((r) => r.path === failure.path)),
  };
}

/** One loader worker over `refs`; `blocked` names the file whose import overran its deadline. */
async function importRound(
  refs: PluginRef[],
  options: CatalogOptions,
): Promise<
  { tools: WireToolInfo[]; failures: LoadFailure[]; blocked?: string } | { error: string }
> {
  let loader: SandboxWorker;
  try {
    // Loaded here: a run whose tools all come from the schema cache never needs it.
    const { startSandbox } = await import("./sandbox_worker.ts");
    loader = await startSandbox({
      permissions: noPermissions(),
      guard: {},
      plugins: refs,
      options,
      mode: "list",
      name: "harness-plugin-loader",
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { error: `cannot start a sandbox worker: ${reason}` };
  }
  const perFile = options.importTimeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS;
  // The worker itself may take a while to start (a nested worker takes about a second), so
  // the first file's deadline starts when the worker says it begins importing it.
  const startBudget = perFile + 20_000;
  let current: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settleLost: (reply: { type: "lost"; reason: string }) => void = () => {};
  const lost = new Promise<{ type: "lost"; reason: string }>((settle) => settleLost = settle);
  const arm = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => settleLost({ type: "lost", reason: "loading did not finish" }), ms);
  };
  arm(startBudget);
  loader.onImporting = (path) => {
    if (!refs.some((ref) => ref.path === path)) return; // only the loader's own reports
    current = path;
    arm(perFile);
  };
  const reply = await Promise.race([loader.loaded, lost]);
  clearTimeout(timer);
  loader.kill("plugins loaded");
  if (reply.type === "lost") {
    if (current !== undefined && reply.reason === "loading did not finish") {
      return { tools: [], failures: [], blocked: current };
    }
    return { error: `${reply.reason}: a plugin may block while it is imported` };
  }
  return { tools: reply.tools, failures: reply.failures };
}

/**
 * Lists the tools of `options.pluginFiles` (the first of a name wins: builtin, user,
 * project, flag). A broken or duplicate plugin becomes a `plugin_invalid` error and is
 * skipped.
 */
export async function loadToolCatalog(options: CatalogOptions): Promise<ToolCatalog> {
  const files = [...options.pluginFiles].sort((a, b) =>
    ORIGIN_RANK[a.origin] - ORIGIN_RANK[b.origin]
  );
  const cache = await SchemaCache.open(options.schemaCacheFile, CACHE_WRITER);
  const fingerprints = new Map<string, string>();
  const known = new Map<string, CachedToolInfo>();
  const misses: PluginRef[] = [];
  const originOf = new Map(files.map((file) => [file.path, file.origin]));
  const errors: AgentError[] = [];
  const failures = new Map<string, string>();
  // A project plugin runs only as the user trusted it, any other plugin the model could
  // rewrite (a --plugins or user folder, built-ins inside a write grant) only as it was now:
  // pinned by hash here, checked again by the worker right before each import.
  const pins = new Map<string, FilePin[]>();
  await Promise.all(
    files.filter((file) => pinned(file, options)).map(async (file) => {
      if (file.origin === "project") {
        // Trusted in this workspace: a folder trusted elsewhere and linked in asks again.
        const trusted = await trustedHash(file.path, {
          workspace: options.workspace,
          ...(options.trustStoreFile ? { storeFile: options.trustStoreFile } : {}),
        });
        if ("hash" in trusted) pins.set(file.path, trusted.pins ?? []);
        else failures.set(file.path, `project plugin not loaded: ${trusted.error}`);
        return;
      }
      const now = await importGraphPins(file.path);
      if ("pins" in now) pins.set(file.path, now.pins);
      else failures.set(file.path, `it cannot be checked before each import: ${now.error}`);
    }),
  );
  const listed = files.filter((file) => !failures.has(file.path));
  await Promise.all(listed.map(async (file) => {
    const fingerprint = options.schemaCacheFile === undefined
      ? undefined
      : await fingerprintOf(file.path, cache, pins.has(file.path));
    if (fingerprint !== undefined) fingerprints.set(file.path, fingerprint);
    const hit = fingerprint === undefined ? undefined : cache.lookup(file.path, fingerprint);
    if (hit) known.set(file.path, hit);
  }));
  for (const file of listed) {
    if (known.has(file.path)) continue;
    const pinned = pins.get(file.path);
    misses.push({
      url: file.url,
      path: file.path,
      name: file.name,
      ...(pinned ? { pins: pinned } : {}),
    });
  }
  const batches = Map.groupBy(misses, (ref) => originOf.get(ref.path) ?? "flag");
  await Promise.all([...batches.values()].map(async (batch) => {
    const imported = await importSchemas(batch, options);
    if ("error" in imported) {
      errors.push({
        kind: "plugin_invalid",
        file: batch.map((f) => f.path).join(", "),
        reason: imported.error,
      });
      for (const miss of batch) failures.set(miss.path, "");
      return;
    }
    for (const failure of imported.failures) {
      failures.set(failure.path, failure.reason);
      cache.forget(failure.path);
    }
    for (const { path, ...info } of imported.tools) {
      known.set(path, info);
      const fingerprint = fingerprints.get(path);
      if (fingerprint !== undefined) cache.store(path, fingerprint, info);
    }
  }));
  await cache.save();
  const remember = async (message: Imported, group: ToolGroup) => {
    for (const failure of message.failures) {
      if (group.plugins.some((plugin) => plugin.path === failure.path)) cache.forget(failure.path);
    }
    await cache.save();
  };
  const catalog = (grouping: CatalogOptions): ToolCatalog => ({
    ...assemble(files, known, failures, { ...grouping, pins }),
    errors: [...errors, ...assembleErrors(files, known, failures)],
    remember,
    narrowed: catalog,
  });
  return catalog(options);
}

function assembleErrors(
  files: PluginFile[],
  known: Map<string, CachedToolInfo>,
  failures: Map<string, string>,
): AgentError[] {
  const errors: AgentError[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const info = known.get(file.path);
    const failure = failures.get(file.path);
    if (failure === "") continue; // already reported for the whole batch
    if (failure !== undefined || !info) {
      errors.push({
        kind: "plugin_invalid",
        file: file.path,
        reason: failure ?? "it was not loaded",
      });
      continue;
    }
    const first = seen.get(info.name);
    if (first !== undefined) {
      errors.push({
        kind: "plugin_invalid",
        file: file.path,
        reason:
          `a tool named "${info.name}" is already loaded from "${first}": rename or remove one of them`,
      });
      continue;
    }
    seen.set(info.name, file.path);
  }
  return errors;
}

function assemble(
  files: PluginFile[],
  known: Map<string, CachedToolInfo>,
  failures: Map<string, string>,
  options: CatalogOptions & { pins: Map<string, FilePin[]> },
): { tools: ToolInfo[]; groups: ToolGroup[] } {
  const tools: ToolInfo[] = [];
  const groups = new Map<string, ToolGroup>();
  const envNames = Object.keys(Deno.env.toObject());
  for (const file of files) {
    const info = known.get(file.path);
    if (!info || failures.has(file.path) || tools.some((t) => t.name === info.name)) continue;
    tools.push({
      name: info.name,
      description: info.description,
      risk: file.origin === "builtin" ? builtinRisk(info.name) : info.risk,
      parameters: info.parameters,
      source: file.path,
      origin: file.origin,
      ...(info.permissions ? { permissions: info.permissions } : {}),
      ...(info.timeoutMs ? { timeoutMs: info.timeoutMs } : {}),
    });
    // A built-in tool the configuration grants its own hosts (web_search) gets exactly those.
    const own = grantFor(options.grants, options.toolGrants, {
      name: info.name,
      builtin: file.origin === "builtin",
    });
    const effective = effectivePermissions(
      own?.grants ?? options.grants,
      own?.declared ?? withPlanFolder(sandboxDeclaration(info.permissions), options.planFolder),
      { workspace: options.workspace, env: envNames },
    );
    // Built-in tools never share a worker with plugin code from elsewhere, and a tool with a
    // grant of its own shares it with no other tool.
    const key = `${file.origin === "builtin" ? "builtin" : "added"} ${own ? info.name : ""} ${
      JSON.stringify(effective)
    }`;
    const group: ToolGroup = groups.get(key) ?? {
      key,
      effective,
      plugins: [],
      ...(own ? { config: { [info.name]: options.toolGrants![info.name]!.config } } : {}),
    };
    const pinned = options.pins.get(file.path);
    group.plugins.push({
      url: file.url || pathToFileURL(file.path).href,
      path: file.path,
      name: file.name,
      ...(pinned ? { pins: pinned } : {}),
    });
    groups.set(key, group);
  }
  return { tools, groups: [...groups.values()] };
}
