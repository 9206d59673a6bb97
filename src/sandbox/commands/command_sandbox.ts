// The command sandbox: processes that tools start (run_command, `ctx.spawn`) run under the
// operating system's sandbox built from the user's grants (command_sandbox_rules.ts). The host
// checks once at start which confinement works here (command_sandbox_probe.ts) and sends the answer
// to the tool workers; they have no `run` permission, so the host starts every process
// (processes/process_host.ts) through `spawnCommand`, with only stdin, stdout and stderr.

import type { Grants } from "../grants/grants.ts";
import { closeExtraFdsOnExec } from "./stdio_only.ts";
import {
  bwrapArguments,
  commandRules,
  type CommandScratch,
  sandboxExecProfile,
} from "./command_sandbox_rules.ts";
import { type CommandProtection, readOnlyPaths } from "./command_sandbox_protection.ts";
import { type SeccompSetup, withSeccomp } from "./command_sandbox_seccomp.ts";

/** `command_sandbox` in config, `--command-sandbox` on the command line. */
export type CommandSandboxMode = "auto" | "required" | "off";

/** How commands are confined here; decided by the host, cloned to every tool worker. */
export type Confinement =
  | { kind: "bwrap"; program: string }
  | { kind: "sandbox-exec"; program: string }
  | { kind: "none"; reason: string }
  /** Not checked: without --allow-run no command can start. */
  | { kind: "unused" };

/** What a worker needs to start confined processes. */
export interface CommandSandbox {
  mode: CommandSandboxMode;
  confinement: Confinement;
  /** The clean environment a command starts with (command_sandbox_rules.ts). */
  env: Record<string, string>;
  /** What stays read-only inside the write grants (command_sandbox_protection.ts). */
  protection?: CommandProtection;
  /** bubblewrap's filter against Unix sockets, for commands that share the network. */
  seccomp?: SeccompSetup;
  /** Whether commands share the network (--allow-net), which the filter is for. */
  network?: boolean;
  /** Whether descriptors above 2 are closed for commands (stdio_only.ts). */
  stdioOnly?: boolean;
  /** Plan mode: folders commands write into a throwaway copy of (grants/plan_mode_grants.ts). */
  scratch?: CommandScratch;
}

/**
 * A process to start, as in `Deno.Command` (`env` is added to the clean environment). Its
 * standard streams are piped or closed, never harness's own (its terminal, its stdout).
 */
export interface SpawnRequest {
  program: string;
  args?: string[];
  cwd: string;
  env?: Record<string, string>;
  stdin?: "piped" | "null";
  stdout?: "piped" | "null";
  stderr?: "piped" | "null";
  windowsRawArguments?: boolean;
}

/** A failure to start a process the sandbox explains; run_command turns it into a result. */
export class CommandRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandRefused";
  }
}

/** What a confined command cannot do besides the grants, in a few words each. */
function protections(sandbox: CommandSandbox): string[] {
  const parts = ["reads, writes and network as the flags grant"];
  if (sandbox.protection) {
    parts.push(
      sandbox.protection.writableGit
        ? ".git writable (--writable-git)"
        : ".git read-only (--writable-git lets commands commit)",
      ".harness, plugin and harness folders read-only",
    );
    if (sandbox.protection.hidden?.length) parts.push("harness's data and config folders hidden");
  }
  if (sandbox.stdioOnly) parts.push("only stdin, stdout and stderr inherited");
  if (sandbox.scratch) {
    parts.push(
      sandbox.scratch.overlay && sandbox.confinement.kind === "bwrap"
        ? "plan mode: what commands write in the workspace is thrown away"
        : "plan mode: the workspace is read-only (bubblewrap 0.9 or later lets builds write a throwaway copy)",
    );
  }
  if (sandbox.network && sandbox.confinement.kind === "bwrap") {
    const seccomp = sandbox.seccomp;
    parts.push(
      seccomp && "file" in seccomp
        ? "no Unix sockets (with the network, abstract ones would reach the host's)"
        : `abstract Unix sockets (X11, D-Bus) reachable: ${seccomp?.reason ?? "no filter"}`,
    );
  }
  return parts;
}

/**
 * One line for the banner, `/permissions` and the approval prompt: whether commands run
 * confined, by what, and what that stops besides the grants.
 *
 * @example
 * ```ts
 * import { describeCommandSandbox } from "./command_sandbox.ts";
 * const line = describeCommandSandbox({ mode: "off", confinement: { kind: "none", reason: "x" }, env: {} });
 * if (!line.includes("unconfined")) throw new Error(line);
 * ```
 */
export function describeCommandSandbox(sandbox: CommandSandbox): string {
  const { confinement } = sandbox;
  switch (confinement.kind) {
    case "bwrap":
      return `commands: confined by bubblewrap (${protections(sandbox).join("; ")})`;
    case "sandbox-exec":
      return `commands: confined by sandbox-exec (${protections(sandbox).join("; ")})`;
    case "unused":
      return "commands: none can start (no --allow-run)";
    case "none":
      return sandbox.mode === "required"
        ? `commands: refused (command_sandbox is "required"): ${confinement.reason}`
        : `commands: unconfined, they can do anything your user can: ${confinement.reason}`;
    default: {
      const never: never = confinement;
      throw new Error(`unknown confinement ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The program and arguments that start `request` inside the sandbox, with the clean
 * environment. Throws {@link CommandRefused} in `required` mode when there is no sandbox.
 *
 * @example
 * ```ts
 * import { commandLaunch } from "./command_sandbox.ts";
 * import { emptyGrants } from "../grants/grants.ts";
 * const launch = commandLaunch(
 *   { mode: "auto", confinement: { kind: "bwrap", program: "/usr/bin/bwrap" }, env: { PATH: "/bin" } },
 *   emptyGrants(),
 *   { program: "sh", args: ["-c", "true"], cwd: "/w" },
 * );
 * if (launch.program !== "/usr/bin/bwrap" || launch.args.at(-3) !== "sh") throw new Error();
 * ```
 */
export function commandLaunch(
  sandbox: CommandSandbox,
  grants: Grants,
  request: SpawnRequest,
): { program: string; args: string[]; env: Record<string, string> } {
  const args = request.args ?? [];
  const { confinement } = sandbox;
  const env = { ...sandbox.env, ...request.env };
  const rules = commandRules(grants);
  // Checked for each command: a repository or folder made since the start is kept too.
  const readOnly = sandbox.protection ? readOnlyPaths(sandbox.protection, rules) : [];
  const hidden = sandbox.protection?.hidden ?? [];
  switch (confinement.kind) {
    case "bwrap": {
      // The private /tmp is the only temp folder a command can write.
      if (!rules.writeAll) env.TMPDIR = "/tmp";
      const bwrapArgs = [
        ...bwrapArguments(grants, {
          cwd: request.cwd,
          readOnly,
          hidden,
          ...(sandbox.scratch ? { scratch: sandbox.scratch } : {}),
        }),
        "--",
        request.program,
        ...args,
      ];
      const seccomp = sandbox.seccomp;
      if (rules.net && seccomp && "file" in seccomp) {
        return { ...withSeccomp(seccomp.file, confinement.program, bwrapArgs), env };
      }
      return { program: confinement.program, args: bwrapArgs, env };
    }
    case "sandbox-exec":
      return {
        program: confinement.program,
        args: ["-p", sandboxExecProfile(grants, { readOnly, hidden }), request.program, ...args],
        env,
      };
    case "unused":
      throw new CommandRefused(`Cannot run "${request.program}": harness has no --allow-run`);
    case "none":
      if (sandbox.mode === "required") {
        throw new CommandRefused(
          `Cannot run "${request.program}" confined: ${confinement.reason}; command_sandbox is ` +
            `"required", so it does not run unconfined (use --command-sandbox=auto to allow that)`,
        );
      }
      return { program: request.program, args, env };
    default: {
      const never: never = confinement;
      throw new Error(`unknown confinement ${JSON.stringify(never)}`);
    }
  }
}

/** Whether anything still runs in the process group `pid` led. */
export function groupHasMembers(pid: number): boolean {
  if (Deno.build.os === "windows") return false;
  try {
    Deno.kill(-pid, "SIGCONT"); // harmless to running processes; fails when the group is empty
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `request` in the sandbox as the leader of a new session and process group, so
 * `Deno.kill(-child.pid, signal)` stops everything it started, with only stdin, stdout and
 * stderr open. On Linux the sandbox also dies with the thread that started it. Runs on the
 * host: tool workers have no `run` permission and ask for processes (processes/process_host.ts).
 *
 * @param onGroup Told the group id when the process starts and when it ends (the host
 *   stops live groups when harness exits).
 */
export function spawnCommand(
  sandbox: CommandSandbox,
  grants: Grants,
  request: SpawnRequest,
  onGroup?: (pid: number, running: boolean) => void,
): Deno.ChildProcess {
  const launch = commandLaunch(sandbox, grants, request);
  closeExtraFdsOnExec();
  const child = new Deno.Command(launch.program, {
    args: launch.args,
    cwd: request.cwd,
    env: launch.env,
    clearEnv: true,
    stdin: request.stdin ?? "null",
    stdout: request.stdout ?? "piped",
    stderr: request.stderr ?? "piped",
    detached: Deno.build.os !== "windows",
    ...(request.windowsRawArguments ? { windowsRawArguments: true } : {}),
  }).spawn();
  if (onGroup) {
    onGroup(child.pid, true);
    // A background job can outlive the process that started it, in the same group: the group
    // stays reported while anything in it runs, so harness stops it when it exits.
    child.status.finally(() => {
      if (!groupHasMembers(child.pid)) onGroup(child.pid, false);
    });
  }
  return child;
}
