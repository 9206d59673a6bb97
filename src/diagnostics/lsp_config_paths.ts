// Where the language server configurations users already have live (lsp_sources.ts reads
// them): the workspace's `.lsp.json` and `opencode.json(c)`, opencode's config in the user's
// config folder and Claude Code's installed plugins. Only paths here, no reading: the
// workspace's diagnostics look whether any is there before loading the code that reads them.

import { join } from "../platform/paths.ts";

/**
 * The workspace's files that may name language servers.
 *
 * @example
 * ```ts
 * import { projectLspFiles } from "./lsp_config_paths.ts";
 * if (projectLspFiles("/w")[0] !== "/w/.lsp.json") throw new Error();
 * ```
 */
export function projectLspFiles(workspace: string): string[] {
  return [".lsp.json", "opencode.json", "opencode.jsonc"].map((name) => join(workspace, name));
}

/**
 * The user's own files and folders that may name language servers: opencode's config files
 * and Claude Code's plugin cache (its settings only choose among those plugins).
 *
 * @param where The user's home and config folder (default: ~/.config).
 *
 * @example
 * ```ts
 * import { userLspPaths } from "./lsp_config_paths.ts";
 * const paths = userLspPaths({ home: "/h" });
 * if (!paths.includes("/h/.config/opencode/opencode.json") || !paths.includes("/h/.claude/plugins/cache")) {
 *   throw new Error(paths.join());
 * }
 * ```
 */
export function userLspPaths(where: { home?: string; configHome?: string }): string[] {
  return [
    ...opencodeUserFiles(where),
    ...(where.home ? [claudePluginCache(join(where.home, ".claude"))] : []),
  ];
}

/** opencode's config files in the user's config folder (default: ~/.config). */
export function opencodeUserFiles(where: { home?: string; configHome?: string }): string[] {
  const configHome = where.configHome ?? (where.home ? join(where.home, ".config") : undefined);
  if (configHome === undefined) return [];
  return ["opencode.json", "opencode.jsonc"].map((name) => join(configHome, "opencode", name));
}

/** Claude Code's installed plugins: CACHE/MARKETPLACE/PLUGIN/VERSION. */
export function claudePluginCache(claude: string): string {
  return join(claude, "plugins", "cache");
}

/**
 * The user's home and config folder from the HOME and XDG_CONFIG_HOME variables.
 *
 * @example
 * ```ts
 * import { userPlacesFromEnv } from "./lsp_config_paths.ts";
 * if (typeof userPlacesFromEnv() !== "object") throw new Error();
 * ```
 */
export function userPlacesFromEnv(): { home?: string; configHome?: string } {
  const home = Deno.env.get("HOME");
  const configHome = Deno.env.get("XDG_CONFIG_HOME");
  return { ...(home ? { home } : {}), ...(configHome ? { configHome } : {}) };
}
