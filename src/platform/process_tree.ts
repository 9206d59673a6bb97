// The processes under one process, read from /proc on Linux: what a background job has become
// (its shell, what the shell started, what those started, however they detached from its
// process group), so a kill reaches all of them and a job that waits for input can be told.
// Elsewhere the tree is unknown (empty) and callers fall back to the process group.

/** One process as /proc/PID/stat tells it. */
interface ProcessStat {
  pid: number;
  ppid: number;
  /** The process group it is in. */
  pgid: number;
  /** R, S, D, Z, T... */
  state: string;
  /** User and system time so far, in clock ticks. */
  cpu: number;
}

/** Reads /proc/PID/stat; undefined when the process is gone (or this is not Linux). */
function readStat(pid: number): ProcessStat | undefined {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // The command name is in parentheses and may hold spaces: fields start after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return {
      pid,
      state: fields[0] ?? "?",
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      cpu: Number(fields[11]) + Number(fields[12]),
    };
  } catch {
    return undefined;
  }
}

/** Every live process's stat, by pid. */
function allStats(): ProcessStat[] {
  const stats: ProcessStat[] = [];
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const stat = readStat(Number(entry.name));
      if (stat) stats.push(stat);
    }
  } catch { /* no /proc: not Linux */ }
  return stats;
}

/**
 * The live processes under `pid` (not `pid` itself), parents before their children; zombies
 * are left out. Empty where /proc cannot be read.
 *
 * @param pid The root of the tree.
 * @returns Host pids.
 *
 * @example
 * ```ts
 * import { descendants } from "./process_tree.ts";
 * if (descendants(Deno.pid).includes(Deno.pid)) throw new Error();
 * ```
 */
export function descendants(pid: number): number[] {
  if (Deno.build.os !== "linux") return [];
  const children = new Map<number, number[]>();
  for (const stat of allStats()) {
    if (stat.state === "Z") continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(stat.pid);
    children.set(stat.ppid, list);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * Whether process `pid` runs (not a zombie) and leads the process group of its own id: its
 * children are then those of the command that group was started for, not of a reused pid.
 *
 * @example
 * ```ts
 * import { leadsOwnGroup } from "./process_tree.ts";
 * if (leadsOwnGroup(-1)) throw new Error();
 * ```
 */
export function leadsOwnGroup(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z" && stat.pgid === pid;
}

/**
 * Those of `pids` that still run (neither gone nor a zombie).
 *
 * @example
 * ```ts
 * import { stillRunning } from "./process_tree.ts";
 * if (stillRunning([-1]).length !== 0) throw new Error();
 * ```
 */
export function stillRunning(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    const stat = readStat(pid);
    return stat !== undefined && stat.state !== "Z";
  });
}

/**
 * Sends `signal` to each process of `pids`; a process gone meanwhile is skipped.
 *
 * @returns How many were signalled.
 */
export function signalEach(pids: readonly number[], signal: Deno.Signal): number {
  let sent = 0;
  for (const pid of pids) {
    try {
      Deno.kill(pid, signal);
      sent++;
    } catch { /* gone */ }
  }
  return sent;
}

/**
 * Sends `signal` to the process group `pgid` leads (Linux and macOS).
 *
 * @returns false when the group has ended.
 */
export function signalGroupOf(pgid: number, signal: Deno.Signal): boolean {
  try {
    Deno.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The CPU ticks the processes of `pids` have used so far (gone ones count nothing). */
export function cpuTicks(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + (readStat(pid)?.cpu ?? 0), 0);
}

/** The `read`-family system call numbers, by architecture (read, readv, pread64). */
const READ_CALLS: Partial<Record<string, readonly number[]>> = {
  x86_64: [0, 17, 19],
  aarch64: [63, 65, 67],
};

/** What file descriptor 0 of a process is (`pipe:[123]`, `/dev/null`); undefined when unknown. */
export function stdinOf(pid: number): string | undefined {
  try {
    return Deno.readLinkSync(`/proc/${pid}/fd/0`);
  } catch {
    return undefined;
  }
}

/**
 * Which of `pids` are blocked reading their standard input from `stdin` (a pipe as
 * {@linkcode stdinOf} names it): a prompt that waits for an answer nobody will type.
 *
 * @param pids Processes to look at.
 * @param stdin The pipe the job's input comes from.
 * @returns The pids blocked in read(0) on that pipe.
 */
export function readingStdin(pids: readonly number[], stdin: string): number[] {
  const calls = READ_CALLS[Deno.build.arch];
  if (Deno.build.os !== "linux" || calls === undefined) return [];
  return pids.filter((pid) => {
    try {
      const [call, fd] = Deno.readTextFileSync(`/proc/${pid}/syscall`).split(" ");
      return calls.includes(Number(call)) && fd === "0x0" && stdinOf(pid) === stdin;
    } catch {
      return false;
    }
  });
}
