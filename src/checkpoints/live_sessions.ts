// Which harness processes are checkpointing a workspace now. Each holds an exclusive lock
// (flock) on its own file in the shadow repository's `live` folder, with its pid and session;
// the kernel releases it however the process ends. At start a process names the others that
// still hold theirs (two sessions in one folder see each other's writes), and removes what
// the dead ones left: their index files, watch folders and git lock files. At exit (the
// "unload" event, also after Deno.exit) it removes its own.

import { join } from "../platform/paths.ts";
import { ensurePrivateDir } from "../config/folders.ts";
import { safeName } from "./checkpoint_paths.ts";

/** Another process working in the workspace. */
export interface LiveSession {
  pid: number;
  /** Its first session's id, when it had one. */
  session?: string;
  /** When it started (ISO time). */
  started: string;
}

/** This process's claim on the workspace. */
export interface LiveClaim {
  /** The other processes working in the workspace when the claim was taken. */
  others: LiveSession[];
  /** Whether another process works in the workspace now (its lock file is held). */
  othersNow(): boolean;
  /** Gives the claim up and removes this process's files (also done at exit). */
  release(): void;
}

/** An index file of an older harness with no lock is taken as stale after this long. */
const UNLOCKED_INDEX_AGE_MS = 60 * 60 * 1000;

/**
 * Claims a place among the workspace's live processes, names the others, and removes what
 * dead processes left behind.
 *
 * @param gitDir The shadow repository's git folder.
 * @param me This process's owner name (in file names) and session id.
 * @returns The others, and the release.
 */
export function claimLive(gitDir: string, me: { owner: string; session?: string }): LiveClaim {
  const folder = join(gitDir, "live");
  const owner = safeName(me.owner);
  let file: Deno.FsFile | undefined;
  try {
    ensurePrivateDir(folder);
    file = Deno.openSync(join(folder, `${owner}.lock`), {
      read: true,
      write: true,
      create: true,
      mode: 0o600,
    });
    if (!file.tryLockSync(true)) throw new Error("taken");
    const info: LiveSession = {
      pid: Deno.pid,
      started: new Date().toISOString(),
      ...(me.session ? { session: me.session } : {}),
    };
    file.writeSync(new TextEncoder().encode(JSON.stringify(info)));
  } catch {
    file?.close();
    file = undefined; // a read-only data folder: checkpoints report their own errors later
  }
  const others = file ? sweep(gitDir, owner) : [];
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    globalThis.removeEventListener("unload", release);
    removeOwnerFiles(gitDir, owner);
    if (file) {
      try {
        Deno.removeSync(join(folder, `${owner}.lock`));
        file.unlockSync();
        file.close();
      } catch { /* gone already */ }
    }
  };
  globalThis.addEventListener("unload", release);
  return {
    others,
    othersNow: () => file !== undefined && sweep(gitDir, owner).length > 0,
    release,
  };
}

/** The other lock files: live ones named, dead ones cleaned up with their owners' files. */
function sweep(gitDir: string, me: string): LiveSession[] {
  const folder = join(gitDir, "live");
  const others: LiveSession[] = [];
  const live = new Set([me]);
  for (const entry of safeReadDir(folder)) {
    if (!entry.name.endsWith(".lock") || entry.name === `${me}.lock`) continue;
    const owner = entry.name.slice(0, -".lock".length);
    const path = join(folder, entry.name);
    let lock: Deno.FsFile;
    try {
      lock = Deno.openSync(path, { read: true, write: true });
    } catch {
      continue;
    }
    try {
      if (lock.tryLockSync(true)) {
        // Its process is gone: what it left goes, then its lock file.
        removeOwnerFiles(gitDir, owner);
        Deno.removeSync(path);
        lock.unlockSync();
      } else {
        live.add(owner);
        const info = readInfo(path);
        if (info) others.push(info);
      }
    } catch {
      /* another process is sweeping it */
    } finally {
      lock.close();
    }
  }
  removeUnclaimedIndexes(gitDir, live);
  return others;
}

/** Index files and git locks no live process owns (a harness before live locks left them). */
function removeUnclaimedIndexes(gitDir: string, live: ReadonlySet<string>): void {
  for (const entry of safeReadDir(gitDir)) {
    const match = /^index-([A-Za-z0-9_-]+)/.exec(entry.name);
    if (!match || live.has(match[1]!)) continue;
    try {
      const age = Date.now() - (Deno.lstatSync(join(gitDir, entry.name)).mtime?.getTime() ?? 0);
      if (age > UNLOCKED_INDEX_AGE_MS) removeOwnerFiles(gitDir, match[1]!);
    } catch { /* gone meanwhile */ }
  }
}

/** Removes an owner's index files, watch folder and leftover git locks. */
function removeOwnerFiles(gitDir: string, owner: string): void {
  const remove = (path: string, recursive = false) => {
    try {
      Deno.removeSync(path, { recursive });
    } catch { /* not there */ }
  };
  for (const entry of safeReadDir(gitDir)) {
    const name = entry.name;
    if (name === `index-${owner}` || name.startsWith(`index-${owner}.`)) remove(join(gitDir, name));
    if (name === `index.${owner}.tmp`) remove(join(gitDir, name));
  }
  remove(join(gitDir, `watch-${owner}`), true);
  remove(join(gitDir, "refs", "harness", `${owner}.lock`));
}

function readInfo(path: string): LiveSession | undefined {
  try {
    const value = JSON.parse(Deno.readTextFileSync(path));
    if (typeof value?.pid !== "number" || typeof value?.started !== "string") return undefined;
    return {
      pid: value.pid,
      started: value.started,
      ...(typeof value.session === "string" ? { session: value.session } : {}),
    };
  } catch {
    return undefined;
  }
}

function safeReadDir(path: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(path)];
  } catch {
    return [];
  }
}

/**
 * One line naming other live sessions in the workspace, for the user at start.
 *
 * @param others What {@linkcode claimLive} found.
 * @returns The line, or undefined when there is none.
 *
 * @example
 * ```ts
 * import { liveSessionsNotice } from "./live_sessions.ts";
 * const line = liveSessionsNotice([{ pid: 42, session: "3f2a1b2c-9", started: "2025-01-01T10:00:00Z" }]);
 * if (!line?.includes("3f2a1b2c") || !line.includes("pid 42")) throw new Error(line);
 * ```
 */
export function liveSessionsNotice(others: readonly LiveSession[]): string | undefined {
  if (others.length === 0) return undefined;
  const named = others.map((other) =>
    `${other.session ? `session ${other.session}, ` : ""}pid ${other.pid}, since ${
      other.started.slice(11, 16)
    }`
  ).join("; ");
  const who = others.length === 1 ? "Another harness session is" : "Other harness sessions are";
  return `${who} working in this folder (${named}): /undo puts back only the changes of this ` +
    "session's own calls, and asks before it touches a file changed since";
}
