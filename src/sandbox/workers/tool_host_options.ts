// What a tool host (tool_host.ts) is built from: the sandbox's grants and command sandbox, the
// plugin files, and the limits of calls, imports and background jobs.

import type { PluginFile } from "../../plugin_loader/load_plugins.ts";
import type { JobSummary } from "../../jobs/job_control.ts";
import type { SandboxOptions } from "./sandbox_worker.ts";

/** Options of tool_host.ts's `openToolHost` and `createToolHost`. */
export interface ToolHostOptions extends SandboxOptions {
  /** Plugin files in discovery order (see src/plugin_loader/load_plugins.ts). */
  pluginFiles: PluginFile[];
  /** Schema cache file (see src/plugin_loader/schema_cache.ts); without it every plugin is imported. */
  schemaCacheFile?: string;
  /** Project trust store (default: trustStoreFile() of src/config/trust_store.ts). */
  trustStoreFile?: string;
  /** Per-tool timeout overrides in milliseconds, by tool name. */
  timeouts?: Record<string, number>;
  /** Hard cap on a tool's output in bytes (default 1 MiB). */
  maxOutputSize?: number;
  /** How long an aborted or timed-out tool may take to stop before its worker is killed (default 1000). */
  abortGraceMs?: number;
  /** Time allowed to import one plugin file (default 10000). */
  importTimeoutMs?: number;
  /**
   * One worker per tool instead of one per group of tools with the same permissions: a
   * one-shot call (`harness tool`) then imports only the plugin it calls.
   */
  workerPerTool?: boolean;
  /** false: grep_search and glob never run ripgrep or fd (tests, benchmarks). */
  externalSearch?: boolean;
  /** A command run without timeout_ms moves to the background after this long [60000]. */
  backgroundAfterMs?: number;
  /** Told when a background job ends or starts to wait for input. */
  onJobChange?(job: JobSummary): void;
}
