// Entry of a search helper Worker (search_helpers.ts): started by the host with the read
// grant of the tool it helps and nothing else, it installs that tool's deny guard, then
// searches chunks of files for grep_search (parallel_grep.ts) on the ports the host hands
// it, one port per call. It runs only harness's own code: no plugin is ever imported here.

import { installDenyGuard } from "./deny_guard.ts";
import type { EffectivePermissions } from "./effective_permissions.ts";
import { type GrepRequest, serveGrepRequest } from "../tools/search/parallel_grep.ts";

/** The first message: the deny entries of the tool's sandbox, and the folder paths are relative to. */
export interface HelperInit {
  type: "init";
  guard: EffectivePermissions["guard"];
  cwd: string;
}

/** One call's port: the tool's worker sends one GrepRequest on it. */
export interface HelperPort {
  type: "port";
  port: MessagePort;
}

interface HelperScope {
  onmessage: ((event: MessageEvent<HelperInit | HelperPort>) => void) | null;
}

let guarded = false;

function onMessage(event: MessageEvent<HelperInit | HelperPort>): void {
  const message = event.data;
  if (message.type === "init") {
    if (!guarded) installDenyGuard(message.guard, message.cwd);
    guarded = true;
    return;
  }
  const port = message.port;
  // Never search before the guard is in place (the host sends "init" first).
  if (!guarded) {
    port.close();
    return;
  }
  port.onmessage = (call: MessageEvent<GrepRequest>) => {
    if (call.data?.type === "grep") serveGrepRequest(call.data, (done) => port.postMessage(done));
    port.close();
  };
}

// Serve only inside a Worker, so importing this module elsewhere (doc tests) has no effect.
const workerScopeClass = (globalThis as unknown as Record<string, unknown>).WorkerGlobalScope;
if (typeof workerScopeClass === "function" && globalThis instanceof workerScopeClass) {
  (globalThis as unknown as HelperScope).onmessage = onMessage;
}
