// The jobs of one workspace, on the host: every command run_command starts (the host starts
// it, in the command sandbox, so it outlives the tool's call and its worker), the ones in the
// background under short ids (j1, j2...), what each printed (a JobLog: bounded memory, the rest
// on disk) and how far job_output has read it. A job belongs to the session that started it:
// another session's scope (an ACP editor's other conversation) neither sees nor stops it, and
// counts its own ids. A job that ends in the background is announced at the start of its
// session's next turn; every job ends with the workspace.

import {
  type CommandOutcome,
  type CommandRun,
  cutOf,
  type JobKillReply,
  type JobOutputReply,
  type JobScope,
  type JobSummary,
  STOPPED_OUTPUT_BYTES,
} from "./job_control.ts";
import type { JobEnd, JobProcess } from "./job_process.ts";
import type { ShellRequest } from "./shell_command.ts";

/** What a table needs. */
export interface JobTableOptions {
  /**
   * Starts a process in the command sandbox; its `kill` signals the whole process group.
   * Throws what the sandbox refuses (an error named "CommandRefused") or NotFound.
   */
  spawn(request: ShellRequest): Promise<Deno.ChildProcess>;
  /** Folder of the log files (tools may read_file them). */
  logDir: string;
  /** Bytes a log file holds at most [256 MiB, JobLog's default]. */
  logBytes?: number;
  /** A command run without timeout_ms moves to the background after this long; 0: never. */
  backgroundAfterMs: number;
  /** How long SIGTERM gets before SIGKILL [1000]. */
  killGraceMs?: number;
  /** How often running jobs are checked for waiting on input [1000]. */
  inputCheckMs?: number;
  /** Told when a background job ends or starts to wait for input (the REPL's line). */
  onChange?(job: JobSummary): void;
  clock?: () => number;
}

/** The time limit of a command run without timeout_ms when nothing moves it. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;

/** The owner of the jobs of a front end with one conversation at a time (the REPL, -p). */
const DEFAULT_OWNER = "";

/** One command of the table. */
interface Job {
  /** The session that started it ({@linkcode JobTable.scope}). */
  owner: string;
  process: JobProcess;
  command: string;
  /** Its id once it is in the background. */
  id?: string;
  /** Bytes job_output has returned. */
  cursor: number;
  /** Its end has been said (announced, or seen by the model in a reply). */
  told: boolean;
  /** Its wait for input has been announced. */
  toldWaiting?: boolean;
  /** What it last printed when it seemed to wait for input. */
  waiting?: string;
  /** Its terminal copy, once asked for. */
  view?: Promise<string | undefined>;
}

/**
 * The host's jobs of one workspace. Its own methods serve the default session; `scope(owner)`
 * serves another.
 */
export class JobTable implements JobScope {
  readonly #options: JobTableOptions;
  readonly #clock: () => number;
  readonly #jobs: Job[] = [];
  /** The next job number of each owner. */
  readonly #nextIds = new Map<string, number>();
  readonly #scopes = new Map<string, JobScope>();
  #nextLog = 1;
  #checker: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  readonly #runId = `${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 6)}`;

  constructor(options: JobTableOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * The jobs of one session: what it starts belongs to it, and it sees only those (another
   * session's id answers "no such job").
   *
   * @param owner Names the session (the same name gives the same scope).
   * @returns Its scope.
   */
  scope(owner: string): JobScope {
    if (owner === DEFAULT_OWNER) return this;
    let scope = this.#scopes.get(owner);
    if (scope === undefined) {
      scope = {
        run: (request, options) => this.#run(owner, request, options),
        output: (id, options) => this.#output(owner, id, options),
        kill: (id) => this.#kill(owner, id),
        list: () => Promise.resolve(this.#summaries(owner)),
        summaries: () => this.#summaries(owner),
        takeNews: () => this.#takeNews(owner),
        terminalView: (id) => this.#terminalView(owner, id),
      };
      this.#scopes.set(owner, scope);
    }
    return scope;
  }

  /** Starts a command; a refusal is the outcome to return. */
  async #start(
    owner: string,
    request: CommandRun,
  ): Promise<Job | Extract<CommandOutcome, { kind: "refused" }>> {
    if (this.#closed) {
      return { kind: "refused", errorType: "io_error", message: "The session is ending" };
    }
    // Loaded with the first command: a run that starts none never loads them.
    const [{ shellRequest }, { JobLog }, { JobProcess }] = await Promise.all([
      import("./shell_command.ts"),
      import("./job_log.ts"),
      import("./job_process.ts"),
    ]);
    const stdin = request.background ? "piped" : "null";
    let child: Deno.ChildProcess;
    try {
      child = await this.#options.spawn(shellRequest(request.command, { cwd: request.cwd, stdin }));
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      if (e.name === "CommandRefused" || e instanceof Deno.errors.NotCapable) {
        return { kind: "refused", errorType: "permission_denied", message: e.message };
      }
      const shell = Deno.build.os === "windows" ? "cmd.exe" : "sh";
      return {
        kind: "refused",
        errorType: "io_error",
        message: e instanceof Deno.errors.NotFound
          ? `Cannot start the shell (${shell}): not found`
          : `Cannot start the command: ${e.message}`,
      };
    }
    const log = new JobLog({
      dir: this.#options.logDir,
      name: `run_command-${this.#runId}-${this.#nextLog++}`,
      ...(this.#options.logBytes === undefined ? {} : { fileBytes: this.#options.logBytes }),
    });
    const process = new JobProcess(child, {
      log,
      clock: this.#clock,
      killGraceMs: this.#options.killGraceMs ?? 1000,
      stdin: stdin === "piped",
    });
    const job: Job = { owner, process, command: request.command, cursor: 0, told: false };
    this.#jobs.push(job);
    void process.ended.then(() => this.#ended(job));
    return job;
  }

  /** Runs a command line: at once in the background, or waited for (see JobControl.run). */
  run(
    request: CommandRun,
    options: { onOutput?: (text: string) => void; signal?: AbortSignal } = {},
  ): Promise<CommandOutcome> {
    return this.#run(DEFAULT_OWNER, request, options);
  }

  async #run(
    owner: string,
    request: CommandRun,
    options: { onOutput?: (text: string) => void; signal?: AbortSignal },
  ): Promise<CommandOutcome> {
    const job = await this.#start(owner, request);
    if ("kind" in job) return job;
    if (request.background) {
      await this.#toBackground(job);
      return { kind: "background", id: job.id!, text: "", bytes: 0, cutBytes: 0 };
    }
    const moves = request.timeoutMs === undefined && this.#options.backgroundAfterMs > 0;
    const limitMs = request.timeoutMs ??
      (moves ? this.#options.backgroundAfterMs : DEFAULT_COMMAND_TIMEOUT_MS);
    const how = await job.process.waitFor(limitMs, options);
    const { process } = job;
    if (how === "time" && moves && !this.#closed) {
      await this.#toBackground(job);
      const read = await process.log.read(0, process.log.total, request.limit);
      job.cursor = process.log.total;
      return {
        kind: "background",
        id: job.id!,
        movedAfterMs: this.#clock() - process.startedAt,
        text: read.text,
        bytes: process.log.total,
        ...cutOf(read),
      };
    }
    const end = how === "ended"
      ? process.end!
      : await process.stop(how === "time" ? "timeout" : "cancelled");
    return await this.#finish(job, end, request.limit);
  }

  /** The outcome of a command waited for; it leaves the table (its log too, unless named). */
  async #finish(job: Job, end: JobEnd, limit: number): Promise<CommandOutcome> {
    const { log } = job.process;
    const why = end.stopped === "timeout" || end.stopped === "cancelled" ? end.stopped : undefined;
    // A stopped command's output goes into an error message: read it shorter.
    const read = await log.read(0, log.total, why ? Math.min(limit, STOPPED_OUTPUT_BYTES) : limit);
    this.#jobs.splice(this.#jobs.indexOf(job), 1);
    if (read.cutBytes === 0) await log.discard();
    const elapsedMs = end.at - job.process.startedAt;
    const output = { elapsedMs, status: end.status, text: read.text, bytes: log.total };
    if (why) return { kind: "stopped", why, ...output, ...cutOf(read) };
    return { kind: "exited", ...output, ...cutOf(read), notes: end.notes };
  }

  async #toBackground(job: Job): Promise<void> {
    const next = this.#nextIds.get(job.owner) ?? 1;
    this.#nextIds.set(job.owner, next + 1);
    job.id = `j${next}`;
    this.#watchInput();
    // A background job's output is on disk from now on: an editor's terminal can follow it.
    await job.process.log.save();
  }

  #ended(job: Job): void {
    if (job.id !== undefined) this.#options.onChange?.(this.#summary(job));
  }

  #find(owner: string, id: string): Job | undefined {
    return this.#jobs.find((job) =>
      job.owner === owner && job.id !== undefined && job.id === id.trim()
    );
  }

  #unknown(owner: string, id: string): { unknown: string } {
    const ids = this.#jobs.filter((job) => job.owner === owner && job.id !== undefined)
      .map((job) => job.id);
    return {
      unknown: `No job "${id}"${
        ids.length > 0 ? `: the jobs are ${ids.join(", ")}` : ": no job was started"
      }. Call job_list to see them`,
    };
  }

  #summary(job: Job): JobSummary {
    const { process } = job;
    const end = process.end;
    return {
      id: job.id ?? "",
      command: job.command,
      state: end === undefined ? "running" : end.stopped ? "killed" : "exited",
      ...(end ? { status: end.status } : {}),
      startedAt: process.startedAt,
      elapsedMs: (end?.at ?? this.#clock()) - process.startedAt,
      unreadBytes: process.log.total - job.cursor,
      ...(job.waiting !== undefined && !end ? { waitingForInput: job.waiting } : {}),
      ...(process.log.path ? { log: process.log.path } : {}),
      ...(end ? {} : { pid: process.child.pid }),
    };
  }

  /** A job's output since the last read, after waiting up to `waitMs` for some or its end. */
  output(id: string, options: { limit: number; waitMs: number }): Promise<JobOutputReply> {
    return this.#output(DEFAULT_OWNER, id, options);
  }

  async #output(
    owner: string,
    id: string,
    options: { limit: number; waitMs: number },
  ): Promise<JobOutputReply> {
    const job = this.#find(owner, id);
    if (!job) return this.#unknown(owner, id);
    const { process } = job;
    if (options.waitMs > 0 && process.log.total === job.cursor && !process.end) {
      const { settlesWithin } = await import("./job_process.ts"); // loaded with the job
      await settlesWithin(process.pulse, options.waitMs);
    }
    const total = process.log.total;
    const read = await process.log.read(job.cursor, total, options.limit);
    job.cursor = total;
    if (process.end) job.told = true;
    return { job: this.#summary(job), text: read.text, bytes: total, ...cutOf(read) };
  }

  /** A background job's terminal copy (see JobScope.terminalView). */
  terminalView(id: string): Promise<string | undefined> {
    return this.#terminalView(DEFAULT_OWNER, id);
  }

  #terminalView(owner: string, id: string): Promise<string | undefined> {
    const job = this.#find(owner, id);
    if (!job) return Promise.resolve(undefined);
    job.view ??= job.process.log.save().then(async (path) => {
      if (path === undefined) return undefined;
      const { openTerminalView } = await import("./job_terminal_view.ts");
      return await openTerminalView(job.process.log, path.replace(/\.log$/, ".terminal.log"));
    });
    return job.view;
  }

  /** Kills a job and everything it started; its end is then told. */
  kill(id: string): Promise<JobKillReply> {
    return this.#kill(DEFAULT_OWNER, id);
  }

  async #kill(owner: string, id: string): Promise<JobKillReply> {
    const job = this.#find(owner, id);
    if (!job) return this.#unknown(owner, id);
    const wasRunning = job.process.end === undefined;
    await job.process.stop("killed");
    job.told = true;
    return { job: this.#summary(job), wasRunning };
  }

  /** The background jobs, oldest first. */
  list(): Promise<JobSummary[]> {
    return Promise.resolve(this.summaries());
  }

  /** The background jobs, oldest first (synchronously, for /jobs). */
  summaries(): JobSummary[] {
    return this.#summaries(DEFAULT_OWNER);
  }

  #summaries(owner: string): JobSummary[] {
    return this.#jobs.filter((job) => job.owner === owner && job.id !== undefined)
      .map((job) => this.#summary(job));
  }

  /**
   * Background jobs that ended and were not told yet, or started to wait for input since the
   * last call: said to the model at the start of the next turn, each once.
   */
  takeNews(): JobSummary[] {
    return this.#takeNews(DEFAULT_OWNER);
  }

  #takeNews(owner: string): JobSummary[] {
    const news: JobSummary[] = [];
    for (const job of this.#jobs) {
      if (job.owner !== owner || job.id === undefined || job.told) continue;
      if (job.process.end) {
        job.told = true;
        news.push(this.#summary(job));
      } else if (job.waiting !== undefined && !job.toldWaiting) {
        job.toldWaiting = true;
        news.push(this.#summary(job));
      }
    }
    return news;
  }

  /** Checks the running background jobs for input waits, once a second while any runs. */
  #watchInput(): void {
    if (this.#checker !== undefined) return;
    const checker = setInterval(() => {
      const running = this.#jobs.filter((job) => job.id !== undefined && !job.process.end);
      if (running.length === 0) {
        clearInterval(this.#checker);
        this.#checker = undefined;
        return;
      }
      for (const job of running) {
        const waiting = job.process.checkInput();
        const changed = waiting !== undefined && job.waiting === undefined;
        if (waiting === undefined) delete job.waiting;
        else job.waiting = waiting;
        if (changed) this.#options.onChange?.(this.#summary(job));
      }
    }, this.#options.inputCheckMs ?? 1000);
    Deno.unrefTimer(checker);
    this.#checker = checker;
  }

  /**
   * Ends every running job (the session ends) and refuses new ones.
   *
   * @returns The background jobs that were still running.
   */
  async close(): Promise<JobSummary[]> {
    this.#closed = true;
    // Only when one runs: the first clearInterval of a process loads node:timers (7 ms).
    if (this.#checker !== undefined) clearInterval(this.#checker);
    this.#checker = undefined;
    const running = this.#jobs.filter((job) => !job.process.end);
    const stopped = running.filter((job) => job.id !== undefined).map((job) => this.#summary(job));
    await Promise.all(running.map((job) => job.process.stop("session_end")));
    return stopped;
  }
}
