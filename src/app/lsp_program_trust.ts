// The files a language server runs from the workspace or a write grant: its program (`./lsp.sh`,
// or a relative command any config names, which resolves in the workspace) and the files its
// arguments name (`node ./tools/lsp.js`). A repository ships them and the model can rewrite them,
// so trusting a `.lsp.json` does not vouch for them: they start a server only once their bytes
// are trusted (asked with the configs in the REPL, as project plugins are), and a file changed
// since keeps its server from starting, saying so. Programs installed elsewhere need nothing.

import { isAbsolute, relative, resolve } from "../platform/paths.ts";
import type { LspServerConfig } from "../diagnostics/lsp_config.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { findProgram } from "../sandbox/commands/command_sandbox_probe.ts";
import { checkProjectTrust, trustedHash, type TrustIO } from "../permissions/project_trust.ts";

/** How the trust question names these files. */
const PROGRAM_WORDING = {
  noun: "language server program",
  why: "Language servers would run these files of this folder, which the model can change",
  question: "Trust them as they are now and run them when files are edited?",
  withoutTrust: "Not starting their servers",
  skipping: "Skipping",
};

function holds(folder: string, path: string): boolean {
  const inside = relative(folder, path);
  return inside === "" || (!inside.startsWith("..") && !isAbsolute(inside));
}

function realFile(path: string): string | undefined {
  try {
    const real = Deno.realPathSync(path);
    return Deno.statSync(real).isFile ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The files of the workspace or a write grant a server would run: its program and the existing
 * files its arguments name (links resolved).
 *
 * @param config The server.
 * @param places The workspace, the grants, and PATH as the command sandbox has it.
 */
export function serverWorkspaceFiles(
  config: LspServerConfig,
  places: { cwd: string; grants: Grants; path: string | undefined },
): string[] {
  const { cwd, grants } = places;
  const writable = grants.allow.write === true ? [] : grants.allow.write;
  const kept = (path: string) =>
    grants.allow.write === true || holds(cwd, path) || writable.some((w) => holds(w, path));
  const program = config.command.includes("/")
    ? resolve(cwd, config.command)
    : findProgram(config.command, places.path);
  const named = config.args.filter((arg) => arg.includes("/") || /\.\w+$/.test(arg))
    .map((arg) => resolve(cwd, arg.replace(/^--?[\w-]+=/, "")));
  const files = [program, ...named].flatMap((path) => {
    const real = path === undefined ? undefined : realFile(path);
    return real !== undefined && kept(real) ? [real] : [];
  });
  return [...new Set(files)];
}

/**
 * Asks, once for every server, about the workspace files they run (the REPL asks; elsewhere
 * they are skipped with a line), and keeps the servers whose files are all trusted.
 *
 * @returns The servers that may start.
 */
export async function serversWithTrustedPrograms(
  servers: readonly LspServerConfig[],
  options: {
    files: (config: LspServerConfig) => string[];
    io: TrustIO;
    interactive: boolean;
    cwd: string;
    storeFile?: string;
  },
): Promise<LspServerConfig[]> {
  const all = [...new Set(servers.flatMap(options.files))];
  if (all.length === 0) return [...servers];
  const trust = await checkProjectTrust(all, {
    io: options.io,
    interactive: options.interactive,
    cwd: options.cwd,
    wording: PROGRAM_WORDING,
    ...(options.storeFile ? { storeFile: options.storeFile } : {}),
  });
  const loaded = new Set(trust.load);
  return servers.filter((config) => options.files(config).every((file) => loaded.has(file)));
}

/**
 * Throws when a file the server runs from the workspace changed since it was trusted: the
 * model (or a command) rewrote it after the question.
 */
export async function checkProgramsUnchanged(
  files: readonly string[],
  options: { cwd: string; storeFile?: string },
): Promise<void> {
  for (const file of files) {
    // Trust is bound to the workspace it was given in (issue 38), not harness's own folder.
    const trusted = await trustedHash(file, {
      workspace: options.cwd,
      ...(options.storeFile ? { storeFile: options.storeFile } : {}),
    });
    if ("error" in trusted) {
      const shown = relative(options.cwd, file) || file;
      throw new Error(`it would run "${shown}", which ${trusted.error}`);
    }
  }
}
