// Narrows the user's grants to one tool's sandbox. workers/tool_catalog.ts groups tools by the
// result and each group's Worker gets `permissions` as its `deno.permissions`; deny entries a
// Worker cannot express come back in `guard` for workers/deny_guard.ts to enforce inside the
// worker.

import type { ToolPermissions } from "../../tools/define_tool.ts";
import type { Grants } from "./grants.ts";
import { type Grant, PERMISSION_NAMES, type PermissionName } from "./permission_name.ts";
import { covers, normalisePermissionValue } from "./permission_value.ts";

/** What a Worker receives as `deno.permissions`. */
export type WorkerPermissions = Record<PermissionName, boolean | string[]> & { import: false };

/** A tool's effective sandbox: worker permissions plus denials Deno cannot express there. */
export interface EffectivePermissions {
  permissions: WorkerPermissions;
  /** Deny entries the worker enforces with a guard around Deno APIs (workers/tool_worker.ts). */
  guard: Partial<Record<PermissionName, string[]>>;
}

/** The `Deno.permissions.query` names of `--allow-sys`, used to narrow `-S` by a deny list. */
const SYS_NAMES = [
  "hostname",
  "osRelease",
  "osUptime",
  "loadavg",
  "networkInterfaces",
  "systemMemoryInfo",
  "uid",
  "gid",
  "cpus",
  "homedir",
  "getegid",
  "statfs",
  "getPriority",
  "setPriority",
  "userInfo",
];

function intersect(kind: PermissionName, user: Grant, declared: Grant): Grant {
  if (user === true) return declared;
  if (declared === true) return user;
  const kept = [
    ...declared.filter((d) => user.some((u) => covers(kind, u, d))),
    ...user.filter((u) => declared.some((d) => covers(kind, d, u))),
  ];
  return [...new Set(kept)];
}

function declaredGrant(
  kind: PermissionName,
  value: boolean | string[] | undefined,
  workspace: string,
): Grant {
  if (value === undefined || value === false) return [];
  if (value === true) return true;
  return value.map((v) => normalisePermissionValue(kind, v, workspace));
}

/**
 * A Worker's permissions with everything denied: the start every sandbox narrows from.
 *
 * @returns A fresh object (callers fill it in).
 */
export function noPermissions(): WorkerPermissions {
  return {
    read: false,
    write: false,
    net: false,
    run: false,
    env: false,
    sys: false,
    ffi: false,
    import: false,
  };
}

/**
 * A tool's sandbox: the user's grants narrowed by what the tool declares (a permission it
 * leaves out is denied), minus `--deny-*` entries. Deny lists a Worker cannot express are
 * returned in `guard` for the worker to enforce.
 *
 * @param grants The user's grants.
 * @param declared The tool's `permissions` (paths relative to the workspace).
 * @param options `workspace` resolves declared paths; `env` lists variable names so
 *   `--allow-env --deny-env=X` can become an explicit list.
 *
 * @example
 * ```ts
 * import { effectivePermissions } from "./effective_permissions.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const r = parseGrantFlags(["--allow-read", "--allow-write=/w/out"], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * const e = effectivePermissions(r.value.grants, { read: ["."], write: true }, { workspace: "/w" });
 * if (JSON.stringify(e.permissions.read) !== '["/w"]') throw new Error();
 * if (JSON.stringify(e.permissions.write) !== '["/w/out"]') throw new Error();
 * if (e.permissions.net !== false) throw new Error();
 * ```
 */
export function effectivePermissions(
  grants: Grants,
  declared: ToolPermissions | undefined,
  options: { workspace: string; env?: readonly string[] },
): EffectivePermissions {
  const permissions = noPermissions();
  const guard: Partial<Record<PermissionName, string[]>> = {};
  for (const kind of PERMISSION_NAMES) {
    let grant = intersect(
      kind,
      grants.allow[kind],
      declaredGrant(kind, declared?.[kind], options.workspace),
    );
    const deny = grants.deny[kind];
    if (deny === true) grant = [];
    else if (deny.length > 0) {
      if (grant === true && kind === "sys") grant = SYS_NAMES;
      if (grant === true && kind === "env" && options.env) grant = [...options.env];
      if (grant === true) {
        guard[kind] = [...deny];
      } else {
        grant = grant.filter((entry) => !deny.some((d) => covers(kind, d, entry)));
        const inner = deny.filter((d) =>
          (grant as readonly string[]).some((e) => covers(kind, e, d))
        );
        if (inner.length > 0) guard[kind] = inner;
      }
    }
    permissions[kind] = grant === true ? true : grant.length === 0 ? false : [...grant];
  }
  return { permissions, guard };
}

/**
 * A sandbox that may also read `folders` (a loaded skill's, from the file gate's session
 * reads); nothing else changes, writes least of all.
 *
 * @param effective A tool's sandbox.
 * @param folders Absolute folders.
 * @returns The sandbox to start a worker with.
 *
 * @example
 * ```ts
 * import { noPermissions, withReadFolders } from "./effective_permissions.ts";
 * const out = withReadFolders({ permissions: noPermissions(), guard: {} }, ["/skills/pdf"]);
 * if (JSON.stringify(out.permissions.read) !== '["/skills/pdf"]' || out.permissions.write) throw new Error();
 * ```
 */
export function withReadFolders(
  effective: EffectivePermissions,
  folders: readonly string[],
): EffectivePermissions {
  const { permissions } = effective;
  if (folders.length === 0 || permissions.read === true) return effective;
  const read = [...new Set([...(permissions.read || []), ...folders])];
  return { ...effective, permissions: { ...permissions, read } };
}
