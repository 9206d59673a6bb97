// What run_command and the job tools ask of the host's jobs (`ctx.jobs`): run a command line
// (waiting for it, or moving it to the background), read a job's new output, kill it, list
// them. The host's JobTable (job_table.ts) answers in the same process, one JobScope per session;
// in a tool worker JobClient (job_client.ts) asks it over a port. Only plain types cross the port.

import type { LogRead } from "./job_log.ts";

/** A command line to run, as run_command asks. */
export interface CommandRun {
  command: string;
  /** Absolute folder, inside the workspace. */
  cwd: string;
  /** Return at once with a job id. */
  background: boolean;
  /** Kill the command after this many milliseconds (the call gave timeout_ms). */
  timeoutMs?: number;
  /** Bytes of output the result may hold (head and tail kept beyond). */
  limit: number;
}

/**
 * Bytes of output a stopped command's result keeps (head and tail), the marker aside: it goes
 * into an error message, which tool_output_limit does not cut.
 */
export const STOPPED_OUTPUT_BYTES = 9_000;

/** How a command's exit reads: its code, and the signal that ended it. */
export interface ExitStatus {
  code: number;
  signal: string | null;
}

/** What became of a command run. */
export type CommandOutcome =
  | {
    kind: "exited";
    status: ExitStatus;
    elapsedMs: number;
    /** The output, head and tail kept within the limit. */
    text: string;
    /** All the command printed, in bytes. */
    bytes: number;
    /** Bytes left out of `text`. */
    cutBytes: number;
    /** The log file `text` names when it was cut: the whole output, or its start past the cap. */
    path?: string;
    /** Lines said after the output (leftover processes stopped). */
    notes: string[];
  }
  | {
    kind: "stopped";
    why: "timeout" | "cancelled";
    status: ExitStatus;
    elapsedMs: number;
    /** The output, head and tail kept within STOPPED_OUTPUT_BYTES. */
    text: string;
    bytes: number;
    cutBytes: number;
    path?: string;
  }
  | {
    kind: "background";
    id: string;
    /** Set when a running command was moved to the background after this long. */
    movedAfterMs?: number;
    /** The output so far (read: job_output returns what follows). */
    text: string;
    bytes: number;
    cutBytes: number;
    path?: string;
  }
  | { kind: "refused"; errorType: "permission_denied" | "io_error"; message: string };

/** A job as job_list shows it. */
export interface JobSummary {
  id: string;
  command: string;
  /** "running", or how it ended. */
  state: "running" | "exited" | "killed";
  status?: ExitStatus;
  startedAt: number;
  /** Run time so far, or until it ended. */
  elapsedMs: number;
  /** Bytes printed that job_output has not returned yet. */
  unreadBytes: number;
  /** Set when it seems to wait for input nobody will type (what it last printed). */
  waitingForInput?: string;
  /** The file its output goes to (a background job's is made at once). */
  log?: string;
  /** The host pid of its process (the sandbox's), while it runs. */
  pid?: number;
}

/** What job_output returns. */
export type JobOutputReply =
  | { unknown: string }
  | {
    job: JobSummary;
    /** New output since the last read (head and tail kept within the limit), or "". */
    text: string;
    cutBytes: number;
    /** All the job printed so far, in bytes. */
    bytes: number;
    /** The log file `text` names when it was cut. */
    path?: string;
  };

/** What job_kill returns. */
export type JobKillReply = { unknown: string } | { job: JobSummary; wasRunning: boolean };

/** The host's jobs as a tool sees them (`ctx.jobs`). */
export interface JobControl {
  /**
   * Runs a command line in the command sandbox: waits for it (its output shown through
   * `onOutput`), or returns at once with a job id; a command still running after the
   * configured time is moved to the background.
   */
  run(
    request: CommandRun,
    options: { onOutput?: (text: string) => void; signal?: AbortSignal },
  ): Promise<CommandOutcome>;
  /** A job's output since the last read, after waiting up to `waitMs` for some or the end. */
  output(id: string, options: { limit: number; waitMs: number }): Promise<JobOutputReply>;
  /** Kills a job and everything it started. */
  kill(id: string): Promise<JobKillReply>;
  /** Every job of the session, oldest first. */
  list(): Promise<JobSummary[]>;
}

/** One session's jobs: what its tools, its turn notes and its editor terminals see. */
export interface JobScope extends JobControl {
  /** Its background jobs, oldest first (synchronously, for /jobs and the editor). */
  summaries(): JobSummary[];
  /** Its background jobs that ended or began to wait for input since the last call. */
  takeNews(): JobSummary[];
  /**
   * A copy of a background job's output that a terminal may show as it comes: colours kept,
   * other escapes dropped (job_terminal_view.ts). Undefined for a job it does not have.
   */
  terminalView(id: string): Promise<string | undefined>;
}

/**
 * A duration as a few characters: `850ms`, `12s`, `3m12s`, `2h05m`.
 *
 * @example
 * ```ts
 * import { shortDuration } from "./job_control.ts";
 * if (shortDuration(192_000) !== "3m12s" || shortDuration(500) !== "500ms") throw new Error();
 * ```
 */
export function shortDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

/**
 * How a job stands, in a few words: `running 3m12s`, `exited 0 after 2s`, `killed after 5s`.
 *
 * @example
 * ```ts
 * import { jobState } from "./job_control.ts";
 * const line = jobState({ id: "j1", command: "x", state: "exited", status: { code: 2, signal: null }, startedAt: 0, elapsedMs: 2000, unreadBytes: 0 });
 * if (line !== "exited 2 after 2s") throw new Error(line);
 * ```
 */
export function jobState(job: JobSummary): string {
  const time = shortDuration(job.elapsedMs);
  switch (job.state) {
    case "running":
      return `running ${time}`;
    case "exited":
      return job.status?.signal
        ? `ended by ${job.status.signal} after ${time}`
        : `exited ${job.status?.code ?? "?"} after ${time}`;
    case "killed":
      return `killed after ${time}`;
    default: {
      const never: never = job.state;
      throw new Error(`unknown job state ${String(never)}`);
    }
  }
}

/**
 * How much a read of a job's log left out, and the log that names it (only when it cut
 * something).
 *
 * @example
 * ```ts
 * import { cutOf } from "./job_control.ts";
 * const cut = cutOf({ text: "", cutBytes: 0, path: "/l.log" });
 * if (cut.cutBytes !== 0 || "path" in cut) throw new Error();
 * ```
 */
export function cutOf(read: LogRead): { cutBytes: number; path?: string } {
  return {
    cutBytes: read.cutBytes,
    ...(read.cutBytes > 0 && read.path !== undefined ? { path: read.path } : {}),
  };
}
