// What a tool sees of the command sandbox (`ctx.spawn`, `ctx.commands`): starts processes
// confined by the grants and words what the sandbox did for the tool's result. In a tool
// worker, processes start on the host (`start`: processes/remote_process.ts); elsewhere (tests, the
// host itself) directly, their process groups reported through `onGroup`.

import type { CommandRunner, SpawnOptions } from "../../tools/define_tool.ts";
import {
  type CommandSandbox,
  describeCommandSandbox,
  spawnCommand,
  type SpawnRequest,
} from "./command_sandbox.ts";
import { GroupChild } from "./group_child.ts";
import { explainBlocked } from "./command_sandbox_report.ts";
import type { Grants } from "../grants/grants.ts";

/** The command sandbox as tools see it. */
export class CommandLauncher implements CommandRunner {
  readonly #sandbox: CommandSandbox;
  readonly #grants: Grants;
  readonly #workspace: string;
  readonly #start: (request: SpawnRequest) => Deno.ChildProcess;
  #warned = false;

  /**
   * @param options `start` starts a process (default: here, with `spawnCommand`, telling
   *   `onGroup` about its process group).
   */
  constructor(
    sandbox: CommandSandbox,
    options: {
      grants: Grants;
      workspace: string;
      onGroup?: (pid: number, running: boolean) => void;
      start?: (request: SpawnRequest) => Deno.ChildProcess;
    },
  ) {
    this.#sandbox = sandbox;
    this.#grants = options.grants;
    this.#workspace = options.workspace;
    this.#start = options.start ??
      ((request) =>
        new GroupChild(spawnCommand(sandbox, options.grants, request, options.onGroup)));
  }

  /** Whether processes run inside an OS sandbox. */
  get confined(): boolean {
    const { kind } = this.#sandbox.confinement;
    return kind === "bwrap" || kind === "sandbox-exec";
  }

  /** One line: how commands run (banner, /permissions, approval prompt). */
  get summary(): string {
    return describeCommandSandbox(this.#sandbox);
  }

  /** Whether the user granted every program (`--allow-run` without a list). */
  get runsAnyProgram(): boolean {
    return this.#grants.allow.run === true && this.#grants.deny.run !== true &&
      this.#grants.deny.run.length === 0;
  }

  /**
   * Starts a process in the sandbox as the leader of its own process group (`child.kill()`
   * stops all of it). Throws `CommandRefused` when command_sandbox is "required" and no
   * sandbox works here.
   */
  spawn(program: string, options: SpawnOptions = {}): Deno.ChildProcess {
    return this.#start({ ...options, program, cwd: options.cwd ?? this.#workspace });
  }

  /** The line for a result whose failure the sandbox explains (see command_sandbox_report.ts). */
  explain(output: string, cwd: string = this.#workspace): string | undefined {
    return explainBlocked(output, { sandbox: this.#sandbox, grants: this.#grants, cwd });
  }

  /** The first time a command runs unconfined in `auto` mode: one line saying so. */
  unconfinedWarning(): string | undefined {
    if (this.confined || this.#warned || this.#sandbox.mode !== "auto") return undefined;
    this.#warned = true;
    return `[warning: ${this.summary}]`;
  }
}
