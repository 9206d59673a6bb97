// What a command started by a tool may touch, built from the user's grants: the bubblewrap
// argument list (Linux), the sandbox-exec profile (macOS) and the clean environment. Pure
// apart from `stat` calls that tell a hidden file from a hidden folder; command_sandbox.ts
// decides which of them applies and starts the process.

import type { Grants } from "../grants/grants.ts";
import type { Grant } from "../grants/permission_name.ts";
import { realPathIfExists } from "../../platform/real_path_if_exists.ts";
import type { HiddenEntry } from "../../gate/gate_types.ts";
import { renamePins } from "./command_sandbox_protection.ts";

/** Folders every command may read so that a shell and common programs work. */
export const SYSTEM_READ_PATHS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
];

/** The variables a command always gets (when set), before what --allow-env names. */
export const BASE_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "LANG",
  "TERM",
  "USER",
  "SHELL",
  "TMPDIR",
  // Windows programs need these to start at all.
  "SystemRoot",
  "ComSpec",
  "PATHEXT",
  "TEMP",
  "TMP",
  "USERPROFILE",
];

/** harness's own settings and the API keys it reads: never handed to a command. */
const NEVER_PASSED = /^(HARNESS_.*|OPENAI_API_KEY|ANTHROPIC_API_KEY)$/;

/**
 * Plan mode's scratch folders (grants/plan_mode_grants.ts): a command may write them, and what it
 * writes is thrown away with its sandbox. `overlay` says whether bubblewrap can mount a
 * throwaway overlay here (0.9 or later, not setuid); without one they are read-only.
 */
export interface CommandScratch {
  paths: readonly string[];
  overlay: boolean;
}

/** Where a command may write, read and connect: the grants as the sandbox applies them. */
export interface CommandRules {
  readAll: boolean;
  writeAll: boolean;
  net: boolean;
  read: string[];
  write: string[];
  hideRead: string[];
  keepReadOnly: string[];
}

function list(grant: Grant): string[] {
  return grant === true ? [] : [...grant];
}

/**
 * The grants as the command sandbox applies them: a network grant of any kind shares the
 * network (an OS sandbox cannot limit it to hosts), `--deny-net` without a list takes it away.
 *
 * @example
 * ```ts
 * import { commandRules } from "./command_sandbox_rules.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const r = parseGrantFlags(["--allow-read=.", "--allow-write=out"], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * const rules = commandRules(r.value.grants);
 * if (rules.net || rules.readAll || rules.write[0] !== "/w/out") throw new Error();
 * ```
 */
export function commandRules(grants: Grants): CommandRules {
  const { allow, deny } = grants;
  const net = (allow.net === true || allow.net.length > 0) && deny.net !== true;
  return {
    readAll: allow.read === true && deny.read !== true,
    writeAll: allow.write === true && deny.write !== true && deny.read !== true,
    net,
    read: deny.read === true ? [] : list(allow.read),
    write: deny.write === true ? [] : list(allow.write),
    hideRead: list(deny.read),
    keepReadOnly: list(deny.write),
  };
}

function isUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

function isFolder(path: string): boolean | undefined {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return undefined;
  }
}

/** Where `path` really is (links resolved), or `path` when it does not exist. */
function realPathOf(path: string): string {
  return realPathIfExists(path) ?? path;
}

/** Each path and, when a link leads elsewhere, where it really is (the OS checks that). */
function withRealPaths(paths: readonly string[]): string[] {
  return [...new Set(paths.flatMap((path) => [path, realPathOf(path)]))];
}

/**
 * bubblewrap's arguments (before `--` and the command): the system folders and the read
 * grants read-only, the write grants writable, a private `/tmp`, `/proc` of a new PID
 * namespace, no network unless granted, a new session, and death with the parent.
 *
 * @param grants The user's grants.
 * @param options `cwd`: the folder the command starts in; `readOnly`: paths inside the write
 *   grants to keep read-only (command_sandbox_protection.ts); `hidden`: folders hidden whatever
 *   the read grants (harness's data folder), but for their exceptions; `scratch`: plan mode's
 *   throwaway folders.
 * @returns The arguments, ending with `--chdir cwd`.
 *
 * @example
 * ```ts
 * import { bwrapArguments } from "./command_sandbox_rules.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const r = parseGrantFlags(["--allow-read=.", "--allow-write=."], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * const args = bwrapArguments(r.value.grants, { cwd: "/w" }).join(" ");
 * if (!args.includes("--unshare-all") || args.includes("--share-net")) throw new Error(args);
 * if (!args.includes("--bind-try /w /w")) throw new Error(args);
 * ```
 */
export function bwrapArguments(
  grants: Grants,
  options: {
    cwd: string;
    readOnly?: readonly string[];
    hidden?: readonly HiddenEntry[];
    scratch?: CommandScratch;
  },
): string[] {
  const rules = commandRules(grants);
  // Started by root, bubblewrap keeps every capability inside its namespaces, enough to
  // remount a read-only folder writable: drop them all.
  const args = ["--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL"];
  if (rules.net) args.push("--share-net");
  if (rules.writeAll) args.push("--bind", "/", "/");
  else if (rules.readAll) args.push("--ro-bind", "/", "/");
  else for (const path of SYSTEM_READ_PATHS) args.push("--ro-bind-try", path, path);
  args.push("--dev", "/dev", "--proc", "/proc");
  if (!rules.writeAll) args.push("--tmpfs", "/tmp");
  // A read-only mount does not stop connect() to a Unix socket: with the whole filesystem
  // readable, the daemons' sockets under /run (Docker, D-Bus, systemd) would be reachable.
  if (rules.readAll && !rules.writeAll) args.push("--tmpfs", "/run");
  if (rules.net) {
    // /etc/resolv.conf often links here; without it names do not resolve.
    args.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  }
  if (!rules.readAll && !rules.writeAll) {
    for (const path of rules.read) args.push("--ro-bind-try", path, path);
  } else if (
    rules.readAll && !rules.writeAll &&
    (isUnder(options.cwd, "/tmp") || isUnder(options.cwd, "/run"))
  ) {
    // Reading everything includes the real folder the command starts in, which the private
    // /tmp (or the empty /run) would otherwise hide.
    args.push("--ro-bind-try", options.cwd, options.cwd);
  }
  // Plan mode: what was writable is a throwaway overlay (before the write grants, which would
  // otherwise be hidden under it), or read-only where no overlay can be made.
  for (const path of options.scratch?.paths ?? []) {
    if (options.scratch?.overlay && isFolder(path)) {
      args.push("--overlay-src", path, "--tmp-overlay", path);
    } else args.push("--ro-bind-try", path, path);
  }
  if (!rules.writeAll) { for (const path of rules.write) args.push("--bind-try", path, path); }
  args.push(...keptMounts(rules, options));
  args.push("--chdir", options.cwd);
  return args;
}

/**
 * The mounts inside the write grants: the folders above every kept entry pinned (a folder
 * bound onto itself stays writable but cannot be renamed or removed, so a command cannot move
 * a hidden file or a read-only folder out from under its mount), then the read-only paths,
 * the `--deny-read` entries hidden, the `--deny-write` entries read-only, and the hidden
 * folders (harness's data) replaced by an empty read-only folder holding only their exceptions.
 */
function keptMounts(
  rules: CommandRules,
  options: { readOnly?: readonly string[]; hidden?: readonly HiddenEntry[] },
): string[] {
  const args: string[] = [];
  const readOnly = options.readOnly ?? [];
  // Decided here, on the host (a tool worker's deny guard refuses the stat). Mounts land
  // where a link leads, so a denied entry that is a link hides its target.
  const hide = [...new Set(rules.hideRead.map(realPathOf))]
    .map((path) => ({ path, folder: isFolder(path) }))
    .filter((entry) => entry.folder !== undefined);
  const keep = [...new Set(rules.keepReadOnly.map(realPathOf))].filter((path) =>
    isFolder(path) !== undefined
  );
  const hidden = (options.hidden ?? []).filter((entry) =>
    isFolder(entry.path) === true && (rules.readAll || rules.writeAll ||
      [...rules.read, ...rules.write].some((grant) =>
        isUnder(entry.path, grant) || isUnder(grant, entry.path)
      ))
  );
  const kept = [...readOnly, ...hide.map((e) => e.path), ...keep, ...hidden.map((e) => e.path)];
  for (const pin of renamePins(kept, rules)) args.push("--bind", pin, pin);
  // A read-only mount point cannot be written, removed or renamed over (EBUSY).
  for (const path of readOnly) args.push("--ro-bind", path, path);
  // A denied folder becomes an empty read-only folder, a denied file /dev/null, which a bind
  // mount (nodev) refuses to open, so `cat .env` fails with "Permission denied".
  for (const { path, folder } of hide) {
    if (folder) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  for (const path of keep) args.push("--ro-bind", path, path);
  for (const entry of hidden) {
    args.push("--tmpfs", entry.path);
    for (const except of entry.except) args.push("--ro-bind-try", except, except);
    args.push("--remount-ro", entry.path);
  }
  return args;
}

/** A string in a sandbox profile (SBPL): double quotes, backslash escapes. */
function sbplString(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

function subpaths(paths: readonly string[]): string {
  return paths.map((path) => `(subpath ${sbplString(path)})`).join(" ");
}

/**
 * The macOS `sandbox-exec` profile of the same rules: deny by default; read the system and
 * the read grants; write the write grants, the temp folders and `/dev/null`; network only when
 * granted; denied paths neither read nor written.
 *
 * @example
 * ```ts
 * import { sandboxExecProfile } from "./command_sandbox_rules.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const r = parseGrantFlags(["--allow-read=.", "--allow-write=."], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * const profile = sandboxExecProfile(r.value.grants);
 * if (!/\(allow file-write\* .*\(subpath "\/w"\)/.test(profile)) throw new Error(profile);
 * if (profile.includes("(allow network")) throw new Error(profile);
 * ```
 */
export function sandboxExecProfile(
  grants: Grants,
  options: { readOnly?: readonly string[]; hidden?: readonly HiddenEntry[] } = {},
): string {
  const rules = commandRules(grants);
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow sysctl-read mach-lookup ipc-posix-shm pseudo-tty)",
    "(allow file-read-metadata)",
  ];
  if (rules.readAll) lines.push("(allow file-read*)");
  else {
    const system = ["/usr", "/bin", "/sbin", "/System", "/Library", "/private/etc", "/dev"];
    const extra = ["/private/var/db", "/private/tmp", "/private/var/folders", "/opt/homebrew"];
    lines.push(`(allow file-read* ${subpaths([...system, ...extra, ...rules.read])})`);
  }
  if (rules.writeAll) lines.push("(allow file-write*)");
  else {
    const writable = ["/private/tmp", "/private/var/folders", ...rules.write];
    lines.push(`(allow file-write* ${subpaths(writable)} (literal "/dev/null"))`);
  }
  if (rules.net) lines.push("(allow network*)");
  // Seatbelt matches real paths: a denied entry that is a link is denied where it leads too.
  if (rules.hideRead.length > 0) {
    lines.push(`(deny file-read* file-write* ${subpaths(withRealPaths(rules.hideRead))})`);
  }
  const keep = [...withRealPaths(rules.keepReadOnly), ...(options.readOnly ?? [])];
  if (keep.length > 0) lines.push(`(deny file-write* ${subpaths(keep)})`);
  // harness's data folder, whatever the grants; the last matching rule wins, so the
  // exceptions (this workspace's saved outputs) are read-only again after it.
  for (const entry of options.hidden ?? []) {
    lines.push(`(deny file-read* file-write* ${subpaths(withRealPaths([entry.path]))})`);
    if (entry.except.length > 0) {
      lines.push(`(allow file-read* ${subpaths(withRealPaths(entry.except))})`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The clean environment of a command: {@link BASE_ENV_NAMES} and what `--allow-env` names
 * (all variables for a bare `--allow-env`; `PREFIX*` entries match by prefix), minus
 * `--deny-env`, and never `HARNESS_*` or the API keys harness reads.
 *
 * @param grants The user's grants.
 * @param env harness's own environment.
 *
 * @example
 * ```ts
 * import { commandEnvironment } from "./command_sandbox_rules.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const r = parseGrantFlags(["--allow-env=CARGO_*"], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * const env = commandEnvironment(r.value.grants, {
 *   PATH: "/bin", HARNESS_API_KEY: "k", CARGO_HOME: "/c", SECRET: "s",
 * });
 * if (JSON.stringify(env) !== '{"PATH":"/bin","CARGO_HOME":"/c"}') throw new Error();
 * ```
 */
export function commandEnvironment(
  grants: Grants,
  env: Readonly<Record<string, string>>,
): Record<string, string> {
  const matches = (grant: Grant, name: string) =>
    grant === true ||
    grant.some((entry) =>
      entry.endsWith("*") ? name.startsWith(entry.slice(0, -1)) : entry === name
    );
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (NEVER_PASSED.test(name) || matches(grants.deny.env, name)) continue;
    if (BASE_ENV_NAMES.includes(name) || matches(grants.allow.env, name)) out[name] = value;
  }
  return out;
}
