// The `mcp_servers` setting: one entry per Model Context Protocol server, in the shape Claude
// Desktop, Claude Code and VS Code already use (`command`/`args`/`env`/`cwd` for a stdio
// server, `url`/`headers` for a Streamable HTTP one). src/config/settings.ts checks entries with
// `checkMcpServers`; src/mcp/mcp_servers.ts starts them. Imports nothing, so loading config
// costs no more than before.

/** A server started as a subprocess that speaks MCP over its stdin and stdout. */
export interface McpStdioConfig {
  command: string;
  args?: string[];
  /** Added to a small default environment (PATH, HOME, USER, ...), not to harness's own. */
  env?: Record<string, string>;
  cwd?: string;
  /** Per-call timeout in milliseconds (default 120000). */
  timeout_ms?: number;
  /** Leave the server configured but do not start it. */
  disabled?: boolean;
  /**
   * What the server's command sandbox grants besides harness's permission flags (paths may
   * start with `~/`; relative ones are inside `cwd`), e.g. `{ "read": ["~/.npm"], "write":
   * ["~/.npm"], "net": true }` for a server started by npx.
   */
  sandbox?: McpServerSandbox;
}

/** Grants one stdio server's command sandbox adds to the flags' (src/mcp/server_grants.ts). */
export interface McpServerSandbox {
  read?: true | string[];
  write?: true | string[];
  /**
   * true: the network; a list: those hosts (a launcher's registry; the command sandbox cannot
   * limit hosts, so it shares the network); false: none, even when the flags grant it.
   */
  net?: boolean | string[];
  env?: true | string[];
}

/** A server reached over HTTP: Streamable HTTP, falling back to the older SSE transport. */
export interface McpHttpConfig {
  url: string;
  headers?: Record<string, string>;
  /** "sse" skips the Streamable HTTP attempt; "http" never falls back. */
  type?: "http" | "sse" | "streamable-http";
  timeout_ms?: number;
  disabled?: boolean;
}

export type McpServerConfig = McpStdioConfig | McpHttpConfig;

/** Whether a checked entry is a stdio server. */
export function isStdioServer(config: McpServerConfig): config is McpStdioConfig {
  return "command" in config;
}

// Any name other clients accept ("my server", "github.com"); tool names sanitise it.
// deno-lint-ignore no-control-regex
const NAME = /^[^\x00-\x1f\x7f]{1,48}$/;
const STDIO_KEYS = new Set([
  "command",
  "args",
  "env",
  "cwd",
  "timeout_ms",
  "disabled",
  "type",
  "sandbox",
]);
const SANDBOX_KEYS = new Set(["read", "write", "net", "env"]);

/** What is wrong with a stdio entry's `sandbox`, or undefined. */
function sandboxProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return 'expected an object such as { "read": ["~/.npm"], "write": ["~/.npm"], "net": true }';
  }
  for (const [key, grant] of Object.entries(value)) {
    if (!SANDBOX_KEYS.has(key)) {
      return `unknown key "${key}": known keys are ${[...SANDBOX_KEYS].join(", ")}`;
    }
    const list = Array.isArray(grant) && grant.every((g) => typeof g === "string" && g !== "");
    if (key === "net" ? !(typeof grant === "boolean" || list) : !(grant === true || list)) {
      return key === "net"
        ? '"net" expected true, false or a list of hosts'
        : `"${key}" expected true or a list of ${key === "env" ? "variable names" : "paths"}`;
    }
  }
  return undefined;
}
const HTTP_KEYS = new Set(["url", "headers", "timeout_ms", "disabled", "type"]);

function isStringMap(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string");
}

/**
 * What is wrong with one server entry, or undefined when it is usable.
 *
 * @example
 * ```ts
 * import { checkMcpServer } from "./mcp_config.ts";
 * if (checkMcpServer("fs", { command: "npx", args: ["-y", "x"] }) !== undefined) throw new Error();
 * if (!checkMcpServer("fs", { args: [] })?.includes('"command"')) throw new Error();
 * ```
 */
export function checkMcpServer(name: string, value: unknown): string | undefined {
  const where = `server "${name}"`;
  if (!NAME.test(name)) {
    return `${where}: a name has 1 to 48 characters and no control characters`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `${where}: expected an object such as { "command": "npx", "args": [...] } or { "url": "https://..." }`;
  }
  const entry = value as Record<string, unknown>;
  const stdio = "command" in entry;
  if (!stdio && !("url" in entry)) {
    return `${where}: expected "command" (a stdio server) or "url" (an HTTP server)`;
  }
  const known = stdio ? STDIO_KEYS : HTTP_KEYS;
  const unknown = Object.keys(entry).find((key) => !known.has(key));
  if (unknown !== undefined) {
    return `${where}: unknown key "${unknown}": known keys are ${[...known].join(", ")}`;
  }
  if (entry.timeout_ms !== undefined) {
    const t = entry.timeout_ms;
    if (typeof t !== "number" || !Number.isInteger(t) || t <= 0) {
      return `${where}: "timeout_ms" expected a positive whole number`;
    }
  }
  if (entry.disabled !== undefined && typeof entry.disabled !== "boolean") {
    return `${where}: "disabled" expected true or false`;
  }
  if (stdio) {
    if (typeof entry.command !== "string" || entry.command === "") {
      return `${where}: "command" expected a non-empty string`;
    }
    if (
      entry.args !== undefined &&
      !(Array.isArray(entry.args) && entry.args.every((a) => typeof a === "string"))
    ) {
      return `${where}: "args" expected a list of strings`;
    }
    if (entry.env !== undefined && !isStringMap(entry.env)) {
      return `${where}: "env" expected an object of variable names to strings`;
    }
    if (entry.cwd !== undefined && typeof entry.cwd !== "string") {
      return `${where}: "cwd" expected a string`;
    }
    if (entry.type !== undefined && entry.type !== "stdio") {
      return `${where}: "type" of a server with "command" can only be "stdio"`;
    }
    const sandbox = entry.sandbox === undefined ? undefined : sandboxProblem(entry.sandbox);
    if (sandbox !== undefined) return `${where}: "sandbox" ${sandbox}`;
    return undefined;
  }
  if (typeof entry.url !== "string" || !/^https?:\/\/[^/]/.test(entry.url)) {
    return `${where}: "url" expected an http:// or https:// URL, not ${JSON.stringify(entry.url)}`;
  }
  if (entry.headers !== undefined && !isStringMap(entry.headers)) {
    return `${where}: "headers" expected an object of header names to strings`;
  }
  if (
    entry.type !== undefined && !["http", "sse", "streamable-http"].includes(String(entry.type))
  ) {
    return `${where}: "type" expected one of http, sse, streamable-http`;
  }
  return undefined;
}

/**
 * The config checker for `mcp_servers`: an object of server names to entries.
 *
 * @example
 * ```ts
 * import { checkMcpServers } from "./mcp_config.ts";
 * if (checkMcpServers({ web: { url: "http://127.0.0.1:3001/mcp" } }) !== undefined) throw new Error();
 * if (checkMcpServers([]) === undefined) throw new Error();
 * ```
 */
export function checkMcpServers(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return 'expected an object of server names to entries, e.g. { "fs": { "command": "npx", "args": [...] } }';
  }
  for (const [name, entry] of Object.entries(value)) {
    const problem = checkMcpServer(name, entry);
    if (problem) return problem;
  }
  return undefined;
}
