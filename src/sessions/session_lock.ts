// One process at a time writes a session. Each open session holds an exclusive advisory lock
// (flock) on its own file under the database's folder: locks/<id>.lock. The kernel releases
// it when the process ends, however it ends, so a crash never leaves a session locked. Lock
// files are kept (an unlinked lock file could be locked by two processes through two inodes);
// `harness sessions delete` removes the session's. An id is a file name only when it is one
// harness could have made: another (an imported file's) is named by its hash, so no id reaches
// a file outside locks/.

import { createHash } from "node:crypto";
import { dirname, join } from "node:path";

/** A held session lock. */
export interface SessionLock {
  release(): void;
}

/** Session ids harness makes (UUIDs) and accepts from a file: a plain file name. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * Whether a string can be a session's id: letters, digits, `_`, `.` and `-`, starting with a
 * letter or digit, at most 128 characters (so never a path).
 *
 * @example
 * ```ts
 * import { isSessionId } from "./session_lock.ts";
 * if (!isSessionId(crypto.randomUUID()) || isSessionId("../x") || isSessionId("")) throw new Error();
 * ```
 */
export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/**
 * The lock file of session `id` in the database at `databasePath`: always inside its `locks`
 * folder, whatever the id holds.
 *
 * @example
 * ```ts
 * import { sessionLockPath } from "./session_lock.ts";
 * if (sessionLockPath("/d/harness.db", "s1") !== "/d/locks/s1.lock") throw new Error();
 * if (!sessionLockPath("/d/harness.db", "../../x").startsWith("/d/locks/id-")) throw new Error();
 * ```
 */
export function sessionLockPath(databasePath: string, id: string): string {
  const name = isSessionId(id) ? id : `id-${createHash("sha256").update(id).digest("hex")}`;
  return join(dirname(databasePath), "locks", `${name}.lock`);
}

/**
 * Takes the session's lock without waiting.
 *
 * @returns The lock, or undefined when another process holds it. A lock that cannot be taken
 * at all (read-only folder) counts as held by no one: the session opens as before.
 *
 * @example
 * ```ts
 * import { claimSession } from "./session_lock.ts";
 * const dir = Deno.makeTempDirSync();
 * const lock = claimSession(`${dir}/harness.db`, "s1");
 * if (lock === undefined) throw new Error("free lock not taken");
 * lock.release();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function claimSession(databasePath: string, id: string): SessionLock | undefined {
  const path = sessionLockPath(databasePath, id);
  let file: Deno.FsFile;
  try {
    Deno.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    file = Deno.openSync(path, { read: true, write: true, create: true, mode: 0o600 });
  } catch {
    return { release() {} };
  }
  let locked = false;
  try {
    locked = file.tryLockSync(true);
  } catch {
    file.close();
    return { release() {} };
  }
  if (!locked) {
    file.close();
    return undefined;
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        file.unlockSync();
      } finally {
        file.close();
      }
    },
  };
}

/** Removes a deleted session's lock file (missing is fine). */
export function removeSessionLock(databasePath: string, id: string): void {
  try {
    Deno.removeSync(sessionLockPath(databasePath, id));
  } catch {
    // not there, or not ours to remove
  }
}
