// The tool worker's side of `ctx.spawn`: the worker has no `run` permission, so it asks the
// host (process_host.ts) over their port to start the process, blocks until the host answers
// (so `pid` and a refusal come back synchronously, as with Deno.Command), and returns a
// Deno.ChildProcess whose output arrives a chunk per read and whose `kill` signals the
// process group.

import { CommandRefused, type SpawnRequest } from "../commands/command_sandbox.ts";
import type { ProcessEvent, ProcessRequest } from "./process_protocol.ts";
import { newSpawnReplyBuffer, readSpawnReply } from "./spawn_reply.ts";

/** How long `ctx.spawn` waits for the host to start a process. */
const SPAWN_WAIT_MS = 30_000;

type Data = Extract<ProcessEvent, { type: "data" }>;

/** What one process is waiting for from the host. */
interface Waiting {
  status: (status: Deno.CommandStatus) => void;
  exited: boolean;
  /** Output streams not yet at their end. */
  open: number;
  /** Readers waiting for a chunk, by stream, oldest first. */
  data: Record<1 | 2, ((event: Data) => void)[]>;
  written: ((error?: string) => void)[];
}

const piped = (mode: string | undefined, fallback: "piped" | "null") =>
  (mode ?? fallback) === "piped";

/** Deno's output stream, plus text() and kin: each read asks the host for what it holds. */
function outputStream(
  pull: () => Promise<Data>,
  cancel: () => void,
): Deno.SubprocessReadableStream {
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      const event = await pull();
      if (event.error !== undefined) controller.error(new Error(event.error));
      else if (event.chunk === null) controller.close();
      else controller.enqueue(event.chunk as Uint8Array<ArrayBuffer>);
    },
    cancel,
  }, { highWaterMark: 0 });
  const body = () => new Response(stream);
  return Object.assign(stream, {
    arrayBuffer: () => body().arrayBuffer(),
    bytes: async () => new Uint8Array(await body().arrayBuffer()),
    json: () => body().json(),
    text: () => body().text(),
  }) as Deno.SubprocessReadableStream;
}

async function collect(stream: ReadableStream<Uint8Array> | undefined): Promise<Uint8Array> {
  if (!stream) return new Uint8Array();
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A process the host started for this worker. */
class RemoteChild implements Deno.ChildProcess {
  readonly pid: number;
  readonly status: Promise<Deno.CommandStatus>;
  readonly #signal: (signal: Deno.Signal | number) => void;
  readonly #stdin: WritableStream<Uint8Array> | undefined;
  readonly #stdout: Deno.SubprocessReadableStream | undefined;
  readonly #stderr: Deno.SubprocessReadableStream | undefined;

  constructor(
    pid: number,
    parts: {
      status: Promise<Deno.CommandStatus>;
      signal: (signal: Deno.Signal | number) => void;
      stdin?: WritableStream<Uint8Array>;
      stdout?: Deno.SubprocessReadableStream;
      stderr?: Deno.SubprocessReadableStream;
    },
  ) {
    this.pid = pid;
    this.status = parts.status;
    this.#signal = parts.signal;
    this.#stdin = parts.stdin;
    this.#stdout = parts.stdout;
    this.#stderr = parts.stderr;
  }

  get stdin(): WritableStream<Uint8Array> {
    if (!this.#stdin) throw new TypeError("stdin is not piped");
    return this.#stdin;
  }

  get stdout(): Deno.SubprocessReadableStream {
    if (!this.#stdout) throw new TypeError("stdout is not piped");
    return this.#stdout;
  }

  get stderr(): Deno.SubprocessReadableStream {
    if (!this.#stderr) throw new TypeError("stderr is not piped");
    return this.#stderr;
  }

  async output(): Promise<Deno.CommandOutput> {
    const [stdout, stderr, status] = await Promise.all([
      collect(this.#stdout),
      collect(this.#stderr),
      this.status,
    ]);
    return {
      ...status,
      stdout: stdout as Uint8Array<ArrayBuffer>,
      stderr: stderr as Uint8Array<ArrayBuffer>,
    };
  }

  /** Sends `signo` (default SIGTERM) to the process's whole group. */
  kill(signo: Deno.Signal | number = "SIGTERM"): void {
    this.#signal(signo);
  }

  ref(): void {}

  unref(): void {}

  async [Symbol.asyncDispose](): Promise<void> {
    this.kill("SIGKILL");
    await this.status;
  }
}

/** The error `ctx.spawn` throws for a refusal the host reports by name. */
function refusal(name: string, message: string): Error {
  if (name === "CommandRefused") return new CommandRefused(message);
  const errors = Deno.errors as unknown as Record<string, new (message: string) => Error>;
  const known = errors[name];
  if (known) return new known(message);
  const error = name === "TypeError" ? new TypeError(message) : new Error(message);
  if (name !== "TypeError") error.name = name;
  return error;
}

/** The processes this worker asked the host for, over the port the host gave it. */
export class RemoteProcesses {
  readonly #waiting = new Map<number, Waiting>();
  #port: MessagePort | undefined;
  #nextId = 1;

  /** Takes the host's port (a fresh worker gets a fresh one). */
  connect(port: MessagePort): void {
    this.#port?.close();
    this.#port = port;
    port.onmessage = (event: MessageEvent<ProcessEvent>) => this.#receive(event.data);
  }

  #post(message: ProcessRequest): void {
    if (!this.#port) throw new Error("harness has not connected this worker to its processes");
    this.#port.postMessage(message);
  }

  /** Asks the host to start `request`; throws what Deno.Command would (NotFound, ...). */
  spawn(request: SpawnRequest): Deno.ChildProcess {
    const id = this.#nextId++;
    const reply = newSpawnReplyBuffer();
    let settleStatus: (status: Deno.CommandStatus) => void = () => {};
    const status = new Promise<Deno.CommandStatus>((settle) => settleStatus = settle);
    const waiting: Waiting = {
      status: settleStatus,
      exited: false,
      open: Number(piped(request.stdout, "piped")) + Number(piped(request.stderr, "piped")),
      data: { 1: [], 2: [] },
      written: [],
    };
    this.#waiting.set(id, waiting);
    this.#post({ type: "spawn", process: id, request, reply });
    const answer = readSpawnReply(reply, SPAWN_WAIT_MS);
    if (!answer.ok) {
      this.#waiting.delete(id);
      throw refusal(answer.name, answer.message);
    }
    const output = (stream: 1 | 2) =>
      outputStream(
        () =>
          new Promise<Data>((settle) => {
            waiting.data[stream].push(settle);
            this.#post({ type: "pull", process: id, stream });
          }),
        () => {
          this.#post({ type: "cancel", process: id, stream });
          this.#ended(id, waiting);
        },
      );
    const write = (chunk: Uint8Array | null) =>
      new Promise<void>((settle, fail) => {
        waiting.written.push((error) => error === undefined ? settle() : fail(new Error(error)));
        this.#post({ type: "stdin", process: id, chunk });
      });
    return new RemoteChild(answer.pid, {
      status,
      signal: (signal) => this.#post({ type: "signal", process: id, signal }),
      ...(piped(request.stdin, "null")
        ? {
          stdin: new WritableStream<Uint8Array>({
            write: (chunk) => write(chunk),
            close: () => write(null),
          }),
        }
        : {}),
      ...(piped(request.stdout, "piped") ? { stdout: output(1) } : {}),
      ...(piped(request.stderr, "piped") ? { stderr: output(2) } : {}),
    });
  }

  /** Forgets a process once it has exited and its output streams have ended. */
  #ended(id: number, waiting: Waiting, streams = 1): void {
    waiting.open -= streams;
    if (waiting.exited && waiting.open <= 0) this.#waiting.delete(id);
  }

  #receive(event: ProcessEvent): void {
    const waiting = this.#waiting.get(event.process);
    if (!waiting) return;
    switch (event.type) {
      case "data":
        waiting.data[event.stream].shift()?.(event);
        if (event.chunk === null) this.#ended(event.process, waiting);
        return;
      case "written":
        waiting.written.shift()?.(event.error);
        return;
      case "exited":
        waiting.exited = true;
        waiting.status(event.status);
        this.#ended(event.process, waiting, 0);
        return;
      default: {
        const never: never = event;
        throw new Error(`unknown process event ${JSON.stringify(never)}`);
      }
    }
  }
}
