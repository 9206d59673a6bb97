// The command sandbox: processes that tools start (run_command, `ctx.spawn`) run under the
// operating system's sandbox built from the user's grants (command_sandbox_rules.ts). The
// host checks once at start which confinement works here (`probeCommandSandbox`) and sends
// the answer to the tool workers; they have no `run` permission, so the host starts every
// process (process_host.ts) through `spawnCommand`, with only stdin, stdout and stderr open.

import { delimiter, join } from "node:path";
import type { Grants } from "./grants.ts";
import { signalGroup } from "./command_sandbox_groups.ts";
import { closeExtraFdsOnExec } from "./stdio_only.ts";
import {
  bwrapArguments,
  commandEnvironment,
  commandRules,
  sandboxExecProfile,
} from "./command_sandbox_rules.ts";

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
 *   `bwrap` overrides the program found on `env.PATH` (tests).
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
  },
): Promise<CommandSandbox> {
  const env = commandEnvironment(options.grants, options.env);
  const os = options.os ?? Deno.build.os;
  const sandbox = (confinement: Confinement): CommandSandbox => ({ mode, confinement, env });
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
    return sandbox({ kind: "bwrap", program: bwrap });
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
 * One line for the banner, `/permissions` and the approval prompt: whether commands run
 * confined, and by what.
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
      return "commands: confined by bubblewrap (writes, reads and network as the flags grant)";
    case "sandbox-exec":
      return "commands: confined by sandbox-exec (writes, reads and network as the flags grant)";
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
 * import { emptyGrants } from "./grants.ts";
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
  switch (confinement.kind) {
    case "bwrap":
      // The private /tmp is the only temp folder a command can write.
      if (!commandRules(grants).writeAll) env.TMPDIR = "/tmp";
      return {
        program: confinement.program,
        args: [...bwrapArguments(grants, { cwd: request.cwd }), "--", request.program, ...args],
        env,
      };
    case "sandbox-exec":
      return {
        program: confinement.program,
        args: ["-p", sandboxExecProfile(grants), request.program, ...args],
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
 * host: tool workers have no `run` permission and ask for processes (process_host.ts).
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

/**
 * A started process as `ctx.spawn` returns it: Deno's child, except that `kill` signals its
 * whole process group (everything the command started), not only the process itself.
 */
export class GroupChild implements Deno.ChildProcess {
  readonly pid: number;
  readonly status: Promise<Deno.CommandStatus>;
  readonly #child: Deno.ChildProcess;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.pid = child.pid;
    this.status = child.status;
  }

  get stdin(): WritableStream<Uint8Array> {
    return this.#child.stdin;
  }

  get stdout(): Deno.SubprocessReadableStream {
    return this.#child.stdout;
  }

  get stderr(): Deno.SubprocessReadableStream {
    return this.#child.stderr;
  }

  output(): Promise<Deno.CommandOutput> {
    return this.#child.output();
  }

  /** Sends `signo` (default SIGTERM) to the process group; nothing once it is gone. */
  kill(signo: Deno.Signal | number = "SIGTERM"): void {
    signalGroup(this.pid, signo);
  }

  ref(): void {
    this.#child.ref();
  }

  unref(): void {
    this.#child.unref();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.kill("SIGKILL");
    await this.status;
  }
}
