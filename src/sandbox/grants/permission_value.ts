// What a single allow or deny value means: paths are stored absolute and shown relative to
// the cwd, and `covers` decides whether a value matches a target. grants.ts parses and
// formats with these; effective_permissions.ts and workers/deny_guard.ts match with them.

import { paths } from "../../platform/paths.ts";
import type { Grant, PermissionName } from "./permission_name.ts";

const { isAbsolute, relative, resolve, sep } = paths;

const PATH_KINDS: ReadonlySet<PermissionName> = new Set(["read", "write", "ffi"]);

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * A flag or declaration value as stored in grants: paths (and `run` values that look like
 * paths) are resolved against `cwd`; names, hosts and variables are kept as given.
 *
 * @param kind The permission the value belongs to.
 * @param value The value as written by the user or a tool.
 * @param cwd The folder relative paths start from.
 * @returns The stored value.
 *
 * @example
 * ```ts
 * import { normalisePermissionValue } from "./permission_value.ts";
 * if (normalisePermissionValue("read", "src", "/w") !== "/w/src") throw new Error();
 * if (normalisePermissionValue("run", "git", "/w") !== "git") throw new Error();
 * ```
 */
export function normalisePermissionValue(kind: PermissionName, value: string, cwd: string): string {
  if (PATH_KINDS.has(kind)) return resolve(cwd, value);
  if (kind === "run" && (value.includes("/") || value.includes("\\"))) return resolve(cwd, value);
  return value;
}

/**
 * A stored value as shown to the user: paths inside `cwd` become `./rel` (or `.`), anything
 * else is shown as stored.
 *
 * @param kind The permission the value belongs to.
 * @param value The stored value.
 * @param cwd The folder paths are shown relative to.
 * @returns The display form.
 *
 * @example
 * ```ts
 * import { displayPermissionValue } from "./permission_value.ts";
 * if (displayPermissionValue("read", "/w/src", "/w") !== "./src") throw new Error();
 * if (displayPermissionValue("read", "/etc", "/w") !== "/etc") throw new Error();
 * ```
 */
export function displayPermissionValue(kind: PermissionName, value: string, cwd: string): string {
  if (!PATH_KINDS.has(kind) && !(kind === "run" && isAbsolute(value))) return value;
  if (!isInside(cwd, value)) return value;
  const rel = relative(cwd, value);
  return rel === "" ? "." : `./${rel}`;
}

/**
 * Whether `entry` (an allow or deny value) covers `target`: a folder covers what is inside
 * it, a host covers each of its ports, `FOO_*` covers env names starting with `FOO_`.
 *
 * @example
 * ```ts
 * import { covers } from "./permission_value.ts";
 * if (!covers("read", "/w", "/w/a") || !covers("net", "a.com", "a.com:443")) throw new Error();
 * ```
 */
export function covers(kind: PermissionName, entry: string, target: string): boolean {
  if (entry === target) return true;
  if (PATH_KINDS.has(kind)) return isInside(entry, target);
  if (kind === "net") return !entry.includes(":") && target.startsWith(`${entry}:`);
  if (kind === "env" && entry.endsWith("*")) return target.startsWith(entry.slice(0, -1));
  return false;
}

/**
 * Whether a grant allows `target` (`undefined` asks for the whole permission).
 *
 * @example
 * ```ts
 * import { grantCovers } from "./permission_value.ts";
 * if (!grantCovers("read", ["/w"], "/w/a.txt")) throw new Error();
 * ```
 */
export function grantCovers(kind: PermissionName, grant: Grant, target?: string): boolean {
  if (grant === true) return true;
  if (target === undefined) return false;
  return grant.some((entry) => covers(kind, entry, target));
}
