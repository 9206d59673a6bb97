// A started process as `ctx.spawn` returns it where the process starts in the same thread
// (tests, the host): Deno's child, except that `kill` signals its whole process group.
// In a tool worker the same shape comes from the host (processes/remote_process.ts).

import { signalGroup } from "./command_sandbox_groups.ts";

/**
 * A started process as `ctx.spawn` returns it: Deno's child, except that `kill` signals its
 * whole process group (everything the command started), not only the process itself.
 */
export class GroupChild implements Deno.ChildProcess {
  readonly pid: number;
  readonly status: Promise<Deno.CommandStatus>;
  readonly #child: Deno.ChildProcess;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.pid = child.pid;
    this.status = child.status;
  }

  get stdin(): WritableStream<Uint8Array> {
    return this.#child.stdin;
  }

  get stdout(): Deno.SubprocessReadableStream {
    return this.#child.stdout;
  }

  get stderr(): Deno.SubprocessReadableStream {
    return this.#child.stderr;
  }

  output(): Promise<Deno.CommandOutput> {
    return this.#child.output();
  }

  /** Sends `signo` (default SIGTERM) to the process group; nothing once it is gone. */
  kill(signo: Deno.Signal | number = "SIGTERM"): void {
    signalGroup(this.pid, signo);
  }

  ref(): void {
    this.#child.ref();
  }

  unref(): void {
    this.#child.unref();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.kill("SIGKILL");
    await this.status;
  }
}
