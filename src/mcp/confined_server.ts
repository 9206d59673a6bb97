// A stdio MCP server is a process outside Deno's sandbox, so it starts in the command sandbox
// like a command: bubblewrap or sandbox-exec built from the permission flags plus what its
// entry's `sandbox` adds (server_grants.ts) and what the entry itself names (its program and
// the files its arguments name: server_paths.ts), a clean environment plus its `env`, and only
// stdin, stdout and stderr. mcp_servers.ts hands the SDK the confined command line.

import {
  commandLaunch,
  CommandRefused,
  type CommandSandbox,
} from "../sandbox/commands/command_sandbox.ts";
import { commandEnvironment, commandRules } from "../sandbox/commands/command_sandbox_rules.ts";
import { grantCovers } from "../sandbox/grants/permission_value.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { resolve } from "node:path";
import type { McpStdioConfig } from "../config/mcp_config.ts";
import { serverGrants } from "./server_grants.ts";
import { namedPaths } from "./server_paths.ts";

/**
 * Whether a confined server can start in `folder`. One whose entry names no folder starts in
 * the workspace when its sandbox reads it, else in `/`, as Claude Desktop starts servers:
 * without --allow-read the workspace is not there to start in.
 */
function readable(folder: string, grants: Grants, sandbox: CommandSandbox): boolean {
  const { kind } = sandbox.confinement;
  if (kind !== "bwrap" && kind !== "sandbox-exec") return true;
  const rules = commandRules(grants);
  return rules.readAll || rules.writeAll ||
    grantCovers("read", [...rules.read, ...rules.write], folder);
}

/** `grants` with `paths` added to what is read (nothing to add when all is readable). */
function withReads(grants: Grants, paths: readonly string[]): Grants {
  const read = grants.allow.read;
  if (read === true || paths.length === 0) return grants;
  return { ...grants, allow: { ...grants.allow, read: [...new Set([...read, ...paths])] } };
}

/**
 * The entry the SDK starts: the server's command inside the command sandbox (with the grants
 * that sandbox has), or why it may not start (command_sandbox "required" with no sandbox here).
 *
 * @param options The user's `grants`, harness's `cwd` and `env`, the probed `sandbox`.
 *
 * @example
 * ```ts
 * import { confinedServer } from "./confined_server.ts";
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * const out = confinedServer("fs", { command: "npx", args: ["x"] }, {
 *   grants: emptyGrants(), cwd: "/w", env: { PATH: "/bin", SECRET: "s" },
 *   sandbox: { mode: "auto", confinement: { kind: "bwrap", program: "/usr/bin/bwrap" }, env: {} },
 * });
 * if (!out.ok || out.config.command !== "/usr/bin/bwrap" || out.config.env?.SECRET) throw new Error();
 * ```
 */
export function confinedServer(
  name: string,
  config: McpStdioConfig,
  options: {
    grants: Grants;
    cwd: string;
    env: Record<string, string>;
    sandbox: CommandSandbox;
  },
): { ok: true; config: McpStdioConfig; grants: Grants } | { ok: false; error: string } {
  const cwd = resolve(options.cwd, config.cwd ?? ".");
  // The program and the files its arguments name are readable, so an entry copied from
  // another client starts as it is (issue 45).
  const named = namedPaths(config, { cwd, env: { ...options.env, ...config.env } });
  const grants = withReads(
    serverGrants(options.grants, config, { cwd: options.cwd, home: options.env.HOME }),
    named,
  );
  // The clean environment of these grants: the entry may allow more variables.
  const sandbox = { ...options.sandbox, env: commandEnvironment(grants, options.env) };
  const start = config.cwd === undefined && !readable(cwd, grants, sandbox) ? "/" : cwd;
  try {
    const launch = commandLaunch(sandbox, grants, {
      program: config.command,
      args: config.args ?? [],
      cwd: start,
      ...(config.env ? { env: config.env } : {}),
    });
    return {
      ok: true,
      config: {
        ...config,
        command: launch.program,
        args: launch.args,
        env: launch.env,
        cwd: start,
      },
      grants,
    };
  } catch (error) {
    if (!(error instanceof CommandRefused)) throw error;
    return { ok: false, error: `MCP server "${name}" was not started: ${error.message}` };
  }
}
