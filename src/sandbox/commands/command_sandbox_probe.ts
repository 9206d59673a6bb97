// Which command sandbox works here, checked once at start on the host: bubblewrap on Linux
// (it must create namespaces: user namespaces can be disabled), sandbox-exec on macOS, none
// on Windows; with it, what stays read-only inside the write grants, bubblewrap's seccomp
// filter and whether descriptors above 2 can be closed. The answer goes to every tool worker.

import { delimiter, dirname, join } from "../../platform/paths.ts";
import type { Grants } from "../grants/grants.ts";
import type { CommandSandbox, CommandSandboxMode, Confinement } from "./command_sandbox.ts";
import { commandEnvironment, commandRules } from "./command_sandbox_rules.ts";
import { commandProtection, protectionFromGate } from "./command_sandbox_protection.ts";
import type { GateRules } from "../../gate/gate_types.ts";
import { harnessHiddenFolders } from "../../gate/protected_set.ts";
import { type SeccompSetup, seccompSetup } from "./command_sandbox_seccomp.ts";
import { closeExtraFdsOnExec } from "./stdio_only.ts";
import { cacheDir, configDir, dataDir } from "../../config/folders.ts";

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** An executable named `name` on `path` (a PATH value), or undefined. */
export function findProgram(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return candidate;
    } catch { /* not here */ }
  }
  return undefined;
}

/** The first non-empty line of a program's error output, for a one-line reason. */
function firstLine(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes).trim();
  return text.split("\n").find((line) => line.trim() !== "")?.trim() ?? "no error output";
}

async function tryRun(program: string, args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      clearEnv: true,
    }).output();
    return out.success ? undefined : `${firstLine(out.stderr)} (exit ${out.code})`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Finds out which confinement works here: bubblewrap on Linux (it must start a sandbox with
 * new namespaces: user namespaces can be disabled), sandbox-exec on macOS, none on Windows.
 *
 * @param mode The configured mode; `off` never probes.
 * @param options `grants` and `env` make the clean environment; `os` defaults to this one;
 *   `bwrap` overrides the program found on `env.PATH` (tests). `workspace` (default: the
 *   cwd), `pluginFolders` and `writableGit` decide what stays read-only inside the write
 *   grants, with harness's own folders (from `env`; its data and config folders are hidden);
 *   `gateRules`, when given, decides all of that instead (gate/protected_set.ts).
 * @returns The sandbox to hand to workers; `confinement.reason` says in one line why
 *   commands run unconfined.
 */
export async function probeCommandSandbox(
  mode: CommandSandboxMode,
  options: {
    grants: Grants;
    env: Record<string, string>;
    os?: typeof Deno.build.os;
    bwrap?: string;
    workspace?: string;
    pluginFolders?: readonly string[];
    writableGit?: boolean;
    /** The file gate's rules: its protected set and hidden folders (over the three above). */
    gateRules?: GateRules;
  },
): Promise<CommandSandbox> {
  const env = commandEnvironment(options.grants, options.env);
  const os = options.os ?? Deno.build.os;
  const rules = commandRules(options.grants);
  const workspace = options.workspace ?? Deno.cwd();
  const own = [configDir(options.env), cacheDir(options.env)];
  const protection = options.gateRules
    ? protectionFromGate(options.gateRules, workspace)
    : commandProtection({
      workspace,
      writeRoots: rules.writeAll ? [] : rules.write,
      folders: [...(options.pluginFolders ?? []), ...own.filter((dir) => dir !== undefined)],
      writableGit: options.writableGit ?? false,
      hidden: harnessHiddenFolders(
        { config: configDir(options.env), data: dataDir(options.env) },
        { workspace },
      ),
    });
  const sandbox = (confinement: Confinement, seccomp?: SeccompSetup): CommandSandbox => ({
    mode,
    confinement,
    env,
    protection: seccomp && "file" in seccomp
      ? { ...protection, folders: [...protection.folders, dirname(seccomp.file)] }
      : protection,
    network: rules.net,
    stdioOnly: closeExtraFdsOnExec(),
    ...(seccomp ? { seccomp } : {}),
  });
  if (mode === "off") {
    return sandbox({ kind: "none", reason: 'command_sandbox is "off"' });
  }
  if (os === "linux") {
    const bwrap = options.bwrap ?? findProgram("bwrap", options.env.PATH);
    if (bwrap === undefined) {
      return sandbox({
        kind: "none",
        reason: "bubblewrap (bwrap) is not installed: install the bubblewrap package",
      });
    }
    const failure = await tryRun(bwrap, [
      "--unshare-all",
      "--die-with-parent",
      "--new-session",
      "--cap-drop",
      "ALL",
      "--ro-bind",
      "/",
      "/",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "true",
    ]);
    if (failure !== undefined) {
      return sandbox({
        kind: "none",
        reason:
          `bubblewrap cannot create a sandbox here (are user namespaces disabled?): ${failure}`,
      });
    }
    return sandbox({ kind: "bwrap", program: bwrap }, await seccompSetup(bwrap));
  }
  if (os === "darwin") {
    const failure = await tryRun(SANDBOX_EXEC, [
      "-p",
      "(version 1)(allow default)",
      "/usr/bin/true",
    ]);
    if (failure !== undefined) {
      return sandbox({ kind: "none", reason: `sandbox-exec does not work here: ${failure}` });
    }
    return sandbox({ kind: "sandbox-exec", program: SANDBOX_EXEC });
  }
  return sandbox({
    kind: "none",
    reason: `harness has no command sandbox on ${os}: commands run with your user's rights`,
  });
}

/**
 * The sandbox of plan mode: `sandbox` with the scratch folders (grants/plan_mode_grants.ts) that
 * commands write into a throwaway overlay. Whether bubblewrap can mount them here is tried once,
 * with every folder (0.9 added overlays; a setuid bubblewrap refuses them; a folder's file
 * system may not serve as an overlay's lower layer); without overlays the folders are
 * read-only and builds that write there fail, but nothing persists either way. The grants
 * given with it must be plan mode's too.
 *
 * @param sandbox The sandbox probed at start.
 * @param scratch The folders that were writable.
 * @returns A copy of `sandbox` with `scratch` set.
 */
export async function withScratch(
  sandbox: CommandSandbox,
  scratch: readonly string[],
): Promise<CommandSandbox> {
  const { confinement } = sandbox;
  const folders = scratch.filter((path) => {
    try {
      return Deno.statSync(path).isDirectory;
    } catch {
      return false;
    }
  });
  let overlay = false;
  if (confinement.kind === "bwrap" && folders.length > 0) {
    const base = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/"];
    const overlays = folders.flatMap((path) => ["--overlay-src", path, "--tmp-overlay", path]);
    const failure = await tryRun(confinement.program, [
      ...base,
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      ...overlays,
      "true",
    ]);
    overlay = failure === undefined;
  }
  return { ...sandbox, scratch: { paths: [...scratch], overlay } };
}
