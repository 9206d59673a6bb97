// Deno's own check for --deny-read inside a read grant. A Worker's permissions cannot say
// "this folder but not that file", and the deny guard only wraps Deno's functions: a plugin
// that imports node:fs goes around it. So, on the host, each allowed folder that holds a
// denied path is replaced by its entries minus the denied one (recursively along the way),
// leaving out links that lead into a denied path too. The list is what the folders held when
// the worker started: the tool host starts a fresh worker once a split folder changes.

import { join } from "../../platform/paths.ts";
import type { EffectivePermissions, WorkerPermissions } from "../grants/effective_permissions.ts";
import { covers } from "../grants/permission_value.ts";
import { realPathIfExists } from "../../platform/real_path_if_exists.ts";
import type { HiddenEntry } from "../../gate/gate_types.ts";

/** A worker's permissions with denied reads left out, and the folders that were split. */
export interface SplitPermissions {
  permissions: WorkerPermissions;
  /** Folders listed to build the read list, with their modification times then (ms). */
  split: Map<string, number | undefined>;
}

function modified(folder: string): number | undefined {
  try {
    return Deno.statSync(folder).mtime?.getTime();
  } catch {
    return undefined;
  }
}

/** Whether `path` (a real path) is denied or holds a denied path. */
function touchesDenied(path: string, denied: readonly string[]): boolean {
  return denied.some((d) => covers("read", d, path) || covers("read", path, d));
}

/** `folder`'s entries that neither are nor hold `target`, recursing into the one that holds it. */
function entriesWithout(
  folder: string,
  target: string,
  denied: readonly string[],
  split: Map<string, number | undefined>,
): string[] {
  split.set(folder, modified(folder));
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(folder)];
  } catch {
    return []; // unreadable: nothing in it is granted
  }
  const kept: string[] = [];
  for (const entry of entries) {
    const child = join(folder, entry.name);
    if (covers("read", target, child)) continue;
    if (covers("read", child, target)) {
      kept.push(...entriesWithout(child, target, denied, split));
      continue;
    }
    if (entry.isSymlink) {
      // Deno checks the path as written: a link into (or above) a denied path would pass.
      const real = realPathIfExists(child);
      if (real === undefined || touchesDenied(real, denied)) continue;
    }
    kept.push(child);
  }
  return kept;
}

/** `list` with every `denied` path (and links to one) left out, folders split along the way. */
function splitAround(
  list: readonly string[],
  denied: readonly string[],
  split: Map<string, number | undefined>,
): string[] {
  let kept = [...list];
  for (const target of denied) {
    kept = kept.flatMap((entry) => {
      if (covers("read", target, entry)) return [];
      if (!covers("read", entry, target)) return [entry];
      return entriesWithout(entry, target, denied, split);
    });
  }
  return kept;
}

/** Each path and, where it exists, its real path. */
function withRealPaths(paths: readonly string[]): string[] {
  return [
    ...new Set(paths.flatMap((p) => [p, realPathIfExists(p)].filter((x) => x !== undefined))),
  ];
}

/**
 * The worker permissions of `effective` whose read list leaves out every --deny-read path
 * inside it (and links to them), so that Deno itself refuses them, node:fs included. Reads
 * the folders along the way; runs on the host. Writes stay with the deny guard: a list
 * split the same way would refuse creating any new file beside a denied one.
 *
 * @param effective The tool's permissions and deny lists.
 * @param hidden Folders left out the same way whatever the grant (harness's data and config
 *   folders, gate/protected_set.ts), but for their exceptions where the grant covers them.
 *
 * @example
 * ```ts
 * import { splitAllowList } from "./allow_list_split.ts";
 * import { noPermissions } from "../grants/effective_permissions.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/.env`, "k");
 * await Deno.writeTextFile(`${dir}/a.txt`, "a");
 * const { permissions } = splitAllowList({
 *   permissions: { ...noPermissions(), read: [dir] },
 *   guard: { read: [`${dir}/.env`] },
 * });
 * if (JSON.stringify(permissions.read) !== JSON.stringify([`${dir}/a.txt`])) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function splitAllowList(
  effective: EffectivePermissions,
  hidden: readonly HiddenEntry[] = [],
): SplitPermissions {
  const split = new Map<string, number | undefined>();
  const granted = effective.permissions.read;
  const guarded = withRealPaths(effective.guard.read ?? []);
  if (granted === false || guarded.length + hidden.length === 0) {
    return { permissions: effective.permissions, split };
  }
  const start = granted === true ? ["/"] : [...granted];
  const list = splitAround(start, [...guarded, ...withRealPaths(hidden.map((e) => e.path))], split);
  // What a hidden folder keeps visible (this workspace's outputs, the user's skills and
  // plugins), where the grant reaches it, still without the --deny-read paths inside.
  const visible = hidden.flatMap((entry) => entry.except).filter((path) =>
    realPathIfExists(path) !== undefined && start.some((entry) => covers("read", entry, path))
  );
  const read = [...list, ...splitAround(visible, guarded, split)];
  return {
    permissions: { ...effective.permissions, read: read.length > 0 ? [...new Set(read)] : false },
    split,
  };
}

/**
 * Whether a folder split for a worker's read list has changed since (an entry added, removed
 * or renamed), so the list no longer says what it holds.
 */
export function splitChanged(split: ReadonlyMap<string, number | undefined>): boolean {
  for (const [folder, mtime] of split) if (modified(folder) !== mtime) return true;
  return false;
}
