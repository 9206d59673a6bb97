// Honest reporting: when a command fails because the command sandbox blocked a write, a
// connection or a hidden path, one line after its output says so and names the flag that
// would allow it, so the model can ask the user instead of retrying blindly.

import { dirname, relative, resolve } from "../../platform/paths.ts";
import type { CommandSandbox } from "./command_sandbox.ts";
import { commandRules, SYSTEM_READ_PATHS } from "./command_sandbox_rules.ts";
import type { Grants } from "../grants/grants.ts";
import { grantCovers } from "../grants/permission_value.ts";
import { protectedCandidates } from "./command_sandbox_protection.ts";
import type { HiddenEntry } from "../../gate/gate_types.ts";

/** Messages of a write refused by a read-only mount (EROFS). */
const READ_ONLY = /([^\s'"`:]*\/[^\s'"`:]*)?['"`]?:?\s*Read-only file system/;
/** Messages of a connection or name lookup that found no network. */
const NO_NETWORK =
  /Network is unreachable|Temporary failure in name resolution|Could not resolve host|Connection refused|Couldn't connect to server|Failed to connect|getaddrinfo|Name or service not known|No address associated with hostname|ECONNREFUSED|ENETUNREACH|EAI_AGAIN/i;
/** The seccomp filter's answer to socket(AF_UNIX) (EAFNOSUPPORT). */
const NO_UNIX_SOCKET = /Address family not supported by protocol|EAFNOSUPPORT/;
/** An absolute path reported missing: possibly outside the read grants, so not mounted. */
const MISSING =
  /['"`]?(\/[^\s'"`:]+)['"`]?:?\s*No such file or directory|cannot create (\/[^\s:]+): Directory nonexistent/;

function quotedPath(text: string): string | undefined {
  return /['"`](\/[^'"`]+)['"`]/.exec(text)?.[1];
}

/**
 * The line for a write refused because the path is kept read-only inside the write grants
 * (command_sandbox_protection.ts), or undefined.
 */
function keptPathIn(
  output: string,
  options: { sandbox: CommandSandbox; cwd?: string },
): string | undefined {
  const protection = options.sandbox.protection;
  if (!protection) return undefined;
  const candidates = protectedCandidates(protection);
  const cwd = options.cwd ?? Deno.cwd();
  for (const line of output.split("\n")) {
    if (!line.includes("Read-only file system")) continue;
    const words = [...line.matchAll(/['"`]([^'"`]+)['"`]|([^\s'"`:]+)/g)]
      .map((m) => m[1] ?? m[2] ?? "");
    for (const word of words) {
      if (!word.includes("/") && !word.startsWith(".")) continue;
      const path = resolve(cwd, word);
      const under = candidates.find((c) => grantCovers("write", [c], path));
      if (under === undefined) continue;
      if (under.endsWith("/.git")) {
        return "[the command sandbox keeps .git read-only: hooks, config and the index " +
          "written there would run programs outside harness (git status); restart harness " +
          'with --writable-git (config "writable_git": true) to let commands commit]';
      }
      return `[the command sandbox keeps "${under}" read-only: harness's settings and ` +
        "plugins there run code when harness starts; change it outside harness]";
    }
  }
  return undefined;
}

/** Lines where a program says it could not open something. */
const REFUSED_OPEN = /permission denied|no such file or directory|cannot open|cannot access/i;

/**
 * The first path a failure line names that --deny-read hides (as the user wrote it, relative
 * to `cwd` when inside it), e.g. `cat: .env: Permission denied`.
 */
function hiddenPathIn(output: string, hidden: readonly string[], cwd: string): string | undefined {
  if (hidden.length === 0) return undefined;
  for (const line of output.split("\n")) {
    if (!REFUSED_OPEN.test(line)) continue;
    const quoted = [...line.matchAll(/['"`]([^'"`]+)['"`]/g)].map((m) => m[1]!);
    const fields = line.split(/:\s+/).map((field) => field.trim());
    for (const candidate of [...quoted, ...fields]) {
      if (candidate === "" || /\s/.test(candidate)) continue;
      const path = resolve(cwd, candidate);
      if (grantCovers("read", hidden, path)) {
        const rel = relative(cwd, path);
        return rel !== "" && !rel.startsWith("..") ? rel : path;
      }
    }
  }
  return undefined;
}

/** The line for a failure naming a path in one of harness's hidden folders, or undefined. */
function harnessFolderIn(
  output: string,
  hidden: readonly HiddenEntry[],
  cwd: string,
): string | undefined {
  for (const entry of hidden) {
    const path = hiddenPathIn(output, [entry.path], cwd);
    if (path === undefined || grantCovers("read", entry.except, resolve(cwd, path))) continue;
    const what = entry.kind === "config"
      ? "harness's config folder (settings with the API key, hooks, policies, the trust store) " +
        "is hidden from commands whatever the read grant; only its skills/ and plugins/ show"
      : "harness's data folder (sessions, checkpoints, every workspace's saved outputs) is " +
        "hidden from commands whatever the read grant; this workspace's saved outputs show";
    return `[the command sandbox hides "${path}": ${what}]`;
  }
  return undefined;
}

/**
 * One line saying what the sandbox blocked and which flag would allow it, or undefined
 * when the output shows nothing the sandbox explains (or commands are not confined).
 *
 * @param output The command's combined output.
 * @param options `sandbox` and `grants` as the command ran with; `cwd`, the folder it ran in
 *   (relative paths in its errors are resolved against it).
 *
 * @example
 * ```ts
 * import { explainBlocked } from "./command_sandbox_report.ts";
 * import { emptyGrants } from "../grants/grants.ts";
 * const note = explainBlocked("touch: cannot touch '/etc/x': Read-only file system", {
 *   sandbox: { mode: "auto", confinement: { kind: "bwrap", program: "bwrap" }, env: {} },
 *   grants: emptyGrants(),
 * });
 * if (!note?.includes("--allow-write=/etc")) throw new Error(note);
 * ```
 */
export function explainBlocked(
  output: string,
  options: { sandbox: CommandSandbox; grants: Grants; cwd?: string },
): string | undefined {
  const { kind } = options.sandbox.confinement;
  if (kind === "none" || kind === "unused") return undefined;
  const rules = commandRules(options.grants);
  const cwd = options.cwd ?? Deno.cwd();
  const hidden = hiddenPathIn(output, rules.hideRead, cwd);
  if (hidden !== undefined) {
    return `[the command sandbox hides "${hidden}" from commands: --deny-read covers it; ` +
      "ask the user if the task needs it]";
  }
  const own = harnessFolderIn(output, options.sandbox.protection?.hidden ?? [], cwd);
  if (own !== undefined) return own;
  const readOnly = READ_ONLY.exec(output);
  const kept = readOnly ? keptPathIn(output, options) : undefined;
  if (kept !== undefined) return kept;
  if (readOnly && options.sandbox.scratch) {
    return "[plan mode: commands cannot change the workspace (it is read-only here, or a " +
      "throwaway copy where bubblewrap can mount one); write only the plan file, and leave " +
      "plan mode to make changes]";
  }
  if (readOnly && !rules.writeAll) {
    const line = output.split("\n").find((l) => l.includes("Read-only file system")) ?? "";
    const path = quotedPath(line) ?? readOnly[1];
    const flag = path ? `--allow-write=${dirname(path)}` : "--allow-write=PATH";
    return `[the command sandbox blocked a write outside the write grants; restart harness ` +
      `with ${flag} to allow it, or write inside the workspace]`;
  }
  if (rules.net && options.sandbox.network && NO_UNIX_SOCKET.test(output)) {
    return "[the command sandbox refuses Unix sockets while commands share the network: " +
      "abstract ones would reach the host's X11 and D-Bus; without --allow-net they work]";
  }
  if (!rules.net && NO_NETWORK.test(output)) {
    return "[the command sandbox has no network: connections fail; restart harness with " +
      "--allow-net to let commands connect]";
  }
  const found = MISSING.exec(output);
  const missing = found?.[1] ?? found?.[2];
  if (missing && !rules.readAll) {
    const visible = [...SYSTEM_READ_PATHS, "/dev", "/proc", ...rules.read, ...rules.write];
    if (!grantCovers("read", visible, missing)) {
      const dir = dirname(missing);
      return `[the command sandbox hides paths outside the read grants, such as "${missing}"; ` +
        `restart harness with --allow-read=${dir} to let commands see them (--allow-write=${dir} ` +
        `to write there)]`;
    }
  }
  return undefined;
}
