// The diagnostics of a workspace's edits (src/diagnostics/): the syntax check, always, and
// the language servers the user configured for other agents (`lsp`: true), found once when
// the workspace opens (a project's files asked about as project plugins are). A server starts
// on the first edit of a file it handles, in the command sandbox: it reads what the user's
// grants let commands read and its own installation, writes only its cache folder, and has no
// network. harness never downloads a server; without a sandbox none starts.

import { dirname, isAbsolute, join, relative } from "node:path";
import type { Settings } from "../config/settings.ts";
import { cacheDir } from "../config/folders.ts";
import type { Grants } from "../sandbox/grants.ts";
import { emptyGrants } from "../sandbox/grants.ts";
import { type CommandSandbox, spawnCommand } from "../sandbox/command_sandbox.ts";
import { findProgram } from "../sandbox/command_sandbox_probe.ts";
import { trackCommandGroup } from "../sandbox/command_sandbox_groups.ts";
import { GroupChild } from "../sandbox/group_child.ts";
import { checkProjectTrust, type TrustIO } from "../permissions/project_trust.ts";
import { EditDiagnostics } from "../diagnostics/edit_diagnostics.ts";
import { LanguageServers } from "../diagnostics/language_servers.ts";
import type { LspServerConfig } from "../diagnostics/lsp_config.ts";
import { findLspServers } from "../diagnostics/lsp_sources.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { readGatedTextFile } from "../gate/gated_files.ts";

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
 * What a language server may touch: read what commands may read, and the folder its program
 * is installed in; write only its own cache folder; no network.
 */
export function serverGrants(user: Grants, program: string, cache: string): Grants {
  const grants = emptyGrants();
  const install = dirname(dirname(program));
  grants.allow.read = user.allow.read === true ? true : [...user.allow.read, install, cache];
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
  const found = config.command.includes("/")
    ? config.command
    : findProgram(config.command, sandbox.env.PATH ?? Deno.env.get("PATH"));
  if (found === undefined) throw new Error(`"${config.command}" is not installed (not on PATH)`);
  const program = await Deno.realPath(found).catch(() => found);
  const cache = join(cacheDir() ?? join(options.cwd, ".cache"), "lsp", config.name);
  await Deno.mkdir(cache, { recursive: true, mode: 0o700 });
  return new GroupChild(spawnCommand(
    sandbox,
    serverGrants(options.grants, program, cache),
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
  const home = Deno.env.get("HOME");
  const configHome = Deno.env.get("XDG_CONFIG_HOME");
  const found = findLspServers({
    workspace: options.cwd,
    ...(home ? { home } : {}),
    ...(configHome ? { configHome } : {}),
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
      })).load,
  });
  const servers = new LanguageServers({
    servers: found.then((read) => read.servers, () => []),
    workspace: options.cwd,
    start: (config) => startServer(config, options),
    timeoutMs: options.settings.lspTimeout,
  });
  return new EditDiagnostics({ workspace: options.cwd, servers });
}
