// The host's side of `ctx.spawn`. Tool workers never hold Deno's `run` permission (a process
// is outside Deno's sandbox, so `run` would let plugin code start anything unconfined), so a
// worker asks its ProcessHost over a port of their own (process_protocol.ts). The host checks
// the request (spawn_request.ts), starts it in the command sandbox (spawnCommand: the host
// can stat what --deny-read hides), answers through shared memory (spawn_reply.ts), then
// hands the output over as the tool reads it and takes stdin writes.

import { type CommandSandbox, groupHasMembers, spawnCommand } from "../commands/command_sandbox.ts";
import { signalGroup, trackCommandGroup } from "../commands/command_sandbox_groups.ts";
import type { Grants } from "../grants/grants.ts";
import type { ProcessEvent, ProcessRequest } from "./process_protocol.ts";
import { type SpawnReply, writeSpawnReply } from "./spawn_reply.ts";
import { checkSpawnRequest, runRefusal } from "./spawn_request.ts";
import { concatBytes } from "../../platform/concat_bytes.ts";

/** What the host needs to start a worker's processes. */
export interface ProcessHostOptions {
  sandbox: CommandSandbox;
  grants: Grants;
  /** The tool's effective `run` grant (false: it did not declare one). */
  run: boolean | string[];
}

/** One output stream the worker reads: what has been read ahead, and whether it waits. */
interface Output {
  reader: ReadableStreamDefaultReader<Uint8Array>;
  held: Uint8Array[];
  heldBytes: number;
  reading: boolean;
  /** The stream's end (or why it broke) once read; sent after what is held. */
  end?: { error?: string };
  /** The worker asked and nothing was held: send the next chunk at once. */
  wanted: boolean;
}

interface LiveProcess {
  child: Deno.ChildProcess;
  exited: boolean;
  outputs: Partial<Record<1 | 2, Output>>;
  writer?: WritableStreamDefaultWriter<Uint8Array>;
}

/** Output read ahead per stream before the host stops reading (and the process blocks). */
const READ_AHEAD_BYTES = 1 << 20;

const SIGNAL = /^SIG[A-Z0-9]+$/;

/**
 * Starts, signals and stops the processes of one tool worker, talking to it on `port` (a new
 * one each time the worker is replaced: `connect`).
 */
export class ProcessHost {
  readonly #options: ProcessHostOptions;
  readonly #live = new Map<number, LiveProcess>();
  #port: MessagePort | undefined;

  constructor(options: ProcessHostOptions) {
    this.#options = options;
  }

  /**
   * A fresh channel for a (new) tool worker: the processes of the one before are stopped.
   *
   * @returns The worker's end, to transfer to it.
   */
  connect(): MessagePort {
    this.stopAll();
    this.#port?.close();
    const channel = new MessageChannel();
    const port = channel.port1;
    port.onmessage = (event: MessageEvent<ProcessRequest>) => {
      if (port === this.#port) this.#handle(event.data);
    };
    this.#port = port;
    return channel.port2;
  }

  #send(event: ProcessEvent): void {
    this.#port?.postMessage(event);
  }

  #handle(message: ProcessRequest): void {
    if (typeof message !== "object" || message === null) return;
    switch (message.type) {
      case "spawn":
        this.spawn(message.process, message.request, message.reply);
        return;
      case "signal":
        this.signal(message.process, message.signal);
        return;
      case "pull":
        this.#pull(message.process, message.stream);
        return;
      case "cancel":
        void this.#live.get(message.process)?.outputs[message.stream]?.reader.cancel().catch(
          () => {},
        );
        return;
      case "stdin":
        this.#stdin(message.process, message.chunk);
        return;
      default:
        return; // plugin code can post anything: ignore what is not a request
    }
  }

  /** Starts the process a worker asked for; the answer goes to `reply`. */
  spawn(id: number, value: unknown, reply: SharedArrayBuffer): void {
    const answer = (message: SpawnReply) => writeSpawnReply(reply, message);
    if (!Number.isInteger(id) || this.#live.has(id)) {
      answer({ ok: false, name: "TypeError", message: `process id ${id} is not free` });
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
    const piped = (mode: string | undefined, fallback: string) => (mode ?? fallback) === "piped";
    const output = (stream: ReadableStream<Uint8Array>): Output => ({
      reader: stream.getReader(),
      held: [],
      heldBytes: 0,
      reading: false,
      wanted: false,
    });
    const live: LiveProcess = {
      child,
      exited: false,
      outputs: {
        ...(piped(request.stdout, "piped") ? { 1: output(child.stdout) } : {}),
        ...(piped(request.stderr, "piped") ? { 2: output(child.stderr) } : {}),
      },
      ...(piped(request.stdin, "null") ? { writer: child.stdin.getWriter() } : {}),
    };
    this.#live.set(id, live);
    answer({ ok: true, pid: child.pid });
    void child.status.then((status) => {
      live.exited = true;
      if (this.#live.get(id) !== live) return; // stopped with its worker
      this.#send({ type: "exited", process: id, status });
      this.#forgetIfDone(id, live);
    });
  }

  /** Sends the worker what is held of a stream, or the next chunk once it is read. */
  #pull(id: number, stream: 1 | 2): void {
    const live = this.#live.get(id);
    const output = live?.outputs[stream];
    if (!live || !output) {
      this.#send({ type: "data", process: id, stream, chunk: null });
      return;
    }
    output.wanted = true;
    this.#deliver(id, live, stream, output);
    this.#readAhead(id, live, stream, output);
  }

  /** Sends what is held (all of it, as one chunk) if the worker waits for it. */
  #deliver(id: number, live: LiveProcess, stream: 1 | 2, output: Output): void {
    if (!output.wanted) return;
    if (output.held.length > 0) {
      const chunk = output.held.length === 1
        ? output.held[0]!
        : concatBytes(output.held, output.heldBytes);
      output.held = [];
      output.heldBytes = 0;
      output.wanted = false;
      this.#send({ type: "data", process: id, stream, chunk });
    } else if (output.end) {
      output.wanted = false;
      delete live.outputs[stream];
      this.#send({ type: "data", process: id, stream, chunk: null, ...output.end });
      this.#forgetIfDone(id, live);
    }
  }

  /** Keeps reading a stream until the read-ahead limit or its end. */
  #readAhead(id: number, live: LiveProcess, stream: 1 | 2, output: Output): void {
    if (output.reading || output.end || output.heldBytes >= READ_AHEAD_BYTES) return;
    output.reading = true;
    output.reader.read().then(
      ({ done, value }) => {
        output.reading = false;
        if (this.#live.get(id) !== live) return;
        if (done) output.end = {};
        else {
          output.held.push(value);
          output.heldBytes += value.length;
        }
        this.#deliver(id, live, stream, output);
        this.#readAhead(id, live, stream, output);
      },
      (error: unknown) => {
        output.reading = false;
        if (this.#live.get(id) !== live) return;
        output.end = { error: error instanceof Error ? error.message : String(error) };
        this.#deliver(id, live, stream, output);
      },
    );
  }

  #stdin(id: number, chunk: unknown): void {
    const live = this.#live.get(id);
    const writer = live?.writer;
    if (!live || !writer) {
      this.#send({ type: "written", process: id, error: "stdin is not piped" });
      return;
    }
    const done = chunk === null
      ? writer.close()
      : chunk instanceof Uint8Array
      ? writer.write(chunk)
      : Promise.reject(new TypeError("stdin takes bytes"));
    done.then(
      () => this.#send({ type: "written", process: id }),
      (error: unknown) =>
        this.#send({
          type: "written",
          process: id,
          error: error instanceof Error ? error.message : String(error),
        }),
    );
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
      for (const output of Object.values(live.outputs)) {
        void output.reader.cancel().catch(() => {});
      }
      void live.writer?.abort().catch(() => {});
    }
    this.#live.clear();
  }

  /** Stops every process and closes the port (the worker is gone). */
  close(): void {
    this.stopAll();
    this.#port?.close();
    this.#port = undefined;
  }

  /** Forgets a process whose group has ended and whose output was read, so a pid is not reused. */
  #forgetIfDone(id: number, live: LiveProcess): void {
    if (!live.exited || groupHasMembers(live.child.pid)) return;
    trackCommandGroup(live.child.pid, false);
    // Its output may still be unread: forget it once that is done too.
    if (Object.keys(live.outputs).length === 0) this.#live.delete(id);
  }
}
