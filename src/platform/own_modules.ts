// harness's own modules that load only when needed, and its workers, named by their path in
// the checkout ("src/cli/run_repl.ts"). From source such a module is imported through a
// computed specifier: `deno run` prepares the whole graph of every literal import (dynamic
// ones too) before it runs anything, so a literal one would load every command's modules at
// start. In the bundle (bundle_entry.ts, built by scripts/build_bundle.ts) each path is a
// literal import that `deno bundle` made a chunk of its own, loaded when first needed, and
// the tool worker is the bundle's own entry (src/sandbox/tool_worker_entry.ts).
//
// The checkout's root is two folders above this module, src/platform/, and two folders above
// every file of a bundle, .bundle/KEY/: the paths below resolve the same from either.

/** The checkout (or the compiled binary's embedded copy of it), as a folder URL. */
export const HARNESS_ROOT: URL = new URL("../../", import.meta.url);

/** The modules imported only when needed, by their path in the checkout. */
export type OwnModulePath =
  | "src/cli/prompt_ahead.ts"
  | "src/cli/run_conversation.ts"
  | "src/cli/direct_commands.ts"
  | "src/cli/dispatch_command.ts"
  | "src/cli/run_repl.ts"
  | "src/acp/run_acp.ts"
  | "src/sessions/open_session_store.ts"
  | "src/mcp/mcp_servers.ts"
  | "src/mcp/mcp_tools.ts"
  | "src/mcp/mcp_server.ts";

/** The workers harness starts, by their path in the checkout. */
export type OwnWorkerPath =
  | "src/sandbox/tool_worker.ts"
  | "src/code_index/index_worker.ts"
  | "src/checkpoints/change_watcher_worker.ts";

/** What a bundle's entry hands in: a literal import per lazy module, and its workers' files. */
export interface BundledModules {
  modules: Record<OwnModulePath, () => Promise<unknown>>;
  workers: Partial<Record<OwnWorkerPath, string>>;
  /**
   * The built-in tools the tool worker serves from the bundle ("plugins/ls.ts"): each also has
   * a worker entry of its own, tool_worker_NAME.js beside tool_worker.js, with only that tool.
   */
  builtins?: readonly string[];
}

let bundled: BundledModules | undefined;

/**
 * Makes this copy of harness load its lazy modules and workers from the bundle (called once,
 * by the bundle's entry, before anything is loaded).
 *
 * @param bundle The bundle's literal imports and worker files.
 */
export function useBundledModules(bundle: BundledModules): void {
  bundled = bundle;
}

/** Whether this copy of harness runs from the bundle. */
export function runsBundled(): boolean {
  return bundled !== undefined;
}

/**
 * Imports one of harness's lazy modules: the bundle's chunk, or the source file.
 *
 * @param path The module's path in the checkout.
 * @returns The module's namespace (type it with `typeof` of a type-only import).
 */
export async function loadOwnModule<T>(path: OwnModulePath): Promise<T> {
  if (bundled) return await bundled.modules[path]() as T;
  return await import(new URL(path, HARNESS_ROOT).href) as T;
}

/**
 * The URL a worker of harness starts from: the bundle's file for it, or the source file.
 *
 * @param path The worker's module in the checkout.
 */
export function ownWorkerUrl(path: OwnWorkerPath): string {
  return bundled?.workers[path] ?? new URL(path, HARNESS_ROOT).href;
}

/**
 * Whether the bundle's tool worker serves a built-in tool without importing its file.
 *
 * @param path The plugin's file, absolute.
 */
export function servedFromBundle(path: string): boolean {
  if (!bundled?.builtins) return false;
  return bundled.builtins.some((builtin) =>
    new URL(builtin, HARNESS_ROOT).pathname === toUrlPath(path)
  );
}

/**
 * The tool worker to start for a group of tools: the bundle's entry of one built-in tool when
 * the group is that tool alone (a one-shot call loads nothing else), else the whole worker.
 *
 * @param plugins The group's plugin files, absolute.
 */
export function toolWorkerUrl(plugins: readonly string[]): string {
  const all = ownWorkerUrl("src/sandbox/tool_worker.ts");
  const [only] = plugins;
  if (plugins.length !== 1 || only === undefined || !servedFromBundle(only)) return all;
  const name = only.replace(/^.*[\\/]/, "").replace(/\.(ts|js)$/, "");
  return new URL(`tool_worker_${name}.js`, all).href;
}

/** A path's form in a file URL (forward slashes, percent-encoded as URL does). */
function toUrlPath(path: string): string {
  const slashed = path.replaceAll("\\", "/");
  return new URL(`file://${slashed.startsWith("/") ? "" : "/"}${slashed}`).pathname;
}

/**
 * A file or folder of the checkout as a URL (`plugins/`, `vendor/llama/`).
 *
 * @param path Relative to the checkout's root; a folder ends with "/".
 *
 * @example
 * ```ts
 * import { harnessUrl, ownWorkerUrl } from "./own_modules.ts";
 * const plugins = harnessUrl("plugins/");
 * if (!ownWorkerUrl("src/sandbox/tool_worker.ts").startsWith(plugins.href.slice(0, -8))) {
 *   throw new Error(`${plugins.href} is not beside the tool worker`);
 * }
 * ```
 */
export function harnessUrl(path: string): URL {
  return new URL(path, HARNESS_ROOT);
}
