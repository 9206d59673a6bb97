// The process groups of commands that tools started and that still run, as the host (main
// thread) knows them from its workers. Every way harness ends stops them: a worker that is
// killed, `Deno.exit` (the "unload" event), SIGHUP when the terminal closes and SIGTERM.
// Commands confined by bubblewrap also die with harness when it is killed outright.
// SIGKILL takes the whole tree under a group's leader, not only the group: bubblewrap's
// namespace init leaves the group (--new-session) a moment before it binds its life to the
// sandbox process (--die-with-parent), and a group killed in that moment left the sandboxed
// command running, orphaned, in a session of its own.

import {
  descendants,
  leadsOwnGroup,
  signalEach,
  signalGroupOf,
} from "../../platform/process_tree.ts";

const live = new Set<number>();
let exitHookInstalled = false;

/**
 * Sends `signal` to the process group `pid` leads; false when it is gone already. SIGKILL also
 * kills every process under the leader that left the group ({@link killTree}).
 */
export function signalGroup(pid: number, signal: Deno.Signal | number): boolean {
  if ((signal === "SIGKILL" || signal === 9) && Deno.build.os === "linux") return killTree(pid);
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

/**
 * Kills the process group `pid` leads and every process under its leader (Linux): the group
 * is stopped first, so its members fork nothing while /proc is read, and the tree is read
 * only while `pid` still leads its group (a reused pid's children are not harness's).
 */
function killTree(pid: number): boolean {
  if (!signalGroupOf(pid, "SIGSTOP")) return false; // the group has ended
  if (leadsOwnGroup(pid)) {
    const tree = descendants(pid);
    // What left the group still runs: stop it too, then look again for what it forked.
    signalEach(tree, "SIGSTOP");
    signalEach([...new Set([...tree, ...descendants(pid)])], "SIGKILL");
  }
  signalGroupOf(pid, "SIGKILL");
  return true;
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
