// The MCP servers an editor names in ACP's session/new and session/load (`mcpServers`), in
// the shape of the `mcp_servers` setting (config/mcp_config.ts): stdio servers with their
// environment as an object, HTTP and SSE servers with their headers. They join the configured
// servers of the session's workspace and run under the same grants as every other server.

import type { McpServer } from "@agentclientprotocol/sdk";
import { checkMcpServer, type McpServerConfig } from "../config/mcp_config.ts";

/**
 * The editor's servers by name; an entry the settings would refuse is an error naming it.
 *
 * @param servers What the editor sent.
 * @returns The servers by name, or why one cannot be used.
 *
 * @example
 * ```ts
 * import { editorMcpServers } from "./editor_mcp_servers.ts";
 * const r = editorMcpServers([
 *   { name: "fs", command: "/usr/bin/mcp-fs", args: ["."], env: [{ name: "A", value: "1" }] },
 *   { type: "http", name: "web", url: "http://127.0.0.1:9/mcp", headers: [] },
 * ]);
 * if (!("servers" in r) || !r.servers.web) throw new Error();
 * if (JSON.stringify(r.servers.fs) !== '{"command":"/usr/bin/mcp-fs","args":["."],"env":{"A":"1"}}') {
 *   throw new Error(JSON.stringify(r.servers.fs));
 * }
 * ```
 */
export function editorMcpServers(
  servers: readonly McpServer[],
): { servers: Record<string, McpServerConfig> } | { error: string } {
  const out: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    const pairs = (list: readonly { name: string; value: string }[]) =>
      Object.fromEntries(list.map((pair) => [pair.name, pair.value]));
    const config: unknown = "command" in server
      ? { command: server.command, args: [...server.args], env: pairs(server.env) }
      : { url: server.url, headers: pairs(server.headers), type: server.type };
    const problem = checkMcpServer(server.name, config);
    if (problem !== undefined) return { error: `MCP ${problem}` };
    out[server.name] = config as McpServerConfig;
  }
  return { servers: out };
}
