// Whether the user's sandbox grants let harness start or reach an MCP server: a stdio server
// is a subprocess, so its command must be covered by --allow-run; a URL server needs
// --allow-net for its host. The answer is a message saying which flag is missing.

import type { Grants } from "../sandbox/grants.ts";
import { grantCovers, normalisePermissionValue } from "../sandbox/permission_value.ts";
import { isStdioServer, type McpServerConfig } from "../config/mcp_config.ts";

/**
 * Why the grants do not allow server `name`, or undefined when they do.
 *
 * @example
 * ```ts
 * import { emptyGrants } from "../sandbox/grants.ts";
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
