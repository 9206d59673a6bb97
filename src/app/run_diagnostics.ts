// The diagnostics of a workspace's edits (src/diagnostics/): the syntax check, always, and
// the language servers the user configured for other agents (`lsp`: true), found once when
// the workspace opens (a project's files asked about as project plugins are). A server starts
// on the first edit of a file it handles, in the command sandbox: it reads what the user's
// grants let commands read and its own installation, writes only its cache folder, and has no
// network. harness never downloads a server; without a sandbox none starts.

import { dirname, isAbsolute, join, relative, resolve } from "../platform/paths.ts";
import type { Settings } from "../config/settings.ts";
import { cacheDir } from "../config/folders.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { emptyGrants } from "../sandbox/grants/grants.ts";
import { type CommandSandbox, spawnCommand } from "../sandbox/commands/command_sandbox.ts";
import { findProgram } from "../sandbox/commands/command_sandbox_probe.ts";
import { trackCommandGroup } from "../sandbox/commands/command_sandbox_groups.ts";
import { GroupChild } from "../sandbox/commands/group_child.ts";
import { checkProjectTrust, type TrustIO } from "../permissions/project_trust.ts";
import { EditDiagnostics } from "../diagnostics/edit_diagnostics.ts";
import { LanguageServers } from "../diagnostics/language_servers.ts";
import type { LspServerConfig } from "../diagnostics/lsp_config.ts";
import { findLspServers } from "../diagnostics/lsp_sources.ts";
import { userPlacesFromEnv } from "../diagnostics/lsp_config_paths.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { readGatedTextFile } from "../gate/gated_files.ts";
import {
  checkProgramsUnchanged,
  serversWithTrustedPrograms,
  serverWorkspaceFiles,
} from "./lsp_program_trust.ts";

/** What a workspace's diagnostics are opened with. */
export interface RunDiagnosticsOptions {
  settings: Pick<Settings, "lsp" | "lspTimeout">;
  grants: Grants;
  cwd: string;
  sandbox: Promise<CommandSandbox>;
  io: TrustIO;
  interactive: boolean;
  /** The workspace's file gate: the workspace's own config files are read through it. */
  gate: FileGate;
  /** The trust store (tests); default trustStoreFile(). */
  trustStore?: string;
  /**
   * Where the user's own configs are looked for (tests): default the HOME and
   * XDG_CONFIG_HOME variables.
   */
  userPlaces?: { home?: string; configHome?: string };
}

/** How the trust question names a project's language server files. */
const LSP_WORDING = {
  noun: "language server config",
  why: "Language server configs start programs from this folder's settings",
  question: "Trust them and start their servers when files are edited?",
  withoutTrust: "Not starting their servers",
  skipping: "Skipping",
};

/**
 * The folder a server's program is installed in (its package: the folder above its `bin`), or
 * undefined. Never a folder that holds the workspace or the home folder: a program in the
 * workspace (`./lsp.sh`) or at the top of the home folder would otherwise read the projects
 * beside the workspace, the whole home folder or, for `/x`, everything.
 */
function installFolder(program: string, workspace: string): string | undefined {
  const home = Deno.env.get("HOME");
  const holds = (folder: string, path: string) => {
    const inside = relative(folder, path);
    return inside === "" || (!inside.startsWith("..") && !isAbsolute(inside));
  };
  for (const folder of [dirname(dirname(program)), dirname(program)]) {
    if (holds(folder, workspace) || (home && holds(folder, home))) continue;
    return folder;
  }
  return undefined;
}

/**
 * What a language server may touch: read what commands may read, and the folder its program
 * is installed in (see installFolder); write only its own cache folder; no network.
 *
 * @param user The session's grants.
 * @param program The server's program, links resolved.
 * @param cache Its cache folder.
 * @param workspace The workspace (default: the folder harness runs in).
 */
export function serverGrants(
  user: Grants,
  program: string,
  cache: string,
  workspace = Deno.cwd(),
): Grants {
  const grants = emptyGrants();
  const install = installFolder(program, workspace);
  grants.allow.read = user.allow.read === true
    ? true
    : [...user.allow.read, ...(install ? [install] : []), cache];
  grants.deny.read = user.deny.read;
  grants.allow.write = [cache];
  grants.allow.env = user.allow.env;
  return grants;
}

/** Starts a server's process in the command sandbox, or says why it cannot start. */
export async function startServer(
  config: LspServerConfig,
  options: Omit<RunDiagnosticsOptions, "gate">,
): Promise<Deno.ChildProcess> {
  const sandbox = await options.sandbox;
  const kind = sandbox.confinement.kind;
  if (kind !== "bwrap" && kind !== "sandbox-exec") {
    throw new Error("language servers start only in the command sandbox, and none works here");
  }
  // A relative command is the workspace's (an editor's workspace need not be harness's folder).
  const found = config.command.includes("/")
    ? resolve(options.cwd, config.command)
    : findProgram(config.command, sandbox.env.PATH ?? Deno.env.get("PATH"));
  if (found === undefined) throw new Error(`"${config.command}" is not installed (not on PATH)`);
  const program = await Deno.realPath(found).catch(() => found);
  const cache = join(cacheDir() ?? join(options.cwd, ".cache"), "lsp", config.name);
  await Deno.mkdir(cache, { recursive: true, mode: 0o700 });
  return new GroupChild(spawnCommand(
    sandbox,
    serverGrants(options.grants, program, cache, options.cwd),
    {
      program: found,
      args: config.args,
      cwd: options.cwd,
      env: { ...config.env, XDG_CACHE_HOME: cache },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    },
    trackCommandGroup,
  ));
}

function isInside(folder: string, path: string): boolean {
  const inside = relative(folder, path);
  return !inside.startsWith("..") && !isAbsolute(inside);
}

/**
 * The diagnostics engine of a workspace. Configured servers are looked for now (the project's
 * files asked about in the REPL, skipped elsewhere); none starts before an edit needs it.
 */
export function openRunDiagnostics(options: RunDiagnosticsOptions): EditDiagnostics {
  if (!options.settings.lsp) return new EditDiagnostics({ workspace: options.cwd });
  const found = findLspServers({
    workspace: options.cwd,
    ...(options.userPlaces ?? userPlacesFromEnv()),
    // The workspace's files (a cloned repository's) through the gate; the user's own configs
    // (~/.claude, ~/.config/opencode) as harness reads its own.
    readFile: (path) =>
      isInside(options.cwd, path) ? readGatedTextFile(options.gate, path) : Deno.readTextFile(path),
    listDir: async (path) => (await Array.fromAsync(Deno.readDir(path))).map((e) => e.name),
    trusted: async (paths) =>
      (await checkProjectTrust(paths, {
        io: options.io,
        interactive: options.interactive,
        cwd: options.cwd,
        wording: LSP_WORDING,
        ...(options.trustStore ? { storeFile: options.trustStore } : {}),
      })).load,
  });
  // What a server runs from the workspace (a trusted config's ./lsp.sh, a file its arguments
  // name) is trusted by its own bytes, and checked again when the server starts.
  const trust = {
    cwd: options.cwd,
    ...(options.trustStore ? { storeFile: options.trustStore } : {}),
  };
  const filesOf = async () => {
    const path = (await options.sandbox).env.PATH ?? Deno.env.get("PATH");
    return (config: LspServerConfig) =>
      serverWorkspaceFiles(config, { cwd: options.cwd, grants: options.grants, path });
  };
  const servers = new LanguageServers({
    servers: found.then(async (read) =>
      serversWithTrustedPrograms(read.servers, {
        files: await filesOf(),
        io: options.io,
        interactive: options.interactive,
        ...trust,
      })
    ).catch(() => []),
    workspace: options.cwd,
    start: async (config) => {
      await checkProgramsUnchanged((await filesOf())(config), trust);
      return startServer(config, options);
    },
    timeoutMs: options.settings.lspTimeout,
  });
  return new EditDiagnostics({ workspace: options.cwd, servers });
}
