// Where the language server configurations users already have are found: the workspace's
// `.lsp.json` and `opencode.json(c)` (a cloned repository's, so used only once the user trusts
// their content, as project plugins are), opencode's own config in the user's config folder,
// and the Claude Code plugins the user installed (~/.claude/plugins/cache, enabled in
// ~/.claude/settings.json; an official plugin declared only in its marketplace's entry is
// read from there). Files are read through the reader the caller gives.

import { join } from "../platform/paths.ts";
import { parse as parseJsonc } from "jsonc-parser";
import {
  type LspConfigRead,
  readLspJson,
  readManifestServers,
  readOpencodeLsp,
  readPluginFolder,
} from "./lsp_config.ts";
import { claudePluginCache, opencodeUserFiles, projectLspFiles } from "./lsp_config_paths.ts";

/** What finding the configurations needs. */
export interface LspSourcesOptions {
  workspace: string;
  /** The user's home (Claude Code's plugins are under ~/.claude). */
  home?: string;
  /** The user's config folder (default ~/.config): opencode's config is in it. */
  configHome?: string;
  readFile(path: string): Promise<string>;
  listDir(path: string): Promise<string[]>;
  /** Which of the workspace's files the user trusts (asked as for project plugins). */
  trusted(paths: string[]): Promise<string[]>;
}

/** Reads one config file by its kind (its name). */
function readByName(path: string, text: string, root: string): LspConfigRead {
  return path.endsWith(".lsp.json")
    ? readLspJson(text, { source: path, root })
    : readOpencodeLsp(text, path);
}

/**
 * Every configured language server, the workspace's (trusted) first, then opencode's user
 * config, then Claude Code's installed plugins; with the servers skipped and why.
 */
export async function findLspServers(options: LspSourcesOptions): Promise<LspConfigRead> {
  const all: LspConfigRead = { servers: [], skipped: [] };
  const add = (read: LspConfigRead) => {
    all.servers.push(...read.servers);
    all.skipped.push(...read.skipped);
  };
  // A project file that names no usable server is not worth a trust question.
  const present: { path: string; text: string; read: LspConfigRead }[] = [];
  for (const path of projectLspFiles(options.workspace)) {
    const text = await options.readFile(path).catch(() => undefined);
    if (text === undefined) continue;
    const read = readByName(path, text, options.workspace);
    if (read.servers.length > 0) present.push({ path, text, read });
    else all.skipped.push(...read.skipped);
  }
  if (present.length > 0) {
    const trusted = new Set(await options.trusted(present.map((file) => file.path)));
    for (const file of present) {
      // Read again: what runs is what was trusted, not what was read before the question.
      const now = await options.readFile(file.path).catch(() => undefined);
      if (!trusted.has(file.path)) all.skipped.push(`${file.path}: not trusted`);
      else if (now !== file.text) {
        all.skipped.push(`${file.path}: changed while it was asked about`);
      } else add(file.read);
    }
  }
  const { home } = options;
  for (const path of opencodeUserFiles(options)) {
    const text = await options.readFile(path).catch(() => undefined);
    if (text !== undefined) add(readOpencodeLsp(text, path));
  }
  if (home) add(await claudePlugins(join(home, ".claude"), options));
  return all;
}

/** The plugins enabled in Claude Code's settings, or undefined when it names none. */
async function enabledPlugins(
  claude: string,
  options: LspSourcesOptions,
): Promise<Set<string> | undefined> {
  const text = await options.readFile(join(claude, "settings.json")).catch(() => undefined);
  if (text === undefined) return undefined;
  const settings: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const enabled = typeof settings === "object" && settings !== null
    ? (settings as Record<string, unknown>).enabledPlugins
    : undefined;
  if (typeof enabled !== "object" || enabled === null) return undefined;
  return new Set(Object.entries(enabled).filter(([, on]) => on === true).map(([id]) => id));
}

/** Claude Code's installed plugins: ~/.claude/plugins/cache/MARKETPLACE/PLUGIN/VERSION. */
async function claudePlugins(claude: string, options: LspSourcesOptions): Promise<LspConfigRead> {
  const all: LspConfigRead = { servers: [], skipped: [] };
  const cache = claudePluginCache(claude);
  const enabled = await enabledPlugins(claude, options);
  const list = (path: string) => options.listDir(path).catch(() => [] as string[]);
  for (const market of (await list(cache)).sort()) {
    for (const plugin of (await list(join(cache, market))).sort()) {
      if (enabled && !enabled.has(`${plugin}@${market}`)) continue;
      // The newest version folder by name; older ones are left behind by updates.
      const version = (await list(join(cache, market, plugin))).sort().at(-1);
      if (version === undefined) continue;
      const root = join(cache, market, plugin, version);
      const read = await readPluginFolder(root, options.readFile);
      if (read.servers.length === 0) {
        read.servers.push(
          ...(await marketplaceEntry(claude, { market, plugin, root }, options)).servers,
        );
      }
      all.servers.push(...read.servers);
      all.skipped.push(...read.skipped);
    }
  }
  return all;
}

/** A plugin's servers from its marketplace's entry (official LSP plugins declare them there). */
async function marketplaceEntry(
  claude: string,
  at: { market: string; plugin: string; root: string },
  options: LspSourcesOptions,
): Promise<LspConfigRead> {
  const path = join(
    claude,
    "plugins",
    "marketplaces",
    at.market,
    ".claude-plugin",
    "marketplace.json",
  );
  const text = await options.readFile(path).catch(() => undefined);
  if (text === undefined) return { servers: [], skipped: [] };
  const parsed: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const plugins = typeof parsed === "object" && parsed !== null
    ? (parsed as Record<string, unknown>).plugins
    : undefined;
  const entry = Array.isArray(plugins)
    ? plugins.find((p) => typeof p === "object" && p !== null && p.name === at.plugin)
    : undefined;
  if (!entry) return { servers: [], skipped: [] };
  return await readManifestServers(entry as Record<string, unknown>, {
    source: `${path} (${at.plugin})`,
    root: at.root,
    readFile: options.readFile,
  });
}
