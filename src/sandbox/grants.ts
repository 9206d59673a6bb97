// The user's grants for the outer sandbox. A compiled binary's own Deno permissions are fixed,
// so the harness parses Deno's `--allow-*` / `--deny-*` flags itself (main.ts calls
// parseGrantFlags first) and shows the result in one line; effective_permissions.ts later
// narrows these grants per tool. Pure apart from reading the cwd.

import { err, ok, type Result } from "../errors.ts";
import type { AgentError } from "../errors.ts";
import { type Grant, PERMISSION_NAMES, type PermissionName } from "./permission_name.ts";
import { displayPermissionValue, normalisePermissionValue } from "./permission_value.ts";

/** The user's permission flags; paths are absolute. */
export interface Grants {
  allow: Record<PermissionName, Grant>;
  deny: Record<PermissionName, Grant>;
}

const SHORT_FLAGS: Record<string, PermissionName | "all"> = {
  R: "read",
  W: "write",
  N: "net",
  E: "env",
  S: "sys",
  A: "all",
};

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

function merge(current: Grant, added: Grant): Grant {
  if (current === true || added === true) return true;
  return [...new Set([...current, ...added])];
}

/**
 * Takes Deno's permission flags out of argv. Recognised: `--allow-<name>[=a,b]`,
 * `--deny-<name>[=a,b]` for read, write, net, run, env, sys, ffi; `-A` / `--allow-all`;
 * the short forms `-R -W -N -E -S` (alone, clustered as `-RW`, or with `=value` as Deno
 * accepts). Repeated flags merge. Anything else, including look-alikes such as
 * `--allow-foo`, stays in `rest` in order for the CLI parser. Parsing stops at `--`.
 *
 * @param argv Command-line arguments.
 * @param options `cwd` resolves relative paths (default `Deno.cwd()`).
 * @returns The grants and the other arguments, or a usage error for an empty value.
 *
 * @example
 * ```ts
 * import { parseGrantFlags } from "./grants.ts";
 * const r = parseGrantFlags(["-p", "hi", "--allow-read=src,docs", "-N"], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * if (JSON.stringify(r.value.grants.allow.read) !== '["/w/src","/w/docs"]') throw new Error();
 * if (r.value.rest.join(" ") !== "-p hi") throw new Error();
 * ```
 */
export function parseGrantFlags(
  argv: readonly string[],
  options: { cwd?: string } = {},
): Result<{ grants: Grants; rest: string[] }, AgentError> {
  const cwd = options.cwd ?? Deno.cwd();
  const grants = emptyGrants();
  const rest: string[] = [];
  const add = (side: "allow" | "deny", kind: PermissionName, value: string | undefined) => {
    const grant: Grant = value === undefined
      ? true
      : value.split(",").map((v) => normalisePermissionValue(kind, v, cwd));
    grants[side][kind] = merge(grants[side][kind], grant);
  };
  const allowAll = () => {
    for (const kind of PERMISSION_NAMES) grants.allow[kind] = true;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const long = /^--(allow|deny)-(read|write|net|run|env|sys|ffi)(?:=(.*))?$/s.exec(arg);
    const short = /^-([RWNESA]+)(?:=(.*))?$/s.exec(arg);
    const value = long ? long[3] : short?.[2];
    // Deno takes a value only on a single short flag other than -A (`-R=src`, not `-RW=src`).
    const isShort = short !== null && (value === undefined || /^[RWNES]$/.test(short[1]!));
    if (arg !== "--allow-all" && !long && !isShort) {
      rest.push(arg);
      continue;
    }
    if (value !== undefined && value.split(",").some((v) => v === "")) {
      return err({
        kind: "usage",
        message: `Empty value in "${arg}": give a comma-separated list such as ${
          arg.split("=")[0]
        }=./src,./docs, or no value to allow everything`,
      });
    }
    if (long) add(long[1] as "allow" | "deny", long[2] as PermissionName, value);
    for (const letter of isShort ? short![1]! : arg === "--allow-all" ? "A" : "") {
      const kind = SHORT_FLAGS[letter]!;
      if (kind === "all") allowAll();
      else add("allow", kind, value);
    }
  }
  return ok({ grants, rest });
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
 * import { formatGrants, parseGrantFlags } from "./grants.ts";
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
