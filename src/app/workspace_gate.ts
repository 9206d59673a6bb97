// The file gate of one workspace (gate/file_gate.ts), built once when the workspace opens,
// before any tool, editor, mention or command touches a file: the grants, the deny lists, the
// protected set (whatever the flags: .git, .harness, plugin folders, harness's own folders,
// git's program paths), harness's data folder hidden but for this workspace's outputs and its
// config folder hidden but for the user's skills and plugins.

import { resolve } from "../platform/paths.ts";
import type { Settings } from "../config/settings.ts";
import {
  cacheDir,
  configDir,
  dataDir,
  type FolderEnv,
  homeDir,
  savedOutputsRoot,
  userPluginDir,
  workspaceDataDir,
} from "../config/folders.ts";
import { FileGate } from "../gate/file_gate.ts";
import { gateRules } from "../gate/protected_set.ts";
import type { GateRules } from "../gate/gate_types.ts";
import { builtinPluginDir } from "../plugin_loader/load_plugins.ts";
import { emptyGrants, type Grants } from "../sandbox/grants/grants.ts";

/** What a workspace's gate is built from. */
export interface WorkspaceGateOptions {
  settings: Pick<Settings, "plugins" | "namedPluginDirs" | "writableGit">;
  grants: Grants;
  cwd: string;
  /** The root of saved outputs (default: `<data>/outputs`). */
  outputsRoot?: string;
  env?: FolderEnv;
  /** Changes the rules before the gate is built (plan mode's plan folder in the data folder). */
  adjust?: (rules: GateRules) => GateRules;
}

/**
 * The plugin folders harness loads for a workspace: built-in, the user's, `./plugins`,
 * config `plugins` and `--plugins`.
 *
 * @example
 * ```ts
 * import { workspacePluginFolders } from "./workspace_gate.ts";
 * const folders = workspacePluginFolders({ plugins: ["tools"], namedPluginDirs: [] }, "/w", {});
 * if (!folders.includes("/w/plugins") || !folders.includes("/w/tools")) throw new Error();
 * ```
 */
export function workspacePluginFolders(
  settings: Pick<Settings, "plugins" | "namedPluginDirs">,
  cwd: string,
  env: FolderEnv = (name) => Deno.env.get(name),
): string[] {
  const user = userPluginDir(env);
  return [
    ...new Set([
      builtinPluginDir(),
      ...(user === undefined ? [] : [user]),
      resolve(cwd, "plugins"),
      ...[...settings.plugins, ...settings.namedPluginDirs].map((dir) => resolve(cwd, dir)),
    ]),
  ];
}

/**
 * The gate of a subcommand that writes a file the user named outside a run (`harness sessions
 * export --output FILE`): no grants apply (the user's own command line), but the protected set
 * and harness's data folder do, so harness never writes a session into `.git/hooks` or its own
 * folders for anyone.
 *
 * @param cwd The folder the command runs in.
 * @returns The gate.
 */
export function commandLineGate(cwd: string): FileGate {
  const everything = { read: true as const, write: true as const };
  return openWorkspaceGate({
    settings: { plugins: [], namedPluginDirs: [], writableGit: false },
    grants: { allow: { ...emptyGrants().allow, ...everything }, deny: emptyGrants().deny },
    cwd,
  });
}

/**
 * Builds the gate of a workspace.
 *
 * @param options Settings (plugin folders, `writable_git`), grants, the folder.
 * @returns The gate every file access for this workspace passes.
 */
export function openWorkspaceGate(options: WorkspaceGateOptions): FileGate {
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const { settings, grants, cwd } = options;
  const lookup = typeof env === "function" ? env : (name: string) => env[name];
  const xdgConfig = lookup("XDG_CONFIG_HOME");
  const home = homeDir(env);
  const adjust = options.adjust ?? ((rules: GateRules) => rules);
  return FileGate.open(adjust(gateRules({
    workspace: cwd,
    grants,
    pluginFolders: workspacePluginFolders(settings, cwd, env),
    harness: { config: configDir(env), data: dataDir(env), cache: cacheDir(env) },
    outputsDir: workspaceDataDir(options.outputsRoot ?? savedOutputsRoot(env), cwd),
    writableGit: settings.writableGit,
    home,
    gitConfigDir: resolve(xdgConfig || resolve(home, ".config"), "git"),
  })));
}
