// Finds plugin files (built-in, user, project, --plugins), asks before loading untrusted
// project plugins, and starts the sandboxed tool host. Broken plugins are reported once
// and skipped; they never stop the harness. With `background`, the tool list loads after
// this returns (the REPL shows its prompt meanwhile) and warnings follow when it is known.

import { resolve } from "node:path";
import type { Settings } from "../config/settings.ts";
import { configDir } from "../config/folders.ts";
import { formatAgentError } from "../errors.ts";
import { checkProjectTrust, type TrustIO } from "../permissions/project_trust.ts";
import { builtinPluginDir, discoverPlugins } from "../plugins/load_plugins.ts";
import { schemaCachePath } from "../plugins/schema_cache.ts";
import type { Grants } from "../sandbox/grants.ts";
import { type CommandSandbox, describeCommandSandbox } from "../sandbox/command_sandbox.ts";
import { probeCommandSandbox } from "../sandbox/command_sandbox_probe.ts";
import { openToolHost, type ToolHost } from "../sandbox/tool_host.ts";
import { workspaceDataDir } from "../config/folders.ts";
import { terminalSafe } from "../platform/terminal_text.ts";
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
  { host: ToolHost; names: string[]; warnings: string[]; commandSandbox: Promise<CommandSandbox> }
> {
  const warnings: string[] = [];
  const discovered = await discoverPlugins({
    cwd: options.cwd,
    userDir: `${configDir()}/plugins`,
    pluginDirs: options.settings.plugins,
    namedDirs: options.settings.namedPluginDirs,
  });
  for (const error of discovered.errors) warnings.push(formatAgentError(error));
  const project = discovered.files.filter((file) => file.origin === "project");
  // Without a search engine web_search is not loaded: nothing can search.
  let files = withoutUnconfiguredSearch(discovered.files, options.settings.webSearchUrl);
  if (project.length > 0) {
    const trust = await checkProjectTrust(project.map((file) => file.path), {
      io: options.io,
      interactive: options.interactive,
      cwd: options.cwd,
    });
    const load = new Set(trust.load);
    files = files.filter((file) => file.origin !== "project" || load.has(file.path));
  }
  const cacheFile = schemaCachePath(Deno.env.toObject());
  const toolGrants = webSearchGrants(options.settings.webSearchUrl);
  const commandSandbox = startCommandSandbox(options);
  const host = openToolHost({
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
  };
}

/**
 * The start-up check of the command sandbox, skipped without --allow-run (no command can
 * run). When commands would run unconfined (or be refused), one warning line says why.
 */
function startCommandSandbox(options: OpenToolsOptions): Promise<CommandSandbox> {
  const { grants, settings } = options;
  const env = Deno.env.toObject();
  const run = grants.allow.run === true || grants.allow.run.length > 0;
  if (!run) {
    return Promise.resolve({
      mode: settings.commandSandbox,
      confinement: { kind: "unused" },
      env: {},
    });
  }
  // Commands may not change the plugin folders harness loads (nor .git, unless allowed).
  const pluginFolders = [
    builtinPluginDir(),
    resolve(options.cwd, "plugins"),
    ...settings.plugins.map((dir) => resolve(options.cwd, dir)),
  ];
  return probeCommandSandbox(settings.commandSandbox, {
    grants,
    env,
    workspace: options.cwd,
    pluginFolders,
    writableGit: settings.writableGit,
  }).then((sandbox) => {
    if (sandbox.confinement.kind === "none" && sandbox.mode !== "off") {
      options.io.write(`warning: ${describeCommandSandbox(sandbox)}\n`);
    }
    return sandbox;
  });
}
