// The deny guard of a sandbox worker: Worker permissions cannot express "allow this folder
// but deny that file inside it", so the worker wraps Deno's file, network, process and FFI
// APIs and refuses denied targets with NotCapable before Deno's own allow list applies.

import { basename, dirname, resolve as resolvePath } from "../../platform/paths.ts";
import { fileURLToPath } from "../../platform/file_urls.ts";
import type { PermissionName } from "../grants/permission_name.ts";
import { covers } from "../grants/permission_value.ts";
import { deniedBy, fetchCheckingHops, type NetTarget, urlTarget } from "./net_target.ts";
import { setReadCheck } from "../../platform/read_check.ts";
import { FileGate } from "../../gate/file_gate.ts";
import type { FileAccess, GateView } from "../../gate/gate_types.ts";

/** What a wrapped function does with each path argument; `rw` is read and write. */
type Access = FileAccess | "rw" | null;

const FS_GUARDS: Record<string, Access[]> = {
  readFile: ["read"],
  readTextFile: ["read"],
  readDir: ["list"],
  stat: ["stat"],
  lstat: ["stat"],
  realPath: ["stat"],
  readLink: ["stat"],
  writeFile: ["write"],
  writeTextFile: ["write"],
  mkdir: ["write"],
  remove: ["delete"],
  truncate: ["write"],
  chmod: ["write"],
  chown: ["write"],
  utime: ["write"],
  create: ["rw"],
  copyFile: ["read", "write"],
  // Moving a path takes it out from under the rules on its name: the gate judges the source as
  // a removal (it refuses moving a folder that holds a denied or protected entry).
  rename: ["delete", "rw"],
  // A second name for a file is a way to write it: the source must be writable.
  link: ["rw", "rw"],
  symlink: [null, "write"],
};

/** The deny lists' question for an access: reading or writing. */
function listKind(access: FileAccess): "read" | "write" {
  return access === "read" || access === "list" || access === "stat" ? "read" : "write";
}

function denyError(kind: PermissionName, target: string): Error {
  return new Deno.errors.NotCapable(`Requires ${kind} access to "${target}"`);
}

function keptReadOnlyError(entry: string, target: string): Error {
  const why = basename(entry) === ".git"
    ? "harness keeps .git read-only for tools and commands (hooks and config there run " +
      "programs outside harness); restart harness with --writable-git to allow it"
    : "harness keeps its own settings, trust stores and caches read-only for tools";
  return new Deno.errors.NotCapable(`Cannot write "${target}": ${why}`);
}

/** The guard's write check, once installed (a preview asks it without writing). */
let writeCheck: ((path: string) => void) | undefined;

/**
 * Throws NotCapable when this worker's deny guard refuses writing `path` (a `--deny-write`
 * entry, `.git`, harness's own folders); does nothing where no guard is installed. Deno's
 * own write grant is not asked here.
 *
 * @param path The path a call would write.
 *
 * @example
 * ```ts
 * import { assertMayWrite } from "./deny_guard.ts";
 * assertMayWrite("/tmp/anything"); // no guard in this context: allowed
 * ```
 */
export function assertMayWrite(path: string): void {
  writeCheck?.(path);
}

export function replaceDenoMember(name: string, value: unknown): void {
  try {
    Object.defineProperty(Deno, name, { value, writable: true, configurable: true });
  } catch { /* a frozen member stays unguarded; Deno's own allow list still applies */ }
}

/**
 * A Worker the tool starts inherits its permissions but not this guard, so while any deny
 * entry applies, tools cannot start Workers (blob:, data: or file: alike). The global is
 * made read-only so the tool cannot put a constructor back.
 */
function refuseWorkers(guard: Partial<Record<PermissionName, string[]>>, readOnly: boolean): void {
  const flags = [
    ...Object.entries(guard)
      .filter(([, entries]) => entries && entries.length > 0)
      .map(([kind]) => `--deny-${kind}`),
    ...(readOnly ? ["harness's file gate (.git, .harness, its own folders)"] : []),
  ].join(", ");
  const refused = function Worker(): never {
    throw new Deno.errors.NotCapable(
      `Tools cannot start a Worker while ${flags} applies: the deny list does not reach ` +
        "into a nested Worker. Run the work in the tool itself",
    );
  };
  try {
    Object.defineProperty(globalThis, "Worker", {
      value: refused,
      writable: false,
      configurable: false,
    });
  } catch { /* not in a worker scope (doc tests) */ }
}

/**
 * Wraps Deno APIs so the `guard` entries (deny lists inside allowed grants) throw NotCapable,
 * and every file access asks the file gate first.
 *
 * @param options `gate`: the host's file gate as a view (gate/file_gate.ts): its protected set,
 *   hidden folders and identities refuse with their own sentences; `readOnly`: paths tools may
 *   not write even inside a write grant, for a worker started without a gate.
 */
export function installDenyGuard(
  guard: Partial<Record<PermissionName, string[]>>,
  cwd: string,
  options: { readOnly?: readonly string[]; gate?: GateView } = {},
): void {
  const readOnly = options.readOnly ?? [];
  const gate = options.gate ? FileGate.fromView(options.gate) : undefined;
  const guarded = Object.values(guard).some((entries) => entries && entries.length > 0);
  if (guarded || readOnly.length > 0 || gate) refuseWorkers(guard, readOnly.length > 0 || !!gate);
  if (readOnly.length > 0) guard = { ...guard, write: [...(guard.write ?? []), ...readOnly] };
  const check = (kind: PermissionName, target: string) => {
    if ((guard[kind] ?? []).some((entry) => covers(kind, entry, target))) {
      const kept = kind === "write" && readOnly.find((entry) => covers(kind, entry, target));
      if (kept) throw keptReadOnlyError(kept, target);
      throw denyError(kind, target);
    }
  };
  const toPath = (p: unknown) => resolvePath(cwd, p instanceof URL ? fileURLToPath(p) : String(p));
  // Where a path really leads: a link inside the grant (`src/up -> ..`) must not reach a
  // denied path. Taken before the wrapping below, so it does not check itself.
  const realPath = Deno.realPathSync;
  const realOf = (path: string): string | undefined => {
    try {
      return realPath(path);
    } catch {
      try {
        return resolvePath(realPath(dirname(path)), basename(path)); // a file to be made
      } catch {
        return undefined;
      }
    }
  };
  const checkPath = (access: Access, p: unknown) => {
    if (access === null) return;
    const path = toPath(p);
    const accesses: FileAccess[] = access === "rw" ? ["read", "write"] : [access];
    // The gate holds the user's deny lists as well (and knows where links lead): one check.
    if (gate) {
      for (const each of accesses) gate.assert(each, path);
      return;
    }
    const real = realOf(path);
    for (const target of real === undefined || real === path ? [path] : [path, real]) {
      for (const kind of new Set(accesses.map(listKind))) check(kind, target);
    }
  };
  const denoRecord = Deno as unknown as Record<string, (...args: unknown[]) => unknown>;
  if (guard.write || gate) writeCheck = (path) => checkPath("write", path);
  if (guard.read || guard.write || gate) {
    for (const [base, accesses] of Object.entries(FS_GUARDS)) {
      for (const name of [base, `${base}Sync`]) {
        const original = denoRecord[name];
        if (typeof original !== "function") continue;
        replaceDenoMember(name, (...args: unknown[]) => {
          accesses.forEach((access, i) => checkPath(access, args[i]));
          return original.apply(Deno, args);
        });
      }
    }
    for (const name of ["open", "openSync"]) {
      const original = denoRecord[name]!;
      replaceDenoMember(name, (path: unknown, options?: Deno.OpenOptions) => {
        const o = options ?? {};
        const writes = Boolean(o.write || o.append || o.truncate || o.create || o.createNew);
        checkPath(writes ? (o.read ? "rw" : "write") : "read", path);
        return original.call(Deno, path, options);
      });
    }
  }
  if (guard.read || gate) {
    // harness's own node:fs readers (FileReader) ask before they open a file.
    setReadCheck((path) => checkPath("read", path));
    // fetch() reads file: URLs without going through Deno.readFile.
    const originalFetch = globalThis.fetch;
    globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.protocol === "file:") checkPath("read", url);
      return originalFetch(input, init);
    };
  }
  if (guard.net) {
    const checkHost = (hostname: string, port: number | string | undefined) => {
      check("net", port === undefined || port === "" ? hostname : `${hostname}:${port}`);
      check("net", hostname);
    };
    // By address, not spelling (localhost, [::ffff:127.0.0.1], 0x7f.1...), and every
    // redirect hop: fetch would follow redirects without asking (net_target.ts).
    const denied = guard.net;
    const checkTarget = async (target: NetTarget) => {
      if (await deniedBy(target, denied) !== undefined) {
        throw denyError("net", `${target.hostname}:${target.port}`);
      }
    };
    const originalFetch = globalThis.fetch;
    globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.protocol !== "http:" && url.protocol !== "https:") return originalFetch(input, init);
      return fetchCheckingHops(originalFetch, input, init, (hop) => checkTarget(urlTarget(hop)));
    };
    for (const name of ["connect", "connectTls", "listen", "listenTls"]) {
      const original = denoRecord[name]!;
      replaceDenoMember(name, (options: { hostname?: string; port?: number }) => {
        if (!options || typeof options.port !== "number") return original.call(Deno, options);
        const hostname = options.hostname ?? (name.startsWith("listen") ? "0.0.0.0" : "127.0.0.1");
        checkHost(hostname, options.port);
        if (name.startsWith("listen")) return original.call(Deno, options);
        return checkTarget({ hostname, port: options.port }).then(() =>
          original.call(Deno, options)
        );
      });
    }
  }
  if (guard.run) {
    const Original = Deno.Command;
    const denied = guard.run;
    class GuardedCommand extends Original {
      constructor(command: string | URL, options?: Deno.CommandOptions) {
        const target = command instanceof URL ? fileURLToPath(command) : command;
        if (denied.some((d) => d === target || (!/[\\/]/.test(d) && d === basename(target)))) {
          throw denyError("run", target);
        }
        super(command, options);
      }
    }
    replaceDenoMember("Command", GuardedCommand);
  }
  if (guard.ffi) {
    const original = denoRecord.dlopen;
    if (typeof original === "function") {
      replaceDenoMember("dlopen", (path: unknown, symbols: unknown) => {
        check("ffi", toPath(path));
        return original.call(Deno, path, symbols);
      });
    }
  }
}
