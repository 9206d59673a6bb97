// The processes a process started, children and their children, read from Linux's /proc, so a
// hook stopped at its timeout takes along the ones that left its process group (`setsid`,
// `nohup ... &` in a new session). Elsewhere, and where /proc cannot be read, the list is
// empty and the process group alone is stopped.

/**
 * Every living descendant of `pid` (Linux): children first found through each thread's
 * `children` file, else by the parent field of every process's `stat`.
 *
 * @param pid The process whose descendants are wanted.
 * @returns Their pids, parents before children; empty off Linux.
 *
 * @example
 * ```ts
 * import { processDescendants } from "./process_tree.ts";
 * if (processDescendants(Deno.pid).includes(Deno.pid)) throw new Error("itself is not a descendant");
 * ```
 */
export function processDescendants(pid: number): number[] {
  if (Deno.build.os !== "linux") return [];
  const parents = parentTable();
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const child of childrenOf(parent, parents)) {
      if (found.includes(child) || child === pid) continue;
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The children of one process: from /proc's children files, else from the parent table. */
function childrenOf(pid: number, parents: () => Map<number, number[]>): number[] {
  try {
    const children: number[] = [];
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const text = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`);
      for (const word of text.split(/\s+/)) if (/^\d+$/.test(word)) children.push(Number(word));
    }
    return children;
  } catch {
    return parents().get(pid) ?? [];
  }
}

/** Parent -> children for every process, read once when first needed. */
function parentTable(): () => Map<number, number[]> {
  let table: Map<number, number[]> | undefined;
  return () => {
    if (table) return table;
    table = new Map();
    try {
      for (const entry of Deno.readDirSync("/proc")) {
        if (!/^\d+$/.test(entry.name)) continue;
        const parent = parentOf(entry.name);
        if (parent === undefined) continue;
        const list = table.get(parent) ?? [];
        list.push(Number(entry.name));
        table.set(parent, list);
      }
    } catch { /* no /proc: nothing found */ }
    return table;
  };
}

/** The parent field of /proc/PID/stat (after the command name, which may hold spaces). */
function parentOf(pid: string): number | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const parent = Number(fields[1]);
    return Number.isInteger(parent) ? parent : undefined;
  } catch {
    return undefined; // ended meanwhile
  }
}
