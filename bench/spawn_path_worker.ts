// Helper Worker of bench/command_sandbox_bench.ts: starts `sh -c COMMAND` and reads all its
// output, either here, as tool workers did before issue 26 (this worker holds Deno's `run`),
// or through the host (remote_process.ts over the port the bench hands it), and posts the
// milliseconds each took.

import { type CommandSandbox, spawnCommand } from "../src/sandbox/commands/command_sandbox.ts";
import type { Grants } from "../src/sandbox/grants/grants.ts";
import { RemoteProcesses } from "../src/sandbox/processes/remote_process.ts";

/** What the bench asks for. */
export interface SpawnPathRequest {
  via: "worker" | "host";
  command: string;
  cwd: string;
  sandbox: CommandSandbox;
  grants: Grants;
}

const remote = new RemoteProcesses();
const scope = globalThis as unknown as {
  onmessage: (event: MessageEvent<SpawnPathRequest | { port: MessagePort }>) => void;
  postMessage(ms: number): void;
};

scope.onmessage = async (event) => {
  if ("port" in event.data) {
    remote.connect(event.data.port);
    return;
  }
  const { via, command, cwd, sandbox, grants } = event.data;
  const request = { program: "sh", args: ["-c", command], cwd };
  const t = performance.now();
  const child = via === "worker" ? spawnCommand(sandbox, grants, request) : remote.spawn(request);
  await Promise.all([child.stdout.bytes(), child.stderr.bytes(), child.status]);
  scope.postMessage(performance.now() - t);
};
