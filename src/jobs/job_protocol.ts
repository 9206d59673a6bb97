// The messages between a tool's call and the host's jobs, on a port of that call's own
// (job_service.ts on the host, job_client.ts in the tool worker). One request at a time; a
// run sends progress lines before its outcome, and "abort" stops the command it waits for.

import type {
  CommandOutcome,
  CommandRun,
  JobKillReply,
  JobOutputReply,
  JobSummary,
} from "./job_control.ts";

/** From the tool. */
export type JobRequest =
  | { type: "run"; request: CommandRun }
  /** Stop the command the running request waits for (the call was cancelled). */
  | { type: "abort" }
  | { type: "output"; id: string; limit: number; waitMs: number }
  | { type: "kill"; id: string }
  | { type: "list" };

/** From the host. */
export type JobReply =
  | { type: "progress"; text: string }
  | { type: "ran"; outcome: CommandOutcome }
  | { type: "output"; reply: JobOutputReply }
  | { type: "killed"; reply: JobKillReply }
  | { type: "listed"; jobs: JobSummary[] };
