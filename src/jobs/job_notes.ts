// The words jobs are told in: one line per job for job_list and /jobs, the note the model
// gets at the start of a turn about jobs that ended (or wait for input) meanwhile, and the
// line that says which jobs the end of a session stopped. Short on purpose: every line goes
// into a small model's window.

import { humanSize } from "../platform/human_size.ts";
import { jobState, type JobSummary } from "./job_control.ts";

/** A command line cut to one short line. */
function shortCommand(command: string, max = 60): string {
  const line = command.split("\n")[0] ?? "";
  return line.length > max || command.includes("\n") ? `${line.slice(0, max - 3)}...` : line;
}

/**
 * One line for a job: id, state, command, and what is unread or asked.
 *
 * @example
 * ```ts
 * import { jobLine } from "./job_notes.ts";
 * const line = jobLine({ id: "j1", command: "npm run dev", state: "running", startedAt: 0, elapsedMs: 192_000, unreadBytes: 0 });
 * if (line !== "j1 running 3m12s: npm run dev") throw new Error(line);
 * ```
 */
export function jobLine(job: JobSummary): string {
  const unread = job.unreadBytes > 0 ? ` (${humanSize(job.unreadBytes)} unread)` : "";
  const asks = job.waitingForInput !== undefined
    ? `; waits for input after "${job.waitingForInput}"`
    : "";
  return `${job.id} ${jobState(job)}: ${shortCommand(job.command)}${unread}${asks}`;
}

/**
 * What the model is told at the start of a turn about background jobs that ended or started
 * to wait for input since; undefined when there is nothing.
 *
 * @example
 * ```ts
 * import { jobNews } from "./job_notes.ts";
 * const note = jobNews([{ id: "j2", command: "npm test", state: "exited", status: { code: 1, signal: null }, startedAt: 0, elapsedMs: 4000, unreadBytes: 10 }]);
 * if (!note?.includes("j2 exited 1 after 4s: npm test (10 B unread)")) throw new Error(note);
 * ```
 */
export function jobNews(jobs: readonly JobSummary[]): string | undefined {
  if (jobs.length === 0) return undefined;
  const unread = jobs.some((job) => job.unreadBytes > 0) ? "; job_output(id) reads the rest" : "";
  const input = jobs.some((job) => job.waitingForInput !== undefined)
    ? "; a job waiting for input gets none: job_kill it and run it with its answers given " +
      "(a --yes flag, or `yes |`)"
    : "";
  return `[Background jobs since the last message: ${
    jobs.map(jobLine).join("; ")
  }${unread}${input}]`;
}

/**
 * The line said when the session's end stopped background jobs; undefined when none ran.
 *
 * @example
 * ```ts
 * import { sessionEndLine } from "./job_notes.ts";
 * const line = sessionEndLine([{ id: "j1", command: "npm run dev", state: "running", startedAt: 0, elapsedMs: 5000, unreadBytes: 0 }]);
 * if (line !== "Stopped 1 background job as the session ended: j1 (running 5s) npm run dev") throw new Error(line);
 * ```
 */
export function sessionEndLine(jobs: readonly JobSummary[]): string | undefined {
  if (jobs.length === 0) return undefined;
  const each = jobs.map((job) => `${job.id} (${jobState(job)}) ${shortCommand(job.command, 40)}`);
  const noun = jobs.length === 1 ? "job" : "jobs";
  return `Stopped ${jobs.length} background ${noun} as the session ended: ${each.join(", ")}`;
}
