// The messages of `ctx.spawn` between a tool worker and the host, on a MessagePort of their
// own (straight to the host thread, which starts tool workers). The worker asks; the host starts, signals and
// stops processes, reads their output ahead (at most 1 MiB per stream, so a tool that stops
// reading stops the process as a full pipe would) and hands over all it holds each time
// the worker asks for more: few large messages when the tool is slower than the process.

import type { SpawnRequest } from "../commands/command_sandbox.ts";

/** From the tool worker. */
export type ProcessRequest =
  /** Start `request`; the host answers through `reply` (spawn_reply.ts) before anything else. */
  | { type: "spawn"; process: number; request: SpawnRequest; reply: SharedArrayBuffer }
  /** Signal the process group of `process`. */
  | { type: "signal"; process: number; signal: Deno.Signal | number }
  /** Send what has been read of stdout (1) or stderr (2), or the next chunk when nothing has. */
  | { type: "pull"; process: number; stream: 1 | 2 }
  /** Stop reading stdout or stderr. */
  | { type: "cancel"; process: number; stream: 1 | 2 }
  /** Write `chunk` to stdin, or close it (null); the host answers "written". */
  | { type: "stdin"; process: number; chunk: Uint8Array | null };

/** From the host. */
export type ProcessEvent =
  /** The next chunk of a stream, or its end (null), or why it broke. */
  | { type: "data"; process: number; stream: 1 | 2; chunk: Uint8Array | null; error?: string }
  /** A stdin write or close finished (`error` when it failed). */
  | { type: "written"; process: number; error?: string }
  | { type: "exited"; process: number; status: Deno.CommandStatus };
