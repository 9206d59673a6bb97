// The deny guard of a sandbox worker: Worker permissions cannot express "allow this folder
// but deny that file inside it", so the worker wraps Deno's file, network, process and FFI
// APIs and refuses denied targets with NotCapable before Deno's own allow list applies.

import { basename, dirname, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import type { PermissionName } from "./permission_name.ts";
import { covers } from "./permission_value.ts";
import { deniedBy, fetchCheckingHops, type NetTarget, urlTarget } from "./net_target.ts";
import { setReadCheck } from "../platform/read_check.ts";

type Access = "read" | "write" | "rw" | null;

const FS_GUARDS: Record<string, Access[]> = {
  readFile: ["read"],
  readTextFile: ["read"],
  readDir: ["read"],
  stat: ["read"],
  lstat: ["read"],
  realPath: ["read"],
  readLink: ["read"],
  writeFile: ["write"],
  writeTextFile: ["write"],
  mkdir: ["write"],
  remove: ["write"],
  truncate: ["write"],
  chmod: ["write"],
  chown: ["write"],
  utime: ["write"],
  create: ["rw"],
  copyFile: ["read", "write"],
  rename: ["rw", "rw"],
  link: ["rw", "rw"],
  symlink: [null, "write"],
};

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
    ...(readOnly ? ["harness's read-only paths (.git)"] : []),
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
 * Wraps Deno APIs so the `guard` entries (deny lists inside allowed grants) throw NotCapable.
 *
 * @param options `readOnly`: paths tools may not write even inside a write grant (`.git`,
 *   harness's own folders: command_sandbox_protection.ts), refused with their own reason.
 */
export function installDenyGuard(
  guard: Partial<Record<PermissionName, string[]>>,
  cwd: string,
  options: { readOnly?: readonly string[] } = {},
): void {
  const readOnly = options.readOnly ?? [];
  if (Object.values(guard).some((entries) => entries && entries.length > 0) || readOnly.length) {
    refuseWorkers(guard, readOnly.length > 0);
  }
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
    const real = realOf(path);
    for (const target of real === undefined || real === path ? [path] : [path, real]) {
      if (access !== "write") check("read", target);
      if (access !== "read") check("write", target);
    }
  };
  const denoRecord = Deno as unknown as Record<string, (...args: unknown[]) => unknown>;
  if (guard.write) writeCheck = (path) => checkPath("write", path);
  if (guard.read || guard.write) {
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
  if (guard.read) {
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
