// What the trust question of a project config says about its MCP servers: every variable of
// harness's environment an entry reads (its `${VAR}` placeholders, and the names its `sandbox`
// passes through) and where each value goes: a header sent to a host, the URL, a server's
// arguments or environment. The user trusts that flow; the file's digest binds it, so an
// entry whose placeholders change asks again.

import { isStdioServer, type McpServerConfig, type McpStdioConfig } from "./mcp_config.ts";
import { variablesRead } from "./mcp_placeholders.ts";
import { terminalLine } from "../platform/terminal_text.ts";

/** Where a value put in at `where` (`headers.Authorization`, `args[2]`) goes, in words. */
function destination(where: string, config: McpServerConfig): string {
  const program = isStdioServer(config) ? `"${terminalLine(config.command)}"` : "";
  const url = isStdioServer(config) ? "" : `"${terminalLine(config.url)}"`;
  const header = /^headers\.(.*)$/s.exec(where);
  if (header) return `header "${terminalLine(header[1]!)}" sent to ${url}`;
  const arg = /^args\[(\d+)\]$/.exec(where);
  if (arg) return `argument ${Number(arg[1]) + 1} of ${program}`;
  const env = /^env\.(.*)$/s.exec(where);
  if (env) return `the environment of ${program} as ${terminalLine(env[1]!)}`;
  if (where === "url") return `the URL it connects to, ${url}`;
  if (where === "command") return "the program it runs";
  return "the folder it starts in";
}

/** What a stdio entry's `sandbox.env` passes from harness's environment to its server. */
function passedThrough(config: McpStdioConfig): string[] {
  const passed = config.sandbox?.env;
  const program = `"${terminalLine(config.command)}"`;
  if (passed === true) return [`every variable of harness's environment into ${program}`];
  if (!passed || passed.length === 0) return [];
  const names = passed.map((variable) => `$${terminalLine(variable)}`).join(", ");
  return [`${names} from harness's environment into the environment of ${program}`];
}

/**
 * One line per MCP server that reads harness's environment: each variable and where it goes.
 *
 * @param servers The `mcp_servers` of a config.
 * @returns The lines (none for servers that read no variable).
 *
 * @example
 * ```ts
 * import { variableFlows } from "./mcp_variable_flows.ts";
 * const [line] = variableFlows({ gh: { url: "https://api.example/mcp", headers: { Authorization: "Bearer ${TOKEN}" } } });
 * if (line !== 'MCP server "gh" reads $TOKEN into header "Authorization" sent to "https://api.example/mcp"') throw new Error(line);
 * ```
 */
export function variableFlows(servers: Readonly<Record<string, McpServerConfig>>): string[] {
  const lines: string[] = [];
  for (const [name, config] of Object.entries(servers)) {
    const flows = variablesRead(config as unknown as Record<string, unknown>).map((read) =>
      `$${read.variable} into ${destination(read.where, config)}`
    );
    if (isStdioServer(config)) flows.push(...passedThrough(config));
    if (flows.length > 0) {
      lines.push(`MCP server "${terminalLine(name)}" reads ${flows.join("; ")}`);
    }
  }
  return lines;
}

/**
 * {@linkcode variableFlows} of a config file's text: the lines for its `mcp_servers`.
 *
 * @param text The config's JSONC text (already checked by parseConfigText).
 * @returns The lines (none without servers that read a variable).
 *
 * @example
 * ```ts
 * import { configVariableFlows } from "./mcp_variable_flows.ts";
 * const lines = await configVariableFlows('{ "mcp_servers": { "x": { "command": "n", "env": { "K": "${K}" } } } }');
 * if (lines[0] !== 'MCP server "x" reads $K into the environment of "n" as K') throw new Error(lines[0]);
 * ```
 */
export async function configVariableFlows(text: string): Promise<string[]> {
  const { parse } = await import("jsonc-parser");
  const value = parse(text.replace(/^\uFEFF/, ""), [], { allowTrailingComma: true });
  const servers = typeof value === "object" && value !== null ? value.mcp_servers : undefined;
  return typeof servers === "object" && servers !== null && !Array.isArray(servers)
    ? variableFlows(servers as Record<string, McpServerConfig>)
    : [];
}
