// The answer to a tool worker's request to start a process, passed through shared memory: the
// worker has no `run` permission, so `ctx.spawn` asks the host (process_host.ts) and blocks on
// this buffer until the host has started the process (its pid) or refused it (the error), so
// `ctx.spawn` keeps Deno.Command's synchronous `pid` and thrown errors.

/** What the host answers: the pid, or the error `ctx.spawn` throws. */
export type SpawnReply =
  | { ok: true; pid: number }
  | { ok: false; name: string; message: string };

const PENDING = 0;
const STARTED = 1;
const FAILED = 2;
/** Header: state, pid, length of the error's JSON. */
const HEADER_BYTES = 12;
const BUFFER_BYTES = 8192;

/** A fresh reply buffer for one request. */
export function newSpawnReplyBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(BUFFER_BYTES);
}

/**
 * Writes the host's answer into `buffer` and wakes the waiting worker. An error message too
 * long for the buffer is cut.
 *
 * @param buffer The request's buffer.
 * @param reply The answer.
 */
export function writeSpawnReply(buffer: SharedArrayBuffer, reply: SpawnReply): void {
  if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength < HEADER_BYTES) return;
  const header = new Int32Array(buffer, 0, 3);
  if (Atomics.load(header, 0) !== PENDING) return; // answered once only
  if (reply.ok) {
    header[1] = reply.pid;
    Atomics.store(header, 0, STARTED);
  } else {
    const room = buffer.byteLength - HEADER_BYTES;
    let text = JSON.stringify({ name: reply.name, message: reply.message });
    let bytes = new TextEncoder().encode(text);
    if (bytes.length > room) {
      text = JSON.stringify({ name: reply.name, message: reply.message.slice(0, room / 4) });
      bytes = new TextEncoder().encode(text);
    }
    new Uint8Array(buffer, HEADER_BYTES, bytes.length).set(bytes);
    header[2] = bytes.length;
    Atomics.store(header, 0, FAILED);
  }
  Atomics.notify(header, 0);
}

/**
 * Blocks until the host answers in `buffer`, at most `timeoutMs`.
 *
 * @returns The answer; a timeout is an error answer.
 *
 * @example
 * ```ts
 * import { newSpawnReplyBuffer, readSpawnReply, writeSpawnReply } from "./spawn_reply.ts";
 * const buffer = newSpawnReplyBuffer();
 * writeSpawnReply(buffer, { ok: false, name: "NotFound", message: "no sh" });
 * const reply = readSpawnReply(buffer, 10);
 * if (reply.ok || reply.name !== "NotFound") throw new Error();
 * ```
 */
export function readSpawnReply(buffer: SharedArrayBuffer, timeoutMs: number): SpawnReply {
  const header = new Int32Array(buffer, 0, 3);
  Atomics.wait(header, 0, PENDING, timeoutMs);
  const state = Atomics.load(header, 0);
  if (state === STARTED) return { ok: true, pid: header[1]! };
  if (state === FAILED) {
    const bytes = new Uint8Array(buffer, HEADER_BYTES, header[2]!).slice();
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { name: string; message: string };
    return { ok: false, name: parsed.name, message: parsed.message };
  }
  return {
    ok: false,
    name: "TimedOut",
    message: `harness did not start the process within ${timeoutMs / 1000} s`,
  };
}
