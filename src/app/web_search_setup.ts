// The search engine a run may use: from the `web_search_url` setting, web_search's own network
// grant (the engine's host, tool_grants.ts) and the URL its worker reads. Without the setting
// there is neither: the built-in web_search is not loaded, so no code path searches.

import type { ToolGrants } from "../sandbox/grants/tool_grants.ts";

/** The built-in tool this setting is for. */
export const WEB_SEARCH_TOOL = "web_search";

/**
 * web_search's grant for a configured engine.
 *
 * @param url The `web_search_url` setting (a SearXNG base URL or a template with `{query}`).
 * @returns The grant of the engine's host and the URL, or undefined without an engine.
 *
 * @example
 * ```ts
 * import { webSearchGrants } from "./web_search_setup.ts";
 * const grants = webSearchGrants("http://127.0.0.1:8888/searxng");
 * if (grants?.web_search?.net[0] !== "127.0.0.1:8888") throw new Error();
 * if (webSearchGrants(undefined) !== undefined) throw new Error();
 * ```
 */
export function webSearchGrants(url: string | undefined): ToolGrants | undefined {
  if (url === undefined) return undefined;
  const host = new URL(url.replaceAll("{query}", "q")).host;
  return { [WEB_SEARCH_TOOL]: { net: [host], config: { engine: url } } };
}

/**
 * The plugin files a run loads: without an engine, not the built-in web_search.
 *
 * @param files The plugin files found.
 * @param url The `web_search_url` setting.
 * @returns The files to load.
 *
 * @example
 * ```ts
 * import { withoutUnconfiguredSearch } from "./web_search_setup.ts";
 * const files = [{ name: "web_search", origin: "builtin" as const }];
 * if (withoutUnconfiguredSearch(files, undefined).length !== 0) throw new Error();
 * ```
 */
export function withoutUnconfiguredSearch<T extends { name: string; origin: string }>(
  files: readonly T[],
  url: string | undefined,
): T[] {
  if (url !== undefined) return [...files];
  return files.filter((file) => !(file.origin === "builtin" && file.name === WEB_SEARCH_TOOL));
}
