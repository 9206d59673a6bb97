// The tool worker's side of `ctx.jobs`: asks the host's jobs (job_service.ts) over the call's
// port and waits for the answer, one request at a time. A run's progress lines go to the
// caller's `onOutput`; its abort signal becomes an "abort" message.

import type {
  CommandOutcome,
  CommandRun,
  JobControl,
  JobKillReply,
  JobOutputReply,
  JobSummary,
} from "./job_control.ts";
import type { JobReply, JobRequest } from "./job_protocol.ts";

/** `ctx.jobs` in a tool worker. */
export class JobClient implements JobControl {
  readonly #port: MessagePort;
  #busy = false;

  /** @param port The call's port to the host's jobs. */
  constructor(port: MessagePort) {
    this.#port = port;
  }

  /** Sends one request and settles with the reply `pick` accepts. */
  #ask<T>(
    request: JobRequest,
    pick: (reply: JobReply) => T | undefined,
    onProgress?: (text: string) => void,
  ): Promise<T> {
    if (this.#busy) throw new Error("JobClient: one request at a time");
    this.#busy = true;
    return new Promise<T>((settle) => {
      this.#port.onmessage = (event: MessageEvent<JobReply>) => {
        const reply = event.data;
        if (reply.type === "progress") {
          onProgress?.(reply.text);
          return;
        }
        const value = pick(reply);
        if (value === undefined) return;
        this.#port.onmessage = null;
        this.#busy = false;
        settle(value);
      };
      this.#port.postMessage(request);
    });
  }

  run(
    request: CommandRun,
    options: { onOutput?: (text: string) => void; signal?: AbortSignal },
  ): Promise<CommandOutcome> {
    const abort = () => this.#port.postMessage({ type: "abort" } satisfies JobRequest);
    options.signal?.addEventListener("abort", abort, { once: true });
    const ran = this.#ask(
      { type: "run", request },
      (reply) => reply.type === "ran" ? reply.outcome : undefined,
      options.onOutput,
    );
    if (options.signal?.aborted) abort();
    return ran.finally(() => options.signal?.removeEventListener("abort", abort));
  }

  output(id: string, options: { limit: number; waitMs: number }): Promise<JobOutputReply> {
    return this.#ask(
      { type: "output", id, ...options },
      (reply) => reply.type === "output" ? reply.reply : undefined,
    );
  }

  kill(id: string): Promise<JobKillReply> {
    return this.#ask({ type: "kill", id }, (r) => r.type === "killed" ? r.reply : undefined);
  }

  list(): Promise<JobSummary[]> {
    return this.#ask({ type: "list" }, (r) => r.type === "listed" ? r.jobs : undefined);
  }

  /** Closes the port (the host then stops a command the call still waits for). */
  close(): void {
    this.#port.close();
  }
}
