// The host's side of `ctx.spawn`. Tool workers never hold Deno's `run` permission (a process
// is outside Deno's sandbox, so `run` would let plugin code start anything unconfined), so a
// worker asks its SandboxWorker, whose ProcessHost checks the request against the tool's run
// grant, starts it in the command sandbox (spawnCommand: the host can stat what --deny-read
// hides), answers through shared memory (spawn_reply.ts), then transfers the pipes.

import { basename, resolve } from "node:path";
import type { HostToWorker } from "./worker_protocol.ts";
import {
  type CommandSandbox,
  groupHasMembers,
  spawnCommand,
  type SpawnRequest,
} from "./command_sandbox.ts";
import { findProgram } from "./command_sandbox_probe.ts";
import { signalGroup, trackCommandGroup } from "./command_sandbox_groups.ts";
import type { Grants } from "./grants.ts";
import type { Grant } from "./permission_name.ts";
import { type SpawnReply, writeSpawnReply } from "./spawn_reply.ts";

/** What the host needs to start a worker's processes. */
export interface ProcessHostOptions {
  sandbox: CommandSandbox;
  grants: Grants;
  /** The tool's effective `run` grant (false: it did not declare one). */
  run: boolean | string[];
  /** Sends a message to the tool worker, transferring the streams it carries. */
  post(message: HostToWorker): void;
}

interface LiveProcess {
  child: Deno.ChildProcess;
  exited: boolean;
}

const STDIO = new Set(["piped", "null"]);
const SIGNAL = /^SIG[A-Z0-9]+$/;

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string");
}

/**
 * The request as sent, checked field by field (it comes from plugin code), or why not.
 * Standard streams are piped or null: "inherit" would hand a sandboxed process harness's
 * terminal (the approval prompt's keys) or its stdout (the -p answer, ACP messages).
 */
export function checkSpawnRequest(value: unknown): SpawnRequest | string {
  if (typeof value !== "object" || value === null) return "the request is not an object";
  const r = value as Record<string, unknown>;
  if (typeof r.program !== "string" || r.program === "") return "program must be a string";
  if (
    r.args !== undefined && !(Array.isArray(r.args) && r.args.every((a) => typeof a === "string"))
  ) {
    return "args must be a list of strings";
  }
  if (typeof r.cwd !== "string" || r.cwd === "") return "cwd must be a path";
  if (r.env !== undefined && !isStringRecord(r.env)) return "env must map names to strings";
  for (const name of ["stdin", "stdout", "stderr"] as const) {
    const mode = r[name];
    if (mode !== undefined && !STDIO.has(String(mode))) {
      return `${name} must be "piped" or "null" (got ${JSON.stringify(mode)}): a process does ` +
        "not share harness's terminal or output";
    }
  }
  if (r.windowsRawArguments !== undefined && typeof r.windowsRawArguments !== "boolean") {
    return "windowsRawArguments must be a boolean";
  }
  return r as unknown as SpawnRequest;
}

/**
 * Why `ctx.spawn` may not start `program`, or undefined when it may: the user's --deny-run
 * wins (matching by name too); then the tool's run grant `run` must allow it: any program
 * for `true`; with a list, an entry naming the program (`git`, or the path it resolves to),
 * as Deno's `--allow-run=git` would.
 *
 * @example
 * ```ts
 * import { runRefusal } from "./process_host.ts";
 * const options = { cwd: "/w", path: "/usr/bin:/bin" };
 * if (runRefusal(["cat"], [], "cat", options) !== undefined) throw new Error();
 * if (!runRefusal(["cat"], [], "sh", options)?.includes("only cat")) throw new Error();
 * if (!runRefusal(true, ["rm"], "/bin/rm", options)?.includes("--deny-run")) throw new Error();
 * ```
 */
export function runRefusal(
  run: boolean | Grant,
  denied: Grant,
  program: string,
  options: { cwd: string; path: string | undefined },
): string | undefined {
  const isPath = /[\\/]/.test(program);
  const resolved = isPath ? resolve(options.cwd, program) : findProgram(program, options.path);
  const head = `ctx.spawn cannot start "${program}"`;
  const name = basename(program);
  if (
    denied === true ||
    denied.some((entry) => entry === program || entry === resolved || entry === name)
  ) {
    return `${head}: --deny-run forbids it`;
  }
  if (run === true) return undefined;
  if (
    run !== false && run.some((e) => e === program || (resolved !== undefined && e === resolved))
  ) {
    return undefined;
  }
  const allowed = run === false || run.length === 0 ? "no program" : `only ${run.join(", ")}`;
  return `${head}: the tool's run permission, within --allow-run, allows ${allowed}`;
}

/** Starts, signals and stops the processes of one tool worker. */
export class ProcessHost {
  readonly #options: ProcessHostOptions;
  readonly #live = new Map<number, LiveProcess>();

  constructor(options: ProcessHostOptions) {
    this.#options = options;
  }

  /** Starts the process a worker asked for; the answer goes to `reply`. */
  spawn(id: number, value: unknown, reply: SharedArrayBuffer): void {
    const answer = (message: SpawnReply) => writeSpawnReply(reply, message);
    if (this.#live.has(id)) {
      answer({ ok: false, name: "TypeError", message: `process id ${id} is already in use` });
      return;
    }
    const request = checkSpawnRequest(value);
    if (typeof request === "string") {
      answer({ ok: false, name: "TypeError", message: `Cannot start the process: ${request}` });
      return;
    }
    const { grants, sandbox } = this.#options;
    const refused = runRefusal(this.#options.run, grants.deny.run, request.program, {
      cwd: request.cwd,
      path: sandbox.env.PATH,
    });
    if (refused !== undefined) {
      answer({ ok: false, name: "NotCapable", message: refused });
      return;
    }
    let child: Deno.ChildProcess;
    try {
      child = spawnCommand(sandbox, grants, request, trackCommandGroup);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      answer({ ok: false, name: e.name, message: e.message });
      return;
    }
    const live: LiveProcess = { child, exited: false };
    this.#live.set(id, live);
    answer({ ok: true, pid: child.pid });
    this.#options.post({
      type: "process",
      process: id,
      ...(request.stdin === "piped" ? { stdin: child.stdin } : {}),
      ...((request.stdout ?? "piped") === "piped" ? { stdout: child.stdout } : {}),
      ...((request.stderr ?? "piped") === "piped" ? { stderr: child.stderr } : {}),
    });
    void child.status.then((status) => {
      live.exited = true;
      if (this.#live.get(id) !== live) return; // stopped with its worker
      this.#options.post({ type: "exited", process: id, status });
      this.#forgetIfDone(id, live);
    });
  }

  /** Signals the process group of process `id` (one this worker started), if it still runs. */
  signal(id: number, signal: unknown): void {
    const live = this.#live.get(id);
    if (!live) return;
    const valid = (typeof signal === "string" && SIGNAL.test(signal)) ||
      (typeof signal === "number" && Number.isInteger(signal) && signal > 0 && signal < 65);
    if (!valid) return;
    signalGroup(live.child.pid, signal as Deno.Signal | number);
    this.#forgetIfDone(id, live);
  }

  /** Kills every process group this worker started (it is stopped or replaced). */
  stopAll(): void {
    for (const live of this.#live.values()) {
      signalGroup(live.child.pid, "SIGKILL");
      trackCommandGroup(live.child.pid, false);
    }
    this.#live.clear();
  }

  /** Forgets a process whose group has ended, so a reused pid is never signalled. */
  #forgetIfDone(id: number, live: LiveProcess): void {
    if (!live.exited || groupHasMembers(live.child.pid)) return;
    this.#live.delete(id);
    trackCommandGroup(live.child.pid, false);
  }
}
