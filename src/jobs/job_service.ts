// The host's side of `ctx.jobs` for one tool call: a port handed to the call (like the search
// port), whose requests the calling session's jobs (a scope of the workspace's JobTable) answer. Only run_command's calls may start
// a command, in a folder inside the workspace; what a worker sends is checked field by field
// (plugin code may share the worker). When the call ends without waiting for its command
// (its worker was stopped), that command is stopped too.

import { isAbsolute, relative } from "../platform/paths.ts";
import type { CommandRun, JobControl } from "./job_control.ts";
import type { JobReply, JobRequest } from "./job_protocol.ts";

/** Who the port is for. */
export interface JobPortOptions {
  /** The call may start commands (the built-in run_command). */
  mayRun: boolean;
  /** The workspace: a command runs in a folder inside it. */
  workspace: string;
}

/** Most bytes a request may ask to be returned. */
const MAX_LIMIT = 1 << 20;
/** Longest wait job_output may ask for. */
const MAX_WAIT_MS = 600_000;

/** Whether `value` is a CommandRun within the limits. */
function validRun(value: unknown, workspace: string): value is CommandRun {
  if (typeof value !== "object" || value === null) return false;
  const run = value as Record<string, unknown>;
  const inside = typeof run.cwd === "string" && isAbsolute(run.cwd) &&
    !relative(workspace, run.cwd).startsWith("..") && !isAbsolute(relative(workspace, run.cwd));
  return typeof run.command === "string" && run.command.length > 0 && inside &&
    typeof run.background === "boolean" && validLimit(run.limit) &&
    (run.timeoutMs === undefined ||
      (Number.isInteger(run.timeoutMs) && (run.timeoutMs as number) > 0 &&
        (run.timeoutMs as number) <= MAX_WAIT_MS));
}

function validLimit(limit: unknown): limit is number {
  return Number.isInteger(limit) && (limit as number) > 0 && (limit as number) <= MAX_LIMIT;
}

/**
 * Opens the port of one call.
 *
 * @param table The jobs of the session the call is for (JobTable.scope).
 * @param options Whether the call may start commands, and the workspace.
 * @returns The call's end of the port (transfer it to the worker) and `close`, to call when
 *   the call has ended.
 */
export function openJobPort(
  table: JobControl,
  options: JobPortOptions,
): { port: MessagePort; close(): void } {
  const channel = new MessageChannel();
  const host = channel.port1;
  let running: AbortController | undefined;
  const send = (reply: JobReply) => host.postMessage(reply);
  host.onmessage = (event: MessageEvent<JobRequest>) => {
    const request = event.data;
    if (typeof request !== "object" || request === null) return;
    switch (request.type) {
      case "run": {
        if (running) return;
        if (!options.mayRun || !validRun(request.request, options.workspace)) {
          send({
            type: "ran",
            outcome: {
              kind: "refused",
              errorType: "permission_denied",
              message: "Only run_command starts commands, in a folder of the workspace",
            },
          });
          return;
        }
        const controller = new AbortController();
        running = controller;
        void table.run(request.request, {
          signal: controller.signal,
          onOutput: (text) => send({ type: "progress", text }),
        }).then((outcome) => {
          running = undefined;
          send({ type: "ran", outcome });
        });
        return;
      }
      case "abort":
        running?.abort();
        return;
      case "output":
        if (typeof request.id !== "string" || !validLimit(request.limit)) return;
        void table.output(request.id, {
          limit: request.limit,
          waitMs: Number.isInteger(request.waitMs)
            ? Math.max(0, Math.min(MAX_WAIT_MS, request.waitMs))
            : 0,
        }).then((reply) => send({ type: "output", reply }));
        return;
      case "kill":
        if (typeof request.id !== "string") return;
        void table.kill(request.id).then((reply) => send({ type: "killed", reply }));
        return;
      case "list":
        void table.list().then((jobs) => send({ type: "listed", jobs }));
        return;
      default:
        return; // plugin code can post anything: ignore what is not a request
    }
  };
  return {
    port: channel.port2,
    close() {
      running?.abort();
      host.close();
    },
  };
}
