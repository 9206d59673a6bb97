// Known profiles of the launchers most MCP configs use (`npx`, `uvx`, `bunx`, `docker`): what
// each needs in a server's command sandbox to fetch and start the server it names (its cache
// folders, its settings, the network to its registry unless its own flags keep it offline, the
// variables that move those). A profile is shown once for approval and then saved into the
// entry's `sandbox` (profile_approval.ts); until then a server whose launcher the flags do not
// already cover is not started, and says what it needs.

import { basename, join, resolve } from "node:path";
import type { McpServerSandbox, McpStdioConfig } from "../config/mcp_config.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { grantCovers } from "../sandbox/grants/permission_value.ts";

/** The launchers harness knows. */
export type Launcher = "npx" | "uvx" | "bunx" | "docker";

/** One thing a launcher needs, with why, as the approval question shows it. */
export interface ProfileNeed {
  kind: "read" | "write" | "net" | "env";
  /** A path (`~/` for the home folder), a host, or a variable name. */
  value: string;
  why: string;
}

/** What a launcher needs in a server's command sandbox. */
export interface LauncherProfile {
  launcher: Launcher;
  needs: ProfileNeed[];
  /** The server gets no network even when the flags grant it (docker: its daemon downloads). */
  noNet?: boolean;
  /** What the approval question adds (what the sandbox cannot confine). */
  notes: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** The launcher an entry's command is, if harness knows it (`/usr/bin/npx`, `npx.cmd`). */
export function launcherOf(command: string): Launcher | undefined {
  const name = basename(command.replaceAll("\\", "/")).toLowerCase().replace(
    /\.(cmd|exe|ps1)$/,
    "",
  );
  return name === "npx" || name === "uvx" || name === "bunx" || name === "docker"
    ? name
    : undefined;
}

/** The launcher's own flags (before the package or image it runs), by name. */
function launcherFlags(args: readonly string[], takesValue: readonly string[]) {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--" || !arg.startsWith("-")) break;
    const eq = arg.indexOf("=");
    if (eq > 0) flags.set(arg.slice(0, eq), arg.slice(eq + 1));
    else if (takesValue.includes(arg) && i + 1 < args.length) flags.set(arg, args[++i]!);
    else flags.set(arg, true);
  }
  return {
    has: (...names: string[]) => names.some((name) => flags.has(name)),
    value: (...names: string[]) => {
      for (const name of names) {
        const value = flags.get(name);
        if (typeof value === "string") return value;
      }
      return undefined;
    },
  };
}

/** The first of the variables that is set and not empty. */
function variable(env: Env, ...names: string[]): string | undefined {
  return names.map((name) => env[name]).find((value) => value !== undefined && value !== "");
}

/** The host of a registry URL (or the text itself when it is not a URL). */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url.replace(/^[a-z]+:\/\//i, "").split(/[/:]/)[0] ?? url;
  }
}

/** `registry=` of an .npmrc file, if it says one. */
function npmrcRegistry(file: string): string | undefined {
  try {
    return /^\s*registry\s*=\s*(\S+)/m.exec(Deno.readTextFileSync(file))?.[1];
  } catch {
    return undefined;
  }
}

/** The names of `names` (and of variables starting with a `PREFIX*`) that are set. */
function setNames(env: Env, names: readonly string[]): string[] {
  return Object.keys(env).filter((key) =>
    env[key] !== undefined &&
    names.some((name) => name.endsWith("*") ? key.startsWith(name.slice(0, -1)) : key === name)
  ).sort();
}

const NETWORK_WHY = "to download what it runs (the command sandbox cannot limit hosts: " +
  "the server shares the network)";

function npxProfile(args: readonly string[], env: Env, home: string): LauncherProfile {
  const flags = launcherFlags(args, ["-p", "--package", "-c", "--call", "--registry", "--cache"]);
  const cache = flags.value("--cache") ?? variable(env, "npm_config_cache", "NPM_CONFIG_CACHE") ??
    join(home, ".npm");
  const userConfig = flags.value("--userconfig") ??
    variable(env, "npm_config_userconfig", "NPM_CONFIG_USERCONFIG") ?? join(home, ".npmrc");
  const registry = flags.value("--registry") ??
    variable(env, "npm_config_registry", "NPM_CONFIG_REGISTRY") ?? npmrcRegistry(userConfig) ??
    "https://registry.npmjs.org/";
  const offline = flags.has("--offline") || variable(env, "npm_config_offline") === "true";
  return {
    launcher: "npx",
    needs: [
      { kind: "write", value: cache, why: "npm's cache, where npx keeps the packages it runs" },
      { kind: "read", value: userConfig, why: "npm's settings (registry, login)" },
      ...(offline ? [] : [{ kind: "net" as const, value: hostOf(registry), why: NETWORK_WHY }]),
      ...setNames(env, ["npm_config_*", "NPM_CONFIG_*"]).map((name) => ({
        kind: "env" as const,
        value: name,
        why: "npm's settings from the environment",
      })),
    ],
    notes: [],
  };
}

function uvxProfile(args: readonly string[], env: Env, home: string): LauncherProfile {
  const indexFlags = ["--index", "--default-index", "--index-url", "-i", "--extra-index-url"];
  const flags = launcherFlags(args, [
    "--from",
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--cache-dir",
    "--directory",
    "--project",
    "--config-file",
    ...indexFlags,
  ]);
  const cache = flags.value("--cache-dir") ?? variable(env, "UV_CACHE_DIR") ??
    join(variable(env, "XDG_CACHE_HOME") ?? join(home, ".cache"), "uv");
  const data = join(variable(env, "XDG_DATA_HOME") ?? join(home, ".local", "share"), "uv");
  const config = join(variable(env, "XDG_CONFIG_HOME") ?? join(home, ".config"), "uv");
  const index = flags.value(...indexFlags) ??
    variable(env, "UV_DEFAULT_INDEX", "UV_INDEX_URL", "UV_INDEX")?.split(/\s+/)[0]?.replace(
      /^[\w-]+=/,
      "",
    );
  const hosts = index === undefined ? ["pypi.org", "files.pythonhosted.org"] : [hostOf(index)];
  const offline = flags.has("--offline") || /^(1|true|yes)$/i.test(env.UV_OFFLINE ?? "");
  return {
    launcher: "uvx",
    needs: [
      { kind: "write", value: cache, why: "uv's cache, where uvx keeps the environments it runs" },
      {
        kind: "write",
        value: variable(env, "UV_PYTHON_INSTALL_DIR") ?? data,
        why: "uv's data (the Pythons it installs)",
      },
      { kind: "read", value: config, why: "uv's settings" },
      ...(offline
        ? []
        : hosts.map((host) => ({ kind: "net" as const, value: host, why: NETWORK_WHY }))),
      ...setNames(env, ["UV_*", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"]).map((
        name,
      ) => ({ kind: "env" as const, value: name, why: "uv's settings from the environment" })),
    ],
    notes: offline ? [] : ["A Python that uv must download comes from github.com"],
  };
}

function bunxProfile(args: readonly string[], env: Env, home: string): LauncherProfile {
  const flags = launcherFlags(args, ["-p", "--package"]);
  const install = variable(env, "BUN_INSTALL") ?? join(home, ".bun");
  const cache = variable(env, "BUN_INSTALL_CACHE_DIR") ?? join(install, "install", "cache");
  const registry =
    variable(env, "BUN_CONFIG_REGISTRY", "NPM_CONFIG_REGISTRY", "npm_config_registry") ??
      "https://registry.npmjs.org/";
  return {
    launcher: "bunx",
    needs: [
      { kind: "write", value: cache, why: "bun's cache, where bunx keeps the packages it runs" },
      { kind: "read", value: join(home, ".bunfig.toml"), why: "bun's settings" },
      { kind: "read", value: join(home, ".npmrc"), why: "npm's settings, which bun reads" },
      ...(flags.has("--no-install")
        ? []
        : [{ kind: "net" as const, value: hostOf(registry), why: NETWORK_WHY }]),
      ...setNames(env, ["BUN_INSTALL", "BUN_INSTALL_CACHE_DIR", "BUN_CONFIG_*"]).map((name) => ({
        kind: "env" as const,
        value: name,
        why: "bun's settings from the environment",
      })),
    ],
    notes: [],
  };
}

function dockerProfile(env: Env, home: string): LauncherProfile {
  const host = variable(env, "DOCKER_HOST") ?? "unix:///var/run/docker.sock";
  const socket = host.startsWith("unix://") ? host.slice("unix://".length) : undefined;
  return {
    launcher: "docker",
    needs: [
      ...(socket === undefined
        ? [{
          kind: "net" as const,
          value: hostOf(host.replace(/^tcp:/, "http:")),
          why: "Docker's daemon",
        }]
        : [{
          kind: "write" as const,
          value: socket,
          why: "Docker's socket, to start the container",
        }]),
      {
        kind: "read",
        value: variable(env, "DOCKER_CONFIG") ?? join(home, ".docker"),
        why: "Docker's settings (registry logins)",
      },
      ...setNames(env, [
        "DOCKER_HOST",
        "DOCKER_CONFIG",
        "DOCKER_CONTEXT",
        "DOCKER_CERT_PATH",
        "DOCKER_TLS_VERIFY",
      ])
        .map((name) => ({ kind: "env" as const, value: name, why: "Docker's settings" })),
    ],
    // The daemon downloads images; with a shared network the sandbox refuses Unix sockets.
    ...(socket === undefined ? {} : { noNet: true }),
    notes: [
      "Docker's socket lets the server start any container, which the command sandbox does not " +
      "confine: the container's own flags (-v, --network) decide what it reaches",
    ],
  };
}

/**
 * The profile of an entry's launcher, or undefined when its command is none harness knows.
 * Paths are absolute; `env` is the environment the server would start with (harness's and the
 * entry's `env`), which moves caches and registries.
 *
 * @example
 * ```ts
 * import { launcherProfile } from "./launcher_profiles.ts";
 * const p = launcherProfile({ command: "npx", args: ["-y", "pkg"] }, { env: {}, home: "/h" });
 * if (!p?.needs.some((n) => n.kind === "write" && n.value === "/h/.npm")) throw new Error();
 * if (!p.needs.some((n) => n.kind === "net" && n.value === "registry.npmjs.org")) throw new Error();
 * const offline = launcherProfile({ command: "npx", args: ["--offline", "pkg"] }, { env: {}, home: "/h" });
 * if (offline?.needs.some((n) => n.kind === "net")) throw new Error();
 * ```
 */
export function launcherProfile(
  config: Pick<McpStdioConfig, "command" | "args" | "env">,
  options: { env: Env; home: string; cwd?: string },
): LauncherProfile | undefined {
  const launcher = launcherOf(config.command);
  if (launcher === undefined) return undefined;
  const env = { ...options.env, ...config.env };
  const args = config.args ?? [];
  const profile = launcher === "npx"
    ? npxProfile(args, env, options.home)
    : launcher === "uvx"
    ? uvxProfile(args, env, options.home)
    : launcher === "bunx"
    ? bunxProfile(args, env, options.home)
    : dockerProfile(env, options.home);
  // Paths set through flags or variables may be relative to the server's folder.
  const cwd = options.cwd ?? options.home;
  for (const need of profile.needs) {
    if (need.kind === "read" || need.kind === "write") need.value = resolve(cwd, need.value);
  }
  return profile;
}

/** `path` with the home folder written `~`, as entries keep it (the same on each machine). */
export function homeRelative(path: string, home: string): string {
  if (path === home) return "~";
  return path.startsWith(`${home}/`) ? `~/${path.slice(home.length + 1)}` : path;
}

/**
 * The `sandbox` an approved profile is saved as in its entry.
 *
 * @example
 * ```ts
 * import { launcherProfile, profileSandbox } from "./launcher_profiles.ts";
 * const p = launcherProfile({ command: "npx", args: ["-y", "pkg"] }, { env: {}, home: "/h" })!;
 * const s = profileSandbox(p, "/h");
 * if (JSON.stringify(s) !== '{"read":["~/.npm","~/.npmrc"],"write":["~/.npm"],"net":["registry.npmjs.org"]}') {
 *   throw new Error(JSON.stringify(s));
 * }
 * ```
 */
export function profileSandbox(profile: LauncherProfile, home: string): McpServerSandbox {
  const of = (kind: ProfileNeed["kind"]) =>
    profile.needs.filter((need) => need.kind === kind).map((need) =>
      kind === "read" || kind === "write" ? homeRelative(need.value, home) : need.value
    );
  const write = of("write");
  const sandbox: McpServerSandbox = { read: [...write, ...of("read")] };
  if (write.length > 0) sandbox.write = write;
  const net = of("net");
  if (profile.noNet) sandbox.net = false;
  else if (net.length > 0) sandbox.net = net;
  const env = of("env");
  if (env.length > 0) sandbox.env = env;
  return sandbox;
}

/**
 * Whether the grants already give the launcher all it needs (e.g. `-A`), so nothing is asked.
 *
 * @example
 * ```ts
 * import { launcherProfile, profileCovered } from "./launcher_profiles.ts";
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * const p = launcherProfile({ command: "npx", args: ["pkg"] }, { env: {}, home: "/h" })!;
 * const grants = emptyGrants();
 * if (profileCovered(p, grants)) throw new Error();
 * grants.allow.read = true; grants.allow.write = true; grants.allow.net = true;
 * if (!profileCovered(p, grants)) throw new Error();
 * ```
 */
export function profileCovered(profile: LauncherProfile, grants: Grants): boolean {
  const { allow } = grants;
  if (profile.noNet && (allow.net === true || allow.net.length > 0)) return false;
  // A write grant is readable in bubblewrap; sandbox-exec reads only what the read grants name.
  const readable = (path: string) =>
    grantCovers("read", allow.read, path) ||
    (Deno.build.os === "linux" && grantCovers("write", allow.write, path));
  return profile.needs.every((need) => {
    switch (need.kind) {
      case "read":
        return readable(need.value);
      case "write":
        return grantCovers("write", allow.write, need.value) && readable(need.value);
      case "net":
        return grantCovers("net", allow.net, `${need.value}:443`);
      case "env":
        return true; // without them the launcher uses its defaults, which the paths cover
    }
  });
}
