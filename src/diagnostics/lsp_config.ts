// The language servers users already configured for other agents, read as those agents read
// them: Claude Code's `.lsp.json` (a map of server name to command, args and
// extensionToLanguage) at a plugin's root, `lspServers` inside a plugin's plugin.json (inline,
// or a path to such a file) or inside a marketplace's plugin entries, and opencode's `lsp`
// config key (command as an array, `extensions`). JSONC, unknown keys and servers harness
// cannot use are fine: each unusable server is skipped with one reason; nothing is run here.

import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { extname, isAbsolute, join, relative, resolve } from "../platform/paths.ts";

/** One language server, as harness runs it. */
export interface LspServerConfig {
  name: string;
  /** The program (a name found on PATH, or an absolute path). */
  command: string;
  args: string[];
  /** File extension (".py") to the document's language id ("python"). */
  languages: Record<string, string>;
  env: Record<string, string>;
  initializationOptions?: unknown;
  /** Answers to the server's workspace/configuration requests. */
  settings?: unknown;
  /** The file it came from. */
  source: string;
}

/** What a file gave: the servers, and each one skipped with why. */
export interface LspConfigRead {
  servers: LspServerConfig[];
  skipped: string[];
}

/** Language ids of common extensions, for configs that list extensions only (opencode's). */
const LANGUAGE_IDS: Readonly<Record<string, string>> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
  ".py": "python",
  ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
  ".c": "c",
  ".h": "c",
  ".cpp": "cpp",
  ".cc": "cpp",
  ".hpp": "cpp",
  ".java": "java",
  ".rb": "ruby",
  ".sh": "shellscript",
  ".bash": "shellscript",
  ".lua": "lua",
  ".json": "json",
  ".yaml": "yaml",
  ".yml": "yaml",
  ".nix": "nix",
  ".html": "html",
  ".css": "css",
};

/** Parses JSONC; undefined with the reason when it is not an object. */
function parseObject(text: string): Record<string, unknown> | string {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0 && (typeof value !== "object" || value === null)) return "not JSON";
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "not a JSON object";
  }
  return value as Record<string, unknown>;
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).filter(([, v]) => typeof v === "string");
  return Object.fromEntries(entries) as Record<string, string>;
}

/**
 * Replaces `${CLAUDE_PLUGIN_ROOT}` and `${HOME}`; undefined, with the name, when another
 * placeholder is left (a literal `${...}` never reaches a server).
 */
function expand(text: string, vars: Record<string, string>): string | { unknown: string } {
  let unknown: string | undefined;
  const out = text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
    const value = vars[name];
    if (value === undefined) unknown ??= whole;
    return value ?? whole;
  });
  return unknown === undefined ? out : { unknown };
}

/** One server of a Claude Code `.lsp.json` or `lspServers` map. */
function claudeServer(
  name: string,
  value: unknown,
  where: { source: string; vars: Record<string, string> },
): LspServerConfig | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `${name}: not an object`;
  }
  const entry = value as Record<string, unknown>;
  const commandLine = typeof entry.command === "string"
    ? [entry.command]
    : Array.isArray(entry.command) && entry.command.every((part) => typeof part === "string")
    ? entry.command as string[]
    : undefined;
  if (!commandLine || commandLine.length === 0 || commandLine[0] === "") {
    return `${name}: no "command"`;
  }
  const args = [
    ...commandLine.slice(1),
    ...(Array.isArray(entry.args) ? entry.args.filter((a) => typeof a === "string") : []),
  ];
  const languages = stringMap(entry.extensionToLanguage) ?? {};
  if (Object.keys(languages).length === 0) return `${name}: no "extensionToLanguage"`;
  if (entry.transport !== undefined && entry.transport !== "stdio") {
    return `${name}: transport "${String(entry.transport)}" (harness speaks stdio only)`;
  }
  return finish({
    name,
    command: commandLine[0]!,
    args,
    languages,
    env: stringMap(entry.env) ?? {},
    ...(entry.initializationOptions !== undefined
      ? { initializationOptions: entry.initializationOptions }
      : {}),
    ...(entry.settings !== undefined ? { settings: entry.settings } : {}),
    source: where.source,
  }, where.vars);
}

/** Expands the placeholders of a server's command, args and env. */
function finish(server: LspServerConfig, vars: Record<string, string>): LspServerConfig | string {
  const parts = [server.command, ...server.args, ...Object.values(server.env)];
  for (const part of parts) {
    const expanded = expand(part, vars);
    if (typeof expanded !== "string") {
      return `${server.name}: ${expanded.unknown} cannot be resolved here`;
    }
  }
  const fill = (text: string) => expand(text, vars) as string;
  return {
    ...server,
    command: fill(server.command),
    args: server.args.map(fill),
    env: Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, fill(v)])),
  };
}

/** Reads a map of server name to Claude Code server (a `.lsp.json`, an `lspServers`). */
function claudeServers(
  map: Record<string, unknown>,
  where: { source: string; vars: Record<string, string> },
): LspConfigRead {
  const read: LspConfigRead = { servers: [], skipped: [] };
  for (const [name, value] of Object.entries(map)) {
    const server = claudeServer(name, value, where);
    if (typeof server === "string") read.skipped.push(`${where.source}: ${server}`);
    else read.servers.push(server);
  }
  return read;
}

/**
 * A Claude Code `.lsp.json`: server name to { command, args, extensionToLanguage, env,
 * initializationOptions, settings, ... }. `${CLAUDE_PLUGIN_ROOT}` is the plugin's folder.
 *
 * @example
 * ```ts
 * import { readLspJson } from "./lsp_config.ts";
 * const read = readLspJson('{"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}', { source: "/p/.lsp.json", root: "/p" });
 * if (read.servers[0]?.command !== "gopls" || read.servers[0].languages[".go"] !== "go") throw new Error();
 * ```
 */
export function readLspJson(text: string, where: { source: string; root: string }): LspConfigRead {
  const parsed = parseObject(text);
  if (typeof parsed === "string") return { servers: [], skipped: [`${where.source}: ${parsed}`] };
  return claudeServers(parsed, { source: where.source, vars: pluginVars(where.root) });
}

function pluginVars(root: string): Record<string, string> {
  const home = Deno.env.get("HOME");
  return { CLAUDE_PLUGIN_ROOT: root, ...(home ? { HOME: home } : {}) };
}

/**
 * The `lspServers` of a plugin manifest (plugin.json, or a marketplace's plugin entry): a map,
 * or a path to a `.lsp.json`-shaped file inside the plugin, which `readFile` reads.
 */
export async function readManifestServers(
  manifest: Record<string, unknown>,
  where: { source: string; root: string; readFile(path: string): Promise<string> },
): Promise<LspConfigRead> {
  const servers = manifest.lspServers;
  if (servers === undefined) return { servers: [], skipped: [] };
  if (typeof servers === "string") {
    const path = resolve(where.root, servers);
    const inside = relative(where.root, path);
    if (inside.startsWith("..") || isAbsolute(inside)) {
      return {
        servers: [],
        skipped: [`${where.source}: lspServers "${servers}" leaves the plugin`],
      };
    }
    try {
      return readLspJson(await where.readFile(path), { source: path, root: where.root });
    } catch (error) {
      return { servers: [], skipped: [`${path}: ${(error as Error).message}`] };
    }
  }
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    return { servers: [], skipped: [`${where.source}: lspServers is not an object`] };
  }
  return claudeServers(servers as Record<string, unknown>, {
    source: where.source,
    vars: pluginVars(where.root),
  });
}

/**
 * The servers of a Claude Code plugin folder: its `.lsp.json`, the `lspServers` of its
 * `.claude-plugin/plugin.json`, and of each plugin entry of `.claude-plugin/marketplace.json`
 * (an entry's `source` folder is its root). A missing file is no error.
 */
export async function readPluginFolder(
  root: string,
  readFile: (path: string) => Promise<string>,
): Promise<LspConfigRead> {
  const all: LspConfigRead = { servers: [], skipped: [] };
  const add = (read: LspConfigRead) => {
    all.servers.push(...read.servers);
    all.skipped.push(...read.skipped);
  };
  const text = async (path: string) => await readFile(path).catch(() => undefined);
  const lspJson = join(root, ".lsp.json");
  const lsp = await text(lspJson);
  if (lsp !== undefined) add(readLspJson(lsp, { source: lspJson, root }));
  const manifestPath = join(root, ".claude-plugin", "plugin.json");
  const manifest = await text(manifestPath);
  if (manifest !== undefined) {
    const parsed = parseObject(manifest);
    if (typeof parsed === "string") add({ servers: [], skipped: [`${manifestPath}: ${parsed}`] });
    // A manifest naming the default .lsp.json again would list its servers twice.
    else if (!(lsp !== undefined && parsed.lspServers === "./.lsp.json")) {
      add(await readManifestServers(parsed, { source: manifestPath, root, readFile }));
    }
  }
  const marketPath = join(root, ".claude-plugin", "marketplace.json");
  const market = await text(marketPath);
  if (market !== undefined) {
    add(await readMarketplace(market, { source: marketPath, root, readFile }));
  }
  return all;
}

/** The plugin entries of a marketplace with `lspServers` (each entry is its plugin's manifest). */
async function readMarketplace(
  text: string,
  where: { source: string; root: string; readFile(path: string): Promise<string> },
): Promise<LspConfigRead> {
  const parsed = parseObject(text);
  if (typeof parsed === "string") return { servers: [], skipped: [`${where.source}: ${parsed}`] };
  const plugins = Array.isArray(parsed.plugins) ? parsed.plugins : [];
  const all: LspConfigRead = { servers: [], skipped: [] };
  for (const entry of plugins) {
    if (typeof entry !== "object" || entry === null || !("lspServers" in entry)) continue;
    const plugin = entry as Record<string, unknown>;
    const source = typeof plugin.source === "string" ? plugin.source : ".";
    const read = await readManifestServers(plugin, {
      source: `${where.source} (${String(plugin.name ?? "plugin")})`,
      root: resolve(where.root, source),
      readFile: where.readFile,
    });
    all.servers.push(...read.servers);
    all.skipped.push(...read.skipped);
  }
  return all;
}

/**
 * opencode's `lsp` key: `false` (none), or server name to { command: [program, ...args],
 * extensions, env, initialization, disabled }. An entry without a command only adjusts one of
 * opencode's built-in servers, which harness does not have: it is left out.
 *
 * @example
 * ```ts
 * import { readOpencodeLsp } from "./lsp_config.ts";
 * const read = readOpencodeLsp('{"lsp": {"py": {"command": ["pyright-langserver", "--stdio"], "extensions": [".py"]}}}', "/w/opencode.json");
 * if (read.servers[0]?.args[0] !== "--stdio" || read.servers[0].languages[".py"] !== "python") throw new Error();
 * ```
 */
export function readOpencodeLsp(text: string, source: string): LspConfigRead {
  const parsed = parseObject(text);
  if (typeof parsed === "string") return { servers: [], skipped: [`${source}: ${parsed}`] };
  const lsp = parsed.lsp;
  if (typeof lsp !== "object" || lsp === null || Array.isArray(lsp)) {
    return { servers: [], skipped: [] };
  }
  const read: LspConfigRead = { servers: [], skipped: [] };
  const vars = pluginVars("");
  for (const [name, value] of Object.entries(lsp)) {
    if (typeof value !== "object" || value === null) continue;
    const entry = value as Record<string, unknown>;
    if (entry.disabled === true) continue;
    const command = Array.isArray(entry.command) &&
        entry.command.every((part) => typeof part === "string")
      ? entry.command as string[]
      : undefined;
    if (!command || command.length === 0) {
      read.skipped.push(
        `${source}: ${name}: no "command" (opencode's built-in servers are not harness's)`,
      );
      continue;
    }
    const extensions = Array.isArray(entry.extensions)
      ? entry.extensions.filter((e): e is string => typeof e === "string")
      : [];
    if (extensions.length === 0) {
      read.skipped.push(`${source}: ${name}: no "extensions"`);
      continue;
    }
    const languages = Object.fromEntries(
      extensions.map((ext) => [ext, LANGUAGE_IDS[ext] ?? ext.replace(/^\./, "")]),
    );
    const server = finish({
      name,
      command: command[0]!,
      args: command.slice(1),
      languages,
      env: stringMap(entry.env) ?? {},
      ...(entry.initialization !== undefined
        ? { initializationOptions: entry.initialization }
        : {}),
      source,
    }, vars);
    if (typeof server === "string") read.skipped.push(`${source}: ${server}`);
    else read.servers.push(server);
  }
  return read;
}

/**
 * The server for a file: the first whose extensions include the file's.
 *
 * @example
 * ```ts
 * import { serverFor } from "./lsp_config.ts";
 * const s = { name: "py", command: "x", args: [], languages: { ".py": "python" }, env: {}, source: "s" };
 * if (serverFor([s], "a/b.py") !== s || serverFor([s], "b.ts") !== undefined) throw new Error();
 * ```
 */
export function serverFor(
  servers: readonly LspServerConfig[],
  path: string,
): LspServerConfig | undefined {
  const ext = extname(path);
  if (ext === "") return undefined;
  return servers.find((server) => Object.hasOwn(server.languages, ext));
}
