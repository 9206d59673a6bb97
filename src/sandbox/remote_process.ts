// The tool worker's side of `ctx.spawn`: the worker has no `run` permission, so it asks the
// host (process_host.ts) to start the process, blocks until the host answers (so `pid` and a
// refusal come back synchronously, as with Deno.Command), and returns a Deno.ChildProcess
// whose pipes fill in once the host transfers them and whose `kill` signals the process group.

import type { SpawnRequest } from "./command_sandbox.ts";
import { CommandRefused } from "./command_sandbox.ts";
import { newSpawnReplyBuffer, readSpawnReply } from "./spawn_reply.ts";
import type { HostToWorker, WorkerToHost } from "./worker_protocol.ts";

/** How long `ctx.spawn` waits for the host to start a process. */
const SPAWN_WAIT_MS = 30_000;

type ProcessMessage = Extract<HostToWorker, { type: "process" | "exited" }>;

/** A value that arrives later, for streams that exist before the host sends them. */
class Later<T> {
  readonly promise: Promise<T>;
  settle: (value: T) => void = () => {};
  constructor() {
    this.promise = new Promise((settle) => this.settle = settle);
  }
}

/** A readable stream fed by the host's pipe once it arrives, with Deno's `text()` and kin. */
function laterReadable(source: Promise<ReadableStream<Uint8Array> | undefined>) {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      reader ??= (await source)?.getReader();
      if (!reader) return controller.close();
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value as Uint8Array<ArrayBuffer>);
    },
    async cancel(reason) {
      await (reader ?? (await source))?.cancel(reason);
    },
  }, { highWaterMark: 0 });
  const body = () => new Response(stream);
  return Object.assign(stream, {
    arrayBuffer: () => body().arrayBuffer(),
    bytes: async () => new Uint8Array(await body().arrayBuffer()),
    json: () => body().json(),
    text: () => body().text(),
  }) as Deno.SubprocessReadableStream;
}

/** A writable stream that writes into the host's stdin pipe once it arrives. */
function laterWritable(sink: Promise<WritableStream<Uint8Array> | undefined>) {
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  const ready = async () => {
    writer ??= (await sink)?.getWriter();
    if (!writer) throw new TypeError("stdin is not piped");
    return writer;
  };
  return new WritableStream<Uint8Array>({
    write: async (chunk) => await (await ready()).write(chunk),
    close: async () => await (await ready()).close(),
    abort: async (reason) => await (await ready()).abort(reason),
  });
}

async function collect(stream: ReadableStream<Uint8Array> | undefined): Promise<Uint8Array> {
  if (!stream) return new Uint8Array();
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A process the host started for this worker. */
class RemoteChild implements Deno.ChildProcess {
  readonly pid: number;
  readonly status: Promise<Deno.CommandStatus>;
  readonly #request: SpawnRequest;
  readonly #signal: (signal: Deno.Signal | number) => void;
  readonly #stdin: WritableStream<Uint8Array>;
  readonly #stdout: Deno.SubprocessReadableStream;
  readonly #stderr: Deno.SubprocessReadableStream;

  constructor(
    pid: number,
    request: SpawnRequest,
    parts: {
      streams: Promise<ProcessMessage & { type: "process" }>;
      status: Promise<Deno.CommandStatus>;
      signal: (signal: Deno.Signal | number) => void;
    },
  ) {
    this.pid = pid;
    this.#request = request;
    this.status = parts.status;
    this.#signal = parts.signal;
    this.#stdin = laterWritable(parts.streams.then((m) => m.stdin));
    this.#stdout = laterReadable(parts.streams.then((m) => m.stdout));
    this.#stderr = laterReadable(parts.streams.then((m) => m.stderr));
  }

  get stdin(): WritableStream<Uint8Array> {
    if (this.#request.stdin !== "piped") throw new TypeError("stdin is not piped");
    return this.#stdin;
  }

  get stdout(): Deno.SubprocessReadableStream {
    if ((this.#request.stdout ?? "piped") !== "piped") throw new TypeError("stdout is not piped");
    return this.#stdout;
  }

  get stderr(): Deno.SubprocessReadableStream {
    if ((this.#request.stderr ?? "piped") !== "piped") throw new TypeError("stderr is not piped");
    return this.#stderr;
  }

  async output(): Promise<Deno.CommandOutput> {
    const piped = (mode: string | undefined) => (mode ?? "piped") === "piped";
    const [stdout, stderr, status] = await Promise.all([
      collect(piped(this.#request.stdout) ? this.#stdout : undefined),
      collect(piped(this.#request.stderr) ? this.#stderr : undefined),
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

/** The processes this worker asked the host for. */
export class RemoteProcesses {
  readonly #post: (message: WorkerToHost) => void;
  readonly #streams = new Map<number, Later<ProcessMessage & { type: "process" }>>();
  readonly #statuses = new Map<number, Later<Deno.CommandStatus>>();
  #nextId = 1;

  constructor(post: (message: WorkerToHost) => void) {
    this.#post = post;
  }

  /** Asks the host to start `request`; throws what Deno.Command would (NotFound, ...). */
  spawn(request: SpawnRequest): Deno.ChildProcess {
    const id = this.#nextId++;
    const reply = newSpawnReplyBuffer();
    const streams = new Later<ProcessMessage & { type: "process" }>();
    const status = new Later<Deno.CommandStatus>();
    this.#streams.set(id, streams);
    this.#statuses.set(id, status);
    this.#post({ type: "spawn", process: id, request, reply });
    const answer = readSpawnReply(reply, SPAWN_WAIT_MS);
    if (!answer.ok) {
      this.#streams.delete(id);
      this.#statuses.delete(id);
      throw refusal(answer.name, answer.message);
    }
    return new RemoteChild(answer.pid, request, {
      streams: streams.promise,
      status: status.promise,
      signal: (signal) => this.#post({ type: "signal", process: id, signal }),
    });
  }

  /** Takes the host's "process" and "exited" messages. */
  receive(message: ProcessMessage): void {
    if (message.type === "process") {
      this.#streams.get(message.process)?.settle(message);
      this.#streams.delete(message.process);
      return;
    }
    this.#statuses.get(message.process)?.settle(message.status);
    this.#statuses.delete(message.process);
  }
}
