// The process groups of commands that tools started and that still run, as the host (main
// thread) knows them from its workers. Every way harness ends stops them: a worker that is
// killed, `Deno.exit` (the "unload" event), SIGHUP when the terminal closes and SIGTERM.
// Commands confined by bubblewrap also die with harness when it is killed outright.

const live = new Set<number>();
let exitHookInstalled = false;

/** Sends `signal` to the process group `pid` leads; false when it is gone already. */
export function signalGroup(pid: number, signal: Deno.Signal | number): boolean {
  try {
    if (Deno.build.os === "windows") {
      new Deno.Command("taskkill", {
        args: ["/pid", String(pid), "/T", "/F"],
        stdout: "null",
        stderr: "null",
      }).spawn();
    } else {
      Deno.kill(-pid, signal);
    }
    return true;
  } catch {
    return false;
  }
}

/** Records that the command group `pid` started (`running`) or ended. */
export function trackCommandGroup(pid: number, running: boolean): void {
  if (running) live.add(pid);
  else live.delete(pid);
  if (running && !exitHookInstalled) {
    exitHookInstalled = true;
    globalThis.addEventListener("unload", () => stopCommandGroups());
  }
}

/**
 * Kills every live command group (SIGKILL: harness is going away and cannot wait).
 *
 * @returns How many groups were signalled.
 */
export function stopCommandGroups(pids: Iterable<number> = live): number {
  let stopped = 0;
  for (const pid of [...pids]) {
    if (signalGroup(pid, "SIGKILL")) stopped++;
    live.delete(pid);
  }
  return stopped;
}

/**
 * Makes `signals` end harness after stopping every command group, with exit code 128 + the
 * signal's number (129 for SIGHUP, 143 for SIGTERM). `beforeExit` runs first (close the
 * session log). Not on Windows, which has neither signal.
 *
 * @returns A function that removes the listeners.
 */
export function exitOnSignals(
  signals: readonly ("SIGHUP" | "SIGTERM")[],
  beforeExit: () => void = () => {},
): () => void {
  if (Deno.build.os === "windows") return () => {};
  const numbers = { SIGHUP: 1, SIGTERM: 15 } as const;
  const handlers = signals.map((signal) => {
    const handler = () => {
      stopCommandGroups();
      try {
        beforeExit();
      } finally {
        Deno.exit(128 + numbers[signal]);
      }
    };
    Deno.addSignalListener(signal, handler);
    return () => Deno.removeSignalListener(signal, handler);
  });
  return () => handlers.forEach((remove) => remove());
}
