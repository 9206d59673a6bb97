// The MCP servers of other agents' files, in harness's `mcp_servers` shape, read as those
// agents read them: Claude Desktop, Claude Code, Cursor and Gemini CLI (`mcpServers`), Claude
// Code plugins (`.mcp.json` as a bare map of servers), VS Code (`servers` and `inputs`, or
// `mcp.servers` in settings.json), opencode (`mcp`: type local|remote, the command as an array,
// `environment`) and Codex (config.toml's `[mcp_servers.NAME]`). Unknown keys (`_docs`,
// `description`, `tools`) are left out and named; placeholders are rewritten by
// mcp_placeholders.ts. Parsing the text is the caller's (JSONC or TOML).

import { importPlaceholders, type ImportPlaces } from "./mcp_placeholders.ts";

/** Servers found in a file, and per server what the import changed or left out. */
export interface ForeignServers {
  servers: Record<string, Record<string, unknown>>;
  notes: Record<string, string[]>;
  /** Which layout the file has, for messages. */
  layout: string;
}

const STDIO = ["command", "args", "env", "cwd", "disabled"];
const HTTP = ["url", "headers", "type", "disabled"];
/** Keys other agents use that mean nothing here, left out without a note. */
const QUIET = new Set(["type", "$schema"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value looks like a server entry. */
function looksLikeServer(value: unknown): boolean {
  return isObject(value) && ("command" in value || "url" in value || "serverUrl" in value);
}

/** Where the servers are in a file's value, and what to call the layout. */
function locate(
  root: Record<string, unknown>,
): { found: Record<string, unknown>; layout: string } | undefined {
  const vscodeMcp = isObject(root.mcp) ? root.mcp : undefined;
  const candidates: [unknown, string][] = [
    [root.mcpServers, "mcpServers"],
    [root.servers, "VS Code servers"],
    [vscodeMcp?.servers, "VS Code mcp.servers"],
    [root.mcp_servers, "mcp_servers"],
    [vscodeMcp && !("servers" in vscodeMcp) ? vscodeMcp : undefined, "opencode mcp"],
  ];
  for (const [value, layout] of candidates) {
    if (isObject(value)) return { found: value, layout };
  }
  // A Claude Code plugin's .mcp.json: the servers themselves, with notes beside them.
  const entries = Object.entries(root).filter(([key]) => !/^[_$]/.test(key));
  if (entries.length > 0 && entries.every(([, value]) => looksLikeServer(value))) {
    return { found: Object.fromEntries(entries), layout: "bare map of servers" };
  }
  return undefined;
}

/** One entry in harness's shape, and what was left out or changed. */
function convert(
  raw: Record<string, unknown>,
): { entry: Record<string, unknown>; notes: string[] } {
  const notes: string[] = [];
  const entry: Record<string, unknown> = {};
  const source: Record<string, unknown> = { ...raw };
  const used = new Set<string>();
  const take = (key: string) => {
    used.add(key);
    return source[key];
  };
  // opencode: `command` is the whole command line; `environment`; `enabled`.
  const command = take("command");
  if (Array.isArray(command)) {
    const [program, ...args] = command;
    if (program !== undefined) entry.command = program;
    const more = take("args");
    entry.args = [...args, ...(Array.isArray(more) ? more : [])];
    if ((entry.args as unknown[]).length === 0) delete entry.args;
  } else if (command !== undefined) entry.command = command;
  for (const key of [...STDIO, ...HTTP]) {
    if (key === "command" || key === "type" || entry[key] !== undefined) continue;
    const value = take(key);
    if (value !== undefined) entry[key] = value;
  }
  const url = take("serverUrl") ?? take("httpUrl");
  if (entry.url === undefined && url !== undefined) entry.url = url;
  const environment = take("environment");
  if (isObject(environment)) {
    entry.env = { ...(isObject(entry.env) ? entry.env : {}), ...environment };
  }
  const enabled = take("enabled");
  if (enabled === false) entry.disabled = true;
  // Codex: headers from variables, a bearer token variable, timeouts in seconds.
  const httpHeaders = take("http_headers");
  if (isObject(httpHeaders)) {
    entry.headers = { ...(isObject(entry.headers) ? entry.headers : {}), ...httpHeaders };
  }
  const envHeaders = take("env_http_headers");
  if (isObject(envHeaders)) {
    const headers: Record<string, unknown> = isObject(entry.headers) ? { ...entry.headers } : {};
    for (const [name, variable] of Object.entries(envHeaders)) headers[name] = `\${${variable}}`;
    entry.headers = headers;
  }
  const bearer = take("bearer_token_env_var");
  if (typeof bearer === "string") {
    entry.headers = {
      ...(isObject(entry.headers) ? entry.headers : {}),
      Authorization: `Bearer \${${bearer}}`,
    };
  }
  const toolTimeout = take("tool_timeout_sec");
  if (typeof toolTimeout === "number" && toolTimeout > 0) {
    entry.timeout_ms = Math.round(toolTimeout * 1000);
  }
  // The transport: harness tells stdio from HTTP by `command` or `url`.
  const type = take("type");
  if (
    entry.command === undefined && (type === "sse" || type === "http" || type === "streamable-http")
  ) {
    entry.type = type;
  }
  if (type === "remote" && entry.url === undefined) notes.push('type "remote" without "url"');
  const dropped = Object.keys(source).filter((key) => !used.has(key) && !QUIET.has(key));
  if (dropped.length > 0) notes.push(`left out ${dropped.map((key) => `"${key}"`).join(", ")}`);
  return { entry, notes };
}

/**
 * The servers of another agent's MCP file, converted to harness's shape with their
 * placeholders rewritten.
 *
 * @param value The file's parsed value (JSONC or TOML).
 * @param places The file and the folders its placeholders may name.
 * @returns The servers and notes, or undefined when the file has none.
 *
 * @example
 * ```ts
 * import { foreignMcpServers } from "./foreign_mcp_servers.ts";
 * const found = foreignMcpServers(
 *   { mcp: { fs: { type: "local", command: ["npx", "-y", "fs"], environment: { A: "{env:A}" }, enabled: true } } },
 *   { file: "/p/opencode.json", home: "/h" },
 * );
 * if (JSON.stringify(found?.servers.fs) !== '{"command":"npx","args":["-y","fs"],"env":{"A":"${A}"}}') throw new Error(JSON.stringify(found));
 * ```
 */
export function foreignMcpServers(
  value: unknown,
  places: ImportPlaces,
): ForeignServers | undefined {
  if (!isObject(value)) return undefined;
  const located = locate(value);
  if (!located) return undefined;
  const inputs: Record<string, string> = {};
  for (const input of Array.isArray(value.inputs) ? value.inputs : []) {
    if (isObject(input) && typeof input.id === "string") {
      inputs[input.id] = typeof input.description === "string" ? input.description : "";
    }
  }
  const servers: Record<string, Record<string, unknown>> = {};
  const notes: Record<string, string[]> = {};
  for (const [name, raw] of Object.entries(located.found)) {
    if (/^[_$]/.test(name) && !looksLikeServer(raw)) continue;
    if (!isObject(raw)) {
      servers[name] = {};
      notes[name] = [];
      continue;
    }
    const converted = convert(raw);
    const rewritten = importPlaceholders(converted.entry, { ...places, inputs });
    servers[name] = rewritten.entry;
    notes[name] = [...converted.notes, ...rewritten.notes];
  }
  return { servers, notes, layout: located.layout };
}

/**
 * The variables (`${VAR}`) a server entry needs when it starts.
 *
 * @example
 * ```ts
 * import { neededVariables } from "./foreign_mcp_servers.ts";
 * if (neededVariables({ url: "u", headers: { A: "Bearer ${T}", B: "${L:-x}" } }).join() !== "T") throw new Error();
 * ```
 */
export function neededVariables(entry: Record<string, unknown>): string[] {
  const found = new Set<string>();
  const text = JSON.stringify([
    entry.command,
    entry.args,
    entry.env,
    entry.cwd,
    entry.url,
    entry.headers,
  ]);
  for (const match of text.matchAll(/\$\{([A-Za-z_]\w*)\}/g)) found.add(match[1]!);
  return [...found];
}
