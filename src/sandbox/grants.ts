// The outer sandbox's permission algebra. A compiled binary's own Deno permissions are fixed,
// so the harness parses Deno's `--allow-*` / `--deny-*` flags itself (main.ts calls
// parseGrantFlags first), and tool_host.ts narrows these grants per tool into the
// `deno.permissions` of the Worker the tool runs in. Pure apart from reading the cwd.

import { isAbsolute, relative, resolve, sep } from "node:path";
import { err, ok, type Result } from "../errors.ts";
import type { AgentError } from "../errors.ts";
import type { ToolPermissions } from "../tools/define_tool.ts";

/** The Deno permissions the harness understands. */
export type PermissionName = "read" | "write" | "net" | "run" | "env" | "sys" | "ffi";

/** All permission names, in display order. */
export const PERMISSION_NAMES: readonly PermissionName[] = [
  "read",
  "write",
  "net",
  "run",
  "env",
  "sys",
  "ffi",
];

/** One permission's grant: `true` is everything, a list names what is allowed, `[]` nothing. */
export type Grant = true | readonly string[];

/** The user's permission flags; paths are absolute. */
export interface Grants {
  allow: Record<PermissionName, Grant>;
  deny: Record<PermissionName, Grant>;
}

/** What a Worker receives as `deno.permissions`. */
export type WorkerPermissions = Record<PermissionName, boolean | string[]> & { import: false };

/** A tool's effective sandbox: worker permissions plus denials Deno cannot express there. */
export interface EffectivePermissions {
  permissions: WorkerPermissions;
  /** Deny entries the worker enforces with a guard around Deno APIs (see tool_worker.ts). */
  guard: Partial<Record<PermissionName, string[]>>;
}

const SHORT_FLAGS: Record<string, PermissionName | "all"> = {
  R: "read",
  W: "write",
  N: "net",
  E: "env",
  S: "sys",
  A: "all",
};

const PATH_KINDS: ReadonlySet<PermissionName> = new Set(["read", "write", "ffi"]);

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

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

function normaliseValue(kind: PermissionName, value: string, cwd: string): string {
  if (PATH_KINDS.has(kind)) return resolve(cwd, value);
  if (kind === "run" && (value.includes("/") || value.includes("\\"))) return resolve(cwd, value);
  return value;
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
      : value.split(",").map((v) => normaliseValue(kind, v, cwd));
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

function displayValue(kind: PermissionName, value: string, cwd: string): string {
  if (!PATH_KINDS.has(kind) && !(kind === "run" && isAbsolute(value))) return value;
  if (!isInside(cwd, value)) return value;
  const rel = relative(cwd, value);
  return rel === "" ? "." : `./${rel}`;
}

function displayGrant(kind: PermissionName, grant: Grant, cwd: string): string {
  if (grant === true) return "all";
  if (grant.length === 0) return "none";
  return grant.map((v) => displayValue(kind, v, cwd)).join(",");
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

/**
 * The flag that would allow an operation, e.g. `--allow-read=/etc/passwd`.
 *
 * @example
 * ```ts
 * import { flagFor } from "./grants.ts";
 * if (flagFor("read", "/etc/passwd") !== "--allow-read=/etc/passwd") throw new Error();
 * if (flagFor("net") !== "--allow-net") throw new Error();
 * ```
 */
export function flagFor(permission: PermissionName, target?: string): string {
  return target === undefined || target === ""
    ? `--allow-${permission}`
    : `--allow-${permission}=${target}`;
}

/**
 * Whether `entry` (an allow or deny value) covers `target`: a folder covers what is inside
 * it, a host covers each of its ports, `FOO_*` covers env names starting with `FOO_`.
 *
 * @example
 * ```ts
 * import { covers } from "./grants.ts";
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
 * import { grantCovers } from "./grants.ts";
 * if (!grantCovers("read", ["/w"], "/w/a.txt")) throw new Error();
 * ```
 */
export function grantCovers(kind: PermissionName, grant: Grant, target?: string): boolean {
  if (grant === true) return true;
  if (target === undefined) return false;
  return grant.some((entry) => covers(kind, entry, target));
}

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
  return value.map((v) => normaliseValue(kind, v, workspace));
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
 * import { effectivePermissions, parseGrantFlags } from "./grants.ts";
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
  const permissions: WorkerPermissions = {
    read: false,
    write: false,
    net: false,
    run: false,
    env: false,
    sys: false,
    ffi: false,
    import: false,
  };
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
 * Turns Deno's permission error text into advice naming the flag that would allow it, e.g.
 * `Requires read access to "/etc/hosts": restart harness with --allow-read=/etc/hosts`.
 * When the user's grants already allow it, the tool's own declaration is what is missing.
 *
 * @example
 * ```ts
 * import { describeNotCapable, emptyGrants } from "./grants.ts";
 * const text = describeNotCapable(
 *   'Requires read access to "/etc/hosts", run again with the --allow-read flag',
 *   { grants: emptyGrants(), tool: "cat" },
 * );
 * if (text !== 'Requires read access to "/etc/hosts": restart harness with --allow-read=/etc/hosts') throw new Error(text);
 * ```
 */
export function describeNotCapable(
  message: string,
  options: { grants: Grants; tool: string },
): string {
  const match = /^Requires (read|write|net|run|env|sys|ffi) access(?: to "((?:[^"\\]|\\.)*)")?/
    .exec(message);
  if (!match) return message;
  const kind = match[1] as PermissionName;
  const target = match[2];
  const head = target === undefined
    ? `Requires ${kind} access`
    : `Requires ${kind} access to "${target}"`;
  const denied = grantCovers(kind, options.grants.deny[kind], target);
  if (denied) return `${head}: it is denied by --deny-${kind}`;
  if (grantCovers(kind, options.grants.allow[kind], target)) {
    return `${head}: tool "${options.tool}" does not declare it in its permissions`;
  }
  return `${head}: restart harness with ${flagFor(kind, target)}`;
}
