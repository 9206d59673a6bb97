// Finds plugin files (built-in, user, project, --plugins), asks before loading untrusted
// project plugins, and starts the sandboxed tool host. Broken plugins are reported once
// and skipped; they never stop the harness.

import type { Settings } from "../config.ts";
import { configDir } from "../config.ts";
import { formatAgentError } from "../errors.ts";
import { checkProjectTrust, type TrustIO } from "../plugins/project_trust.ts";
import { discoverPlugins } from "../plugins/load_plugins.ts";
import type { Grants } from "../sandbox/grants.ts";
import { createToolHost, type ToolHost } from "../sandbox/tool_host.ts";

export interface OpenToolsOptions {
  settings: Settings;
  grants: Grants;
  cwd: string;
  dataDir: string;
  /** REPL: ask about new project plugins; -p: skip them with a warning. */
  interactive: boolean;
  io: TrustIO;
}

/** Starts the tool host; warnings (bad plugins, skipped ones) are written to `io`. */
export async function openTools(
  options: OpenToolsOptions,
): Promise<{ host: ToolHost; warnings: string[] }> {
  const warnings: string[] = [];
  const discovered = await discoverPlugins({
    cwd: options.cwd,
    userDir: `${configDir()}/plugins`,
    pluginDirs: options.settings.plugins,
  });
  for (const error of discovered.errors) warnings.push(formatAgentError(error));
  const project = discovered.files.filter((file) => file.origin === "project");
  let files = discovered.files;
  if (project.length > 0) {
    const trust = await checkProjectTrust(project.map((file) => file.path), {
      io: options.io,
      interactive: options.interactive,
      cwd: options.cwd,
    });
    const load = new Set(trust.load);
    files = files.filter((file) => file.origin !== "project" || load.has(file.path));
  }
  const { host, errors } = await createToolHost({
    grants: options.grants,
    workspace: options.cwd,
    dataDir: options.dataDir,
    pluginFiles: files,
    timeouts: options.settings.toolTimeouts,
    maxOutputSize: options.settings.maxOutputSize,
    toolOutputLimit: options.settings.toolOutputLimit,
  });
  for (const error of errors) warnings.push(formatAgentError(error));
  for (const warning of warnings) options.io.write(`warning: ${warning}\n`);
  return { host, warnings };
}
