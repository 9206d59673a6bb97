// ACP's editor terminals for background jobs: when the editor offers terminals, a job that
// run_command started (or moved to the background) is shown in one, embedded in that call,
// as its output comes. The job itself stays harness's, in the command sandbox, so job_kill,
// the session's end and harness's own exit still end every process it started; the editor's
// terminal only follows the job's terminal copy (`tail -F`), its colours kept and every other
// escape dropped (an OSC 52 the command prints never reaches the editor's clipboard), and
// ends with the job (`--pid`).

import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { JobScope } from "../jobs/job_control.ts";

/** What the terminals need of the session. */
export interface JobTerminalsOptions {
  /** Asks the editor to create a terminal; resolves with its id. */
  create(params: {
    command: string;
    args: string[];
    outputByteLimit: number;
  }): Promise<{ terminalId: string }>;
  /** Asks the editor to release a terminal. */
  release(terminalId: string): Promise<unknown>;
  send(update: SessionUpdate): void;
  /** The session's jobs. */
  jobs: Pick<JobScope, "summaries" | "terminalView">;
}

/** The job a run_command result started or moved to the background, by its words. */
export function startedJob(result: string | null): string | undefined {
  return /(?:Started job|moved to the background as job) (j\d+)/.exec(result ?? "")?.[1];
}

/** The editor terminals of one session's jobs. */
export class JobTerminals {
  readonly #options: JobTerminalsOptions;
  readonly #terminals: string[] = [];

  constructor(options: JobTerminalsOptions) {
    this.#options = options;
  }

  /**
   * Shows job `id` in a new editor terminal, embedded in the call `callId`. A job whose log or
   * process is gone already is not shown; a refusal by the editor is not an error.
   */
  async show(callId: string, id: string): Promise<void> {
    const { jobs } = this.#options;
    const job = jobs.summaries().find((each) => each.id === id);
    if (!job?.log || job.pid === undefined || Deno.build.os !== "linux") return;
    // Never the raw log: what the command printed reaches the editor only as safe text.
    const view = await jobs.terminalView(id);
    if (view === undefined) return;
    try {
      const { terminalId } = await this.#options.create({
        command: "tail",
        args: ["-n", "+1", "-F", `--pid=${job.pid}`, view],
        outputByteLimit: 1 << 20,
      });
      this.#terminals.push(terminalId);
      this.#options.send({
        sessionUpdate: "tool_call_update",
        toolCallId: callId,
        content: [{ type: "terminal", terminalId }],
      });
    } catch { /* the editor has no terminal for it: the job goes on without */ }
  }

  /** Releases every terminal (the session ends). */
  async close(): Promise<void> {
    await Promise.all(
      this.#terminals.splice(0).map((id) => this.#options.release(id).catch(() => {})),
    );
  }
}
