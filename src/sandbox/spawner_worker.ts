// Entry of the intermediate Worker that starts a tool worker. Deno checks some imports of a
// worker against its parent thread's permissions, and the host thread runs with -A; so the
// host starts this worker with the tool's permissions (plus read access to harness's own
// source, which the tool worker's code is) and this worker starts the tool worker, then
// relays messages both ways. Deno takes over half a second to start a nested worker, so a
// serving spawner keeps a spare tool worker started: "respawn" (after a timeout or crash)
// swaps it in at once. Terminating this worker terminates its tool workers.

import {
  type HostToWorker,
  type LoadMessage,
  transferOf,
  type WorkerToHost,
} from "./worker_protocol.ts";
import type { WorkerPermissions } from "./effective_permissions.ts";

/** The first message this worker receives: what to start. */
export interface SpawnMessage {
  type: "spawn";
  url: string;
  name: string;
  permissions: WorkerPermissions;
}

/** Replaces the tool worker (stopped, hung or crashed) with a fresh one. */
export interface RespawnMessage {
  type: "respawn";
}

type SpawnerInput = SpawnMessage | RespawnMessage | HostToWorker;

interface SpawnerScope {
  postMessage(message: WorkerToHost): void;
  onmessage: ((event: MessageEvent<SpawnerInput>) => void) | null;
}

const scope = globalThis as unknown as SpawnerScope;
let spec: SpawnMessage | undefined;
let load: LoadMessage | undefined;
let active: Worker | undefined;
let spare: Worker | undefined;

function start(): Worker {
  const { url, name, permissions } = spec!;
  const worker = new Worker(url, { type: "module", name, deno: { permissions } });
  // Only the active tool worker speaks to the host; a spare waits for its "load".
  worker.onmessage = (event: MessageEvent<WorkerToHost>) => {
    if (worker === active) scope.postMessage(event.data);
  };
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    if (worker !== active) return;
    scope.postMessage({ type: "crashed", reason: `the tool's worker crashed: ${event.message}` });
  };
  worker.onmessageerror = () => {
    if (worker !== active) return;
    scope.postMessage({
      type: "crashed",
      reason: "a message from the tool's worker could not be read",
    });
  };
  return worker;
}

function respawn(): void {
  active?.terminate();
  active = spare ?? start();
  spare = start();
  if (load) active.postMessage(load);
}

function onMessage(event: MessageEvent<SpawnerInput>): void {
  const message = event.data;
  switch (message.type) {
    case "spawn":
      spec ??= message;
      active ??= start();
      return;
    case "respawn":
      respawn();
      return;
    case "load":
      load = message;
      // A loader ("list") is used once; a serving worker may need replacing.
      if (message.mode === "serve") spare ??= start();
      active?.postMessage(message);
      return;
    default:
      // A run may carry ports to search helpers: they move on, not copy.
      active?.postMessage(message, transferOf(message));
  }
}

// Serve only inside a Worker, so importing this module elsewhere (doc tests) has no effect.
const workerScopeClass = (globalThis as unknown as Record<string, unknown>).WorkerGlobalScope;
if (typeof workerScopeClass === "function" && globalThis instanceof workerScopeClass) {
  scope.onmessage = onMessage;
}
