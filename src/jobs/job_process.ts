// One running command: its process (started in the command sandbox, where on Linux it has a
// PID namespace of its own), its output streamed into a JobLog, how it ended, and how it is
// stopped: SIGTERM to every process under it, then SIGKILL to those and its process group,
// so `&`, `nohup`, `setsid` and double forks go too. Also tells when it seems to wait for
// input: a process blocked reading the job's empty stdin, or a prompt printed and then quiet.

import {
  cpuTicks,
  descendants,
  readingStdin,
  signalEach,
  signalGroupOf,
  stdinOf,
  stillRunning,
} from "../platform/process_tree.ts";
import type { ExitStatus } from "./job_control.ts";
import { JobLog } from "./job_log.ts";

/** How long output pipes may stay open after the shell exits before leftovers are stopped. */
const PIPE_GRACE_MS = 300;
/** Quiet time after a prompt-like last line before a job is said to wait for input. */
const PROMPT_QUIET_MS = 2000;
/** Progress lines sent while a command runs: at most one per this many ms. */
const PROGRESS_MS = 100;
/** A last line that asks something: ends with `?`, `:`, `>`, `]` or `)` and no newline. */
const PROMPT = /[?:>\])]\s?$/;

/** How a job ended. */
export interface JobEnd {
  status: ExitStatus;
  at: number;
  /** harness stopped it (job_kill, timeout, the user's abort, the session's end). */
  stopped?: "killed" | "timeout" | "cancelled" | "session_end";
  /** Lines said after the output. */
  notes: string[];
}

/** Waits for `promise` at most `ms` milliseconds; true when it settled in time. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a stop waits for the processes it signalled to be gone after the sandbox is. */
const GONE_WAIT_MS = 2000;

/** A started command and its output. */
export class JobProcess {
  readonly child: Deno.ChildProcess;
  readonly log: JobLog;
  readonly startedAt: number;
  /** Resolves once the process and every output stream have ended. */
  readonly ended: Promise<JobEnd>;
  end: JobEnd | undefined;
  lastOutputAt: number;
  readonly #clock: () => number;
  readonly #killGraceMs: number;
  #stopping: JobEnd["stopped"];
  /** Settles on the next output or the end (renewed each time). */
  #pulse = Promise.withResolvers<void>();
  #stdinName: string | undefined;
  #readHits = 0;
  #cpu = -1;
  /** Held open and never written: a process that reads it waits, as at a silent terminal. */
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array> | undefined;

  constructor(
    child: Deno.ChildProcess,
    options: { log: JobLog; clock: () => number; killGraceMs: number; stdin: boolean },
  ) {
    this.child = child;
    this.log = options.log;
    this.#clock = options.clock;
    this.#killGraceMs = options.killGraceMs;
    this.startedAt = options.clock();
    this.lastOutputAt = this.startedAt;
    this.#stdin = options.stdin ? child.stdin.getWriter() : undefined;
    this.ended = this.#supervise();
  }

  /**
   * Waits for the end, the time limit or the abort, sending what it printed last (at most
   * one line each PROGRESS_MS) meanwhile.
   *
   * @param limitMs The time limit.
   * @param options Where progress goes; the user's abort.
   * @returns What came first.
   */
  async waitFor(
    limitMs: number,
    options: { onOutput?: (text: string) => void; signal?: AbortSignal },
  ): Promise<"ended" | "time" | "cancelled"> {
    const { signal, onOutput } = options;
    if (signal?.aborted) return "cancelled";
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<"time" | "cancelled">((settle) => {
      timer = setTimeout(() => settle("time"), limitMs);
      onAbort = () => settle("cancelled");
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    let done = false;
    const progress = async () => {
      let sent = 0;
      while (!done && !this.end) {
        await this.pulse;
        if (done || !onOutput) continue;
        const wait = sent + PROGRESS_MS - this.#clock();
        if (wait > 0) await new Promise((settle) => setTimeout(settle, wait));
        if (!done) onOutput(this.log.recent(400));
        sent = this.#clock();
      }
    };
    void progress();
    try {
      return await Promise.race([this.ended.then(() => "ended" as const), stop]);
    } finally {
      done = true;
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Settles on the next output or at the end. */
  get pulse(): Promise<void> {
    return this.#pulse.promise;
  }

  #beat(): void {
    const pulse = this.#pulse;
    this.#pulse = Promise.withResolvers<void>();
    pulse.resolve();
  }

  async #pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    for await (const chunk of stream) {
      await this.log.append(chunk);
      this.lastOutputAt = this.#clock();
      this.#beat();
    }
  }

  /** Reads the output until the process ends, then stops leftovers still holding the pipes. */
  async #supervise(): Promise<JobEnd> {
    const pumps = Promise.all([this.#pump(this.child.stdout), this.#pump(this.child.stderr)]);
    const status = await this.child.status;
    const notes: string[] = [];
    if (!await settlesWithin(pumps, PIPE_GRACE_MS)) {
      // The shell is gone but something it started still holds the output pipes.
      this.#killGroup();
      notes.push("[background processes still holding the output were stopped]");
      if (!await settlesWithin(pumps, this.#killGraceMs)) {
        await Promise.allSettled([this.child.stdout.cancel(), this.child.stderr.cancel()]);
      }
    }
    // Nothing the command started outlives it (with bubblewrap its PID namespace is gone).
    // Only the group now: the shell's pid is reaped and may belong to another process.
    this.#killGroup();
    void this.#stdin?.abort().catch(() => {});
    this.log.close();
    const end: JobEnd = {
      status: { code: status.code, signal: status.signal ?? null },
      at: this.#clock(),
      ...(this.#stopping ? { stopped: this.#stopping } : {}),
      notes,
    };
    this.end = end;
    this.#beat();
    return end;
  }

  /** Signals every process under the running job and its process group. */
  #kill(signal: "SIGTERM" | "SIGKILL"): void {
    if (this.end) return;
    signalEach(descendants(this.child.pid), signal);
    this.#killGroup(signal);
  }

  /** Signals the job's process group (the command sandbox's spawn made it its leader). */
  #killGroup(signal: "SIGTERM" | "SIGKILL" = "SIGKILL"): void {
    try {
      this.child.kill(signal);
    } catch { /* gone */ }
  }

  /**
   * Stops the job and everything it started: SIGTERM to every process under it (the command
   * and what it started, detached or not), then, after the grace, SIGKILL to all of them and
   * the sandbox itself. Resolves once it has ended.
   */
  async stop(why: NonNullable<JobEnd["stopped"]>): Promise<JobEnd> {
    if (this.end) return this.end;
    this.#stopping ??= why;
    // The group is held still while it is looked at and signalled: bubblewrap's inner process
    // leaves the group (setsid) before it dies with its parent, so a SIGTERM to a group that
    // looked empty could end the sandbox process as the inner one starts, orphaning it with
    // the command still to run.
    const held = Deno.build.os === "linux" && signalGroupOf(this.child.pid, "SIGSTOP");
    const tree = descendants(this.child.pid);
    // The sandbox process (bubblewrap) is left for last: killing it first would SIGKILL its
    // whole namespace at once, without the grace a server needs to close cleanly.
    if (tree.length > 0) signalEach(tree, "SIGTERM");
    else this.#kill("SIGTERM");
    if (held) signalGroupOf(this.child.pid, "SIGCONT");
    if (!await settlesWithin(this.ended, this.#killGraceMs)) this.#kill("SIGKILL");
    const end = await this.ended;
    // SIGKILL ends the sandbox process at once and the processes of its namespace a moment
    // later: the stop is over when those it signalled are gone too (bounded; a pid reused
    // meanwhile only costs the wait).
    for (let waited = 0; waited < GONE_WAIT_MS && stillRunning(tree).length > 0; waited += 20) {
      await new Promise((done) => setTimeout(done, 20));
    }
    return end;
  }

  /**
   * Whether the job seems to wait for input, checked about once a second: what it last
   * printed, or undefined. A process blocked reading the job's stdin counts from the second
   * check in a row; a prompt-like last line counts once nothing came for two seconds and no
   * process of the job used the CPU since the last check.
   */
  checkInput(): string | undefined {
    if (this.end || !this.#stdin) return undefined;
    const tree = descendants(this.child.pid);
    this.#stdinName ??= stdinOf(this.child.pid);
    const stdin = this.#stdinName;
    const reading = stdin?.startsWith("pipe:") ? readingStdin(tree, stdin).length > 0 : false;
    this.#readHits = reading ? this.#readHits + 1 : 0;
    const cpu = cpuTicks(tree);
    const idle = cpu === this.#cpu;
    this.#cpu = cpu;
    const last = this.log.recent(200).split("\n").at(-1) ?? "";
    const quiet = this.#clock() - this.lastOutputAt >= PROMPT_QUIET_MS;
    const prompt = quiet && idle && last.trim() !== "" && PROMPT.test(last);
    if (this.#readHits < 2 && !prompt) return undefined;
    return last.trim() === "" ? "(reading its input)" : last.trim().slice(-120);
  }
}
