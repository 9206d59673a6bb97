// Whether the user's sandbox grants let harness start or reach an MCP server: a stdio server
// is a subprocess, so its command must be covered by --allow-run; a URL server needs
// --allow-net for its host. The answer is a message saying which flag is missing. A stdio
// server runs in the command sandbox of the flags plus what its entry's `sandbox` adds.

import { join, resolve } from "node:path";
import type { Grants } from "../sandbox/grants/grants.ts";
import type { Grant } from "../sandbox/grants/permission_name.ts";
import { grantCovers, normalisePermissionValue } from "../sandbox/grants/permission_value.ts";
import { isStdioServer, type McpServerConfig, type McpStdioConfig } from "../config/mcp_config.ts";

/**
 * The grants of a stdio server's command sandbox: the user's, plus what the entry's `sandbox`
 * adds (`~/` is the home folder; relative paths are inside the server's folder). The user's
 * --deny-* entries still apply.
 *
 * @param options `cwd`: the folder the server starts in when its entry names none; `home`.
 *
 * @example
 * ```ts
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * import { serverGrants } from "./server_grants.ts";
 * const grants = serverGrants(emptyGrants(), {
 *   command: "npx",
 *   sandbox: { read: ["~/.npm", "data"], net: true },
 * }, { cwd: "/w", home: "/h" });
 * if (JSON.stringify(grants.allow.read) !== '["/h/.npm","/w/data"]' || grants.allow.net !== true) {
 *   throw new Error(JSON.stringify(grants.allow));
 * }
 * ```
 */
export function serverGrants(
  grants: Grants,
  config: McpStdioConfig,
  options: { cwd: string; home: string | undefined },
): Grants {
  const extra = config.sandbox;
  if (!extra) return grants;
  const folder = resolve(options.cwd, config.cwd ?? ".");
  const path = (p: string) =>
    (p === "~" || p.startsWith("~/")) && options.home
      ? join(options.home, p.slice(1))
      : resolve(folder, p);
  const add = (grant: Grant, more: true | string[] | undefined, map: (v: string) => string) => {
    if (more === undefined) return grant;
    if (grant === true || more === true) return true;
    return [...new Set([...grant, ...more.map(map)])];
  };
  return {
    allow: {
      ...grants.allow,
      read: add(grants.allow.read, extra.read, path),
      write: add(grants.allow.write, extra.write, path),
      net: serverNet(grants, extra.net),
      env: add(grants.allow.env, extra.env, (name) => name),
    },
    deny: grants.deny,
  };
}

/**
 * The network of a server's sandbox: `true` adds it, `false` takes it away, a list adds those
 * hosts unless --deny-net names them.
 */
function serverNet(grants: Grants, net: boolean | string[] | undefined): Grant {
  if (net === undefined) return grants.allow.net;
  if (net === true) return true;
  if (net === false) return [];
  if (grants.allow.net === true) return true;
  const hosts = net.filter((host) => !grantCovers("net", grants.deny.net, `${host}:443`));
  return [...new Set([...grants.allow.net, ...hosts])];
}

/**
 * Why the grants do not allow server `name`, or undefined when they do.
 *
 * @example
 * ```ts
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * import { serverBlockedReason } from "./server_grants.ts";
 * const grants = emptyGrants();
 * const why = serverBlockedReason("fs", { command: "npx" }, { grants, cwd: "/w" });
 * if (!why?.includes("--allow-run=npx")) throw new Error(why);
 * grants.allow.run = ["npx"];
 * if (serverBlockedReason("fs", { command: "npx" }, { grants, cwd: "/w" }) !== undefined) throw new Error();
 * ```
 */
export function serverBlockedReason(
  name: string,
  config: McpServerConfig,
  options: { grants: Grants; cwd: string },
): string | undefined {
  const { grants, cwd } = options;
  if (isStdioServer(config)) {
    const target = normalisePermissionValue("run", config.command, cwd);
    if (grantCovers("run", grants.deny.run, target)) {
      return `MCP server "${name}" runs "${config.command}", which --deny-run forbids: ` +
        `remove it from --deny-run or from mcp_servers`;
    }
    if (!grantCovers("run", grants.allow.run, target)) {
      return `MCP server "${name}" was not started: it runs "${config.command}", which needs ` +
        `--allow-run=${config.command} (a stdio server is a subprocess outside Deno's sandbox)`;
    }
    return undefined;
  }
  const url = new URL(config.url);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const host = `${url.hostname}:${port}`;
  if (grantCovers("net", grants.deny.net, host)) {
    return `MCP server "${name}" at "${config.url}" is on a host --deny-net forbids`;
  }
  if (!grantCovers("net", grants.allow.net, host)) {
    return `MCP server "${name}" was not reached: "${config.url}" needs --allow-net=${url.hostname}`;
  }
  return undefined;
}
