// Finds plugin files (built-in, user, project, --plugins), asks before loading untrusted
// project plugins, and starts the sandboxed tool host. Broken plugins are reported once
// and skipped; they never stop the harness. With `background`, the tool list loads after
// this returns (the REPL shows its prompt meanwhile) and warnings follow when it is known.

import type { Settings } from "../config/settings.ts";
import { configDir } from "../config/folders.ts";
import { formatAgentError } from "../errors.ts";
import { checkProjectTrust, type TrustIO } from "../permissions/project_trust.ts";
import { discoverPlugins, type PluginFile } from "../plugin_loader/load_plugins.ts";
import { schemaCachePath } from "../plugin_loader/schema_cache.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import {
  type CommandSandbox,
  describeCommandSandbox,
} from "../sandbox/commands/command_sandbox.ts";
import type { JobSummary } from "../jobs/job_control.ts";
import { probeCommandSandbox } from "../sandbox/commands/command_sandbox_probe.ts";
import { protectionFromGate } from "../sandbox/commands/command_sandbox_protection.ts";
import { openToolHost, type ToolHost } from "../sandbox/workers/tool_host.ts";
import { workspaceDataDir } from "../config/folders.ts";
import { terminalSafe } from "../platform/terminal_text.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { openWorkspaceGate } from "./workspace_gate.ts";
import { findLinkedFiles, linkedFilesWarning } from "../sandbox/grants/hard_links.ts";
import { webSearchGrants, withoutUnconfiguredSearch } from "./web_search_setup.ts";

export interface OpenToolsOptions {
  settings: Settings;
  grants: Grants;
  cwd: string;
  dataDir: string;
  /** REPL: ask about new project plugins; -p: skip them with a warning. */
  interactive: boolean;
  io: TrustIO;
  /** Return before the tool list is known; warnings are written once it is. */
  background?: boolean;
  /** One worker per tool (a one-shot call imports only its own plugin). */
  workerPerTool?: boolean;
  /** Told when a background job ends or waits for input (the front end's line). */
  onJobChange?(job: JobSummary): void;
  /** The workspace's file gate; built here when left out. */
  gate?: FileGate;
}

/**
 * Starts the tool host; warnings (bad plugins, skipped ones) are written to `io`.
 *
 * @returns The host, the names of the plugin files to load (each tool is named after its
 * file, so this is the tool list unless a plugin turns out broken), and the warnings written
 * so far (with `background`, list-time warnings come later).
 */
export async function openTools(
  options: OpenToolsOptions,
): Promise<
  {
    host: ToolHost;
    names: string[];
    warnings: string[];
    commandSandbox: Promise<CommandSandbox>;
    gate: FileGate;
  }
> {
  const warnings: string[] = [];
  // Built before any tool runs, whatever the flags (issue 38): tools, commands and the
  // editor's files ask the same gate.
  const gate = options.gate ?? openWorkspaceGate({
    settings: options.settings,
    grants: options.grants,
    cwd: options.cwd,
    outputsRoot: options.dataDir,
  });
  const files = await pluginFiles(options, gate, warnings);
  const cacheFile = schemaCachePath(Deno.env.toObject());
  const toolGrants = webSearchGrants(options.settings.webSearchUrl);
  const commandSandbox = startCommandSandbox(options, gate);
  const host = openToolHost({
    gate,
    grants: options.grants,
    workspace: options.cwd,
    dataDir: workspaceDataDir(options.dataDir, options.cwd), // its saved outputs only
    pluginFiles: files,
    ...(cacheFile ? { schemaCacheFile: cacheFile } : {}),
    timeouts: options.settings.toolTimeouts,
    importTimeoutMs: options.settings.pluginImportTimeout * 1000,
    maxOutputSize: options.settings.maxOutputSize,
    toolOutputLimit: options.settings.toolOutputLimit,
    commandSandbox,
    backgroundAfterMs: options.settings.commandBackgroundAfter * 1000,
    ...(options.onJobChange ? { onJobChange: options.onJobChange } : {}),
    ...(options.workerPerTool ? { workerPerTool: true } : {}),
    ...(toolGrants ? { toolGrants } : {}),
  });
  // Plugin errors carry what plugin code threw: escapes show as text.
  for (const warning of warnings) options.io.write(`warning: ${terminalSafe(warning)}\n`);
  const reportLoadErrors = host.loadErrors().then((errors) => {
    for (const error of errors) {
      warnings.push(formatAgentError(error));
      options.io.write(`warning: ${terminalSafe(formatAgentError(error))}\n`);
    }
  });
  if (!options.background) await reportLoadErrors;
  return {
    host,
    names: [...new Set(files.map((file) => file.name))],
    warnings,
    commandSandbox,
    gate,
  };
}

/**
 * The plugin files to load: discovered, then those the gate refuses left out (a link to a
 * --deny-read file, harness's data folder, a moved entry: not even hashed), web_search without
 * an engine, and the project's the user does not trust.
 */
async function pluginFiles(
  options: OpenToolsOptions,
  gate: FileGate,
  warnings: string[],
): Promise<PluginFile[]> {
  const discovered = await discoverPlugins({
    cwd: options.cwd,
    userDir: `${configDir()}/plugins`,
    pluginDirs: options.settings.plugins,
    namedDirs: options.settings.namedPluginDirs,
  });
  for (const error of discovered.errors) warnings.push(formatAgentError(error));
  // Plugin files load whatever the read grant, but not one the gate refuses otherwise.
  // Without a search engine web_search is not loaded: nothing can search.
  const files = withoutUnconfiguredSearch(discovered.files, options.settings.webSearchUrl)
    .filter((file) => {
      const verdict = gate.check("read", file.path);
      if (verdict.ok || verdict.refusal.reason === "not_granted") return true;
      warnings.push(`Skipping plugin "${file.path}": ${verdict.refusal.message}`);
      return false;
    });
  const project = files.filter((file) => file.origin === "project");
  if (project.length === 0) return files;
  const trust = await checkProjectTrust(project.map((file) => file.path), {
    io: options.io,
    interactive: options.interactive,
    cwd: options.cwd,
  });
  const load = new Set(trust.load);
  return files.filter((file) => file.origin !== "project" || load.has(file.path));
}

/**
 * The start-up check of the command sandbox, skipped without --allow-run (no command can
 * run). When commands would run unconfined (or be refused), one warning line says why.
 */
function startCommandSandbox(options: OpenToolsOptions, gate: FileGate): Promise<CommandSandbox> {
  const { grants, settings } = options;
  const env = Deno.env.toObject();
  const run = grants.allow.run === true || grants.allow.run.length > 0;
  if (!run) {
    // No command of the model's can start, but a project's hooks may: they keep the gate's
    // protected set (run_hooks.ts).
    return Promise.resolve({
      mode: settings.commandSandbox,
      confinement: { kind: "unused" },
      env: {},
      protection: protectionFromGate(gate.rules, options.cwd),
    });
  }
  // Commands may not change what the gate protects, nor see harness's data folder.
  return probeCommandSandbox(settings.commandSandbox, {
    grants,
    env,
    workspace: options.cwd,
    gateRules: gate.rules,
  }).then((sandbox) => {
    if (sandbox.confinement.kind === "none" && sandbox.mode !== "off") {
      options.io.write(`warning: ${describeCommandSandbox(sandbox)}\n`);
    }
    void warnLinkedFiles(options);
    return sandbox;
  });
}

/** Names files in the write grants with other hard links, which a command writes in place. */
async function warnLinkedFiles(options: OpenToolsOptions): Promise<void> {
  const write = options.grants.allow.write;
  const roots = write === true ? [options.cwd] : write;
  const warning = linkedFilesWarning(await findLinkedFiles(roots), options.cwd);
  if (warning !== undefined) options.io.write(`warning: ${terminalSafe(warning)}\n`);
}
