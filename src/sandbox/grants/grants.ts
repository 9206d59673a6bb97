// The user's grants for the outer sandbox: what Deno's `--allow-*` / `--deny-*` flags allowed
// (src/cli/grant_flags.ts parses them), shown in one line; effective_permissions.ts later
// narrows these grants per tool. Pure apart from reading the cwd.

import { type Grant, PERMISSION_NAMES, type PermissionName } from "./permission_name.ts";
import { displayPermissionValue } from "./permission_value.ts";

/** The user's permission flags; paths are absolute. */
export interface Grants {
  allow: Record<PermissionName, Grant>;
  deny: Record<PermissionName, Grant>;
}

/**
 * Grants with nothing allowed or denied.
 *
 * @example
 * ```ts
 * import { emptyGrants } from "./grants.ts";
 * const grants = emptyGrants();
 * if (JSON.stringify(grants.allow.read) !== "[]") throw new Error();
 * ```
 */
export function emptyGrants(): Grants {
  const none = (): Record<PermissionName, Grant> => ({
    read: [],
    write: [],
    net: [],
    run: [],
    env: [],
    sys: [],
    ffi: [],
  });
  return { allow: none(), deny: none() };
}

function displayGrant(kind: PermissionName, grant: Grant, cwd: string): string {
  if (grant === true) return "all";
  if (grant.length === 0) return "none";
  return grant.map((v) => displayPermissionValue(kind, v, cwd)).join(",");
}

/**
 * One compact line describing the grants, for the startup banner and `/permissions`.
 * Paths inside `cwd` are shown relative to it; deny entries follow as `deny-<name>=...`.
 *
 * @example
 * ```ts
 * import { formatGrants } from "./grants.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const r = parseGrantFlags(["-R", "--deny-read=.env"], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * const line = formatGrants(r.value.grants, { cwd: "/w" });
 * if (line !== "read=all write=none net=none run=none env=none sys=none ffi=none deny-read=./.env") throw new Error(line);
 * ```
 */
export function formatGrants(grants: Grants, options: { cwd?: string } = {}): string {
  const cwd = options.cwd ?? Deno.cwd();
  const parts = PERMISSION_NAMES.map((k) => `${k}=${displayGrant(k, grants.allow[k], cwd)}`);
  for (const kind of PERMISSION_NAMES) {
    const deny = grants.deny[kind];
    if (deny === true || deny.length > 0) {
      parts.push(`deny-${kind}=${displayGrant(kind, deny, cwd)}`);
    }
  }
  return parts.join(" ");
}
