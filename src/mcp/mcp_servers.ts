// The configured MCP servers of one run: starts them in parallel (after the REPL's prompt is
// on screen), keeps each one's status, tools and last error, restarts a crashed server on its
// next use, and reports failures as one line each. The SDK module (mcp_server.ts) is imported
// only when a server starts. mcp_tools.ts turns the servers' tools into ToolInfo and calls.

import type { Grants } from "../sandbox/grants/grants.ts";
import { fillPlaceholders, missingVariablesMessage } from "../config/mcp_placeholders.ts";
import { isStdioServer, type McpServerConfig } from "../config/mcp_config.ts";
import type * as McpServerModule from "./mcp_server.ts";
import type { McpCallFailure, McpConnection, McpToolListing } from "./mcp_server.ts";
import type { McpCallResult } from "./mcp_result.ts";
import { serverBlockedReason } from "./server_grants.ts";
import { confinedServer } from "./confined_server.ts";
import { confinedFailure } from "./start_failure.ts";
import {
  askProfile,
  pendingProfile,
  type ProfileQuestionIO,
  saveServerSandbox,
  unapprovedMessage,
} from "./profile_approval.ts";
import { profileSandbox } from "./launcher_profiles.ts";
import { configDir, savedOutputsRoot, workspaceDataDir } from "../config/folders.ts";
import type { CommandSandbox } from "../sandbox/commands/command_sandbox.ts";
import { probeCommandSandbox } from "../sandbox/commands/command_sandbox_probe.ts";
import { closeExtraFdsOnExec } from "../sandbox/commands/stdio_only.ts";
import { loadOwnModule } from "../platform/own_modules.ts";

/** How long a server whose call timed out has to answer a ping before it counts as frozen. */
const PING_TIMEOUT_MS = 5_000;

// The SDK loads with the first server (own_modules.ts): it stays out of the module graph
// `deno run` prepares at start-up.

export type McpServerStatus =
  | "starting"
  | "ready"
  | "failed"
  | "crashed"
  | "blocked"
  | "disabled"
  | "stopped";

/** What /mcp and `harness mcp list` show about one server. */
export interface McpServerState {
  name: string;
  config: McpServerConfig;
  status: McpServerStatus;
  tools: McpToolListing[];
  /** The last failure: why it did not start, or how it stopped. */
  error?: string;
  /** How long the last start took until the tool list was known (ms). */
  readyMs?: number;
}

export interface McpServersOptions {
  grants: Grants;
  cwd: string;
  /** One line for the user: a server failed, crashed or became ready late. */
  notice?(line: string): void;
  /** The tool list changed (a server became ready, crashed or sent list_changed). */
  onToolsChanged?(): void;
  /** Default per-call timeout when an entry has no `timeout_ms` (ms, default 120000). */
  defaultTimeoutMs?: number;
  /** Time a server gets to start and answer `initialize` (ms, default 60000). */
  connectTimeoutMs?: number;
  /**
   * The command sandbox stdio servers start in (the run's start-up check); probed here in
   * "auto" mode when left out.
   */
  commandSandbox?: Promise<CommandSandbox>;
  /** Fills `${VAR}` placeholders of the entries (default: from `environment`). */
  env?: (name: string) => string | undefined;
  /**
   * harness's environment: servers' clean environments and launchers' caches (default:
   * Deno.env).
   */
  environment?: Record<string, string>;
  /**
   * The workspace's data folder: an answer too large to hold in memory is saved in its
   * tool_outputs, where the workspace's read_file may read it (default: the workspace's folder
   * under the saved outputs' root, as the tool host's).
   */
  outputsDir?: string;
  /** How long a server whose call timed out has to answer a ping (ms, default 5000). */
  pingTimeoutMs?: number;
}

interface Entry extends McpServerState {
  connection?: McpConnection;
  starting?: Promise<void>;
  /** Why its placeholders cannot be filled: it is not started, and says so once. */
  unfilled?: string;
  /** The entry as configured, placeholders unfilled (where a saved profile goes). */
  original: McpServerConfig;
}

/** Whether commands run inside an OS sandbox here (only then has a profile anything to do). */
function confines(sandbox: CommandSandbox): boolean {
  return sandbox.confinement.kind === "bwrap" || sandbox.confinement.kind === "sandbox-exec";
}

/** Every configured server of a run. */
export class McpServers {
  readonly #entries: Entry[];
  readonly #options: McpServersOptions;
  /** Aborted by close(): servers still starting are stopped rather than waited for. */
  readonly #closing = new AbortController();
  #closed = false;

  readonly #env: Record<string, string>;

  constructor(servers: Record<string, McpServerConfig>, options: McpServersOptions) {
    this.#options = options;
    this.#env = options.environment ?? Deno.env.toObject();
    // A literal ${...} never reaches a server: placeholders are filled now or the server waits.
    const env = options.env ?? ((name: string) => this.#env[name]);
    this.#entries = Object.entries(servers).map(([name, config]) => {
      const filled = fillPlaceholders(config as unknown as Record<string, unknown>, env);
      return {
        name,
        config: "entry" in filled ? filled.entry as unknown as McpServerConfig : config,
        original: config,
        status: config.disabled ? "disabled" : "stopped",
        tools: [],
        ...("missing" in filled ? { unfilled: missingVariablesMessage(name, filled.missing) } : {}),
      };
    });
  }

  /** Each server's state, in configuration order. */
  states(): readonly McpServerState[] {
    return this.#entries;
  }

  /** The per-call timeout of a server (ms). */
  timeoutMs(server: string): number {
    const entry = this.#entries.find((e) => e.name === server);
    return entry?.config.timeout_ms ?? this.#options.defaultTimeoutMs ?? 120_000;
  }

  /**
   * Starts every enabled server at once; returns at once. A server the grants do not allow
   * is "blocked" with the flag it needs.
   */
  start(): void {
    for (const entry of this.#entries) {
      if (entry.status !== "stopped") continue;
      const blocked = entry.unfilled ??
        serverBlockedReason(entry.name, entry.config, this.#options);
      if (blocked) {
        entry.status = "blocked";
        entry.error = blocked;
        this.#options.notice?.(blocked);
        continue;
      }
      void this.#connect(entry);
    }
  }

  /**
   * Shows each launcher profile that is not approved yet (launcher_profiles.ts) and asks once
   * whether to allow it; an approved one is saved into its entry in the user's config.jsonc.
   * Call it before start(), where the user can answer; without `io` nothing is asked and such
   * a server is not started (its line says what it needs and how to approve it).
   */
  async approveProfiles(io: ProfileQuestionIO | undefined): Promise<void> {
    if (io === undefined) return;
    const home = this.#env.HOME ?? "";
    for (const entry of this.#entries) {
      if (entry.status !== "stopped" || entry.unfilled !== undefined) continue;
      if (serverBlockedReason(entry.name, entry.config, this.#options)) continue;
      const profile = pendingProfile(entry.config, this.#profileOptions());
      if (profile === undefined) continue;
      if (!confines(await this.#sandbox())) return;
      if (!(await askProfile(entry.name, profile, io, home))) continue;
      const sandbox = profileSandbox(profile, home);
      const saved = await saveServerSandbox(
        `${configDir(this.#env)}/config.jsonc`,
        entry.name,
        entry.original,
        sandbox,
      );
      entry.config = { ...entry.config, sandbox };
      entry.original = { ...entry.original, sandbox };
      io.write(`${saved}\n`);
    }
  }

  #profileOptions() {
    return { grants: this.#options.grants, env: this.#env, cwd: this.#options.cwd };
  }

  /** Resolves when no server is starting any more, or after `maxWaitMs`. */
  async settled(maxWaitMs: number): Promise<void> {
    const starting = this.#entries.flatMap((e) => e.starting ? [e.starting] : []);
    if (starting.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(starting),
      new Promise<void>((settle) => (timer = setTimeout(settle, maxWaitMs))),
    ]);
    clearTimeout(timer);
  }

  /** The run's command sandbox, probed once when the front end gave none. */
  #sandbox(): Promise<CommandSandbox> {
    this.#options.commandSandbox ??= probeCommandSandbox("auto", {
      grants: this.#options.grants,
      env: this.#env,
      workspace: this.#options.cwd,
    });
    return this.#options.commandSandbox;
  }

  /**
   * The entry as the SDK starts it: a stdio server's command inside the command sandbox, with
   * the grants of that sandbox; or why it does not start (`blocked`: a launcher's profile is
   * not approved).
   */
  async #launchConfig(
    entry: Entry,
  ): Promise<{ config: McpServerConfig; grants?: Grants } | { error: string; blocked?: true }> {
    if (!isStdioServer(entry.config)) return { config: entry.config };
    const sandbox = await this.#sandbox();
    const profile = confines(sandbox)
      ? pendingProfile(entry.config, this.#profileOptions())
      : undefined;
    if (profile !== undefined) {
      return { error: unapprovedMessage(entry.name, profile, this.#env.HOME ?? ""), blocked: true };
    }
    const confined = confinedServer(entry.name, entry.config, {
      grants: this.#options.grants,
      cwd: this.#options.cwd,
      env: this.#env,
      sandbox,
    });
    // The SDK starts it right away: only stdin, stdout and stderr may be passed on.
    closeExtraFdsOnExec();
    if (!confined.ok) return { error: confined.error };
    return confines(sandbox) ? confined : { config: confined.config };
  }

  #connect(entry: Entry, quiet = false): Promise<void> {
    entry.status = "starting";
    const started = performance.now();
    entry.starting = (async () => {
      const module = await loadOwnModule<typeof McpServerModule>("src/mcp/mcp_server.ts");
      if (this.#closed) return;
      const launch = await this.#launchConfig(entry);
      if ("error" in launch) {
        entry.status = launch.blocked ? "blocked" : "failed";
        entry.error = launch.error;
        if (!quiet) this.#options.notice?.(launch.error);
        return;
      }
      const connected = await module.connectMcpServer(entry.name, launch.config, {
        cwd: this.#options.cwd,
        // Starting may include a package download (npx, uvx): never less than a minute.
        connectTimeoutMs: this.#options.connectTimeoutMs ??
          Math.max(60_000, entry.config.timeout_ms ?? 0),
        signal: this.#closing.signal,
        outputsDir: this.#options.outputsDir ??
          workspaceDataDir(savedOutputsRoot(this.#env), this.#options.cwd),
        onToolsChanged: (tools) => {
          entry.tools = tools;
          this.#options.onToolsChanged?.();
        },
        onLost: (reason) => {
          if (entry.connection === undefined || this.#closed) return;
          entry.status = "crashed";
          entry.error = reason;
          this.#options.notice?.(
            `MCP server "${entry.name}" stopped: ${reason}; it restarts on its next use`,
          );
        },
      });
      if (this.#closed) {
        if (connected.ok) await connected.connection.close();
        return;
      }
      if (!connected.ok) {
        entry.status = "failed";
        entry.error = launch.grants && isStdioServer(entry.config)
          ? confinedFailure(entry.name, entry.config, { ...connected, grants: launch.grants })
          : connected.error;
        if (!quiet) {
          const hint = launch.grants
            ? ' (it runs in the command sandbox: add what it needs to the entry\'s "sandbox")'
            : "";
          this.#options.notice?.(
            entry.error === connected.error
              ? `${entry.error}: fix the entry in mcp_servers, then check with "harness mcp list"${hint}`
              : entry.error,
          );
        }
        return;
      }
      entry.connection = connected.connection;
      entry.tools = connected.tools;
      entry.status = "ready";
      delete entry.error;
      entry.readyMs = performance.now() - started;
      this.#options.onToolsChanged?.();
    })().finally(() => delete entry.starting);
    return entry.starting;
  }

  /**
   * Calls tool `tool` of `server` (its own name, not the model's), restarting the server
   * first when it crashed.
   *
   * @returns The server's result, or why there is none.
   */
  async call(
    { server, tool }: { server: string; tool: string },
    args: Record<string, unknown>,
    options: {
      signal?: AbortSignal;
      onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
      /** Overrides the server's timeout for this call (ms). */
      timeoutMs?: number;
    },
  ): Promise<{ ok: true; result: McpCallResult } | { ok: false; failure: McpCallFailure }> {
    const entry = this.#entries.find((e) => e.name === server);
    if (!entry) {
      return { ok: false, failure: { kind: "protocol", message: `no MCP server "${server}"` } };
    }
    if (entry.starting) await entry.starting;
    // A crashed server, or one whose restart failed, is tried again on each use.
    if (entry.status === "crashed" || entry.status === "failed" || entry.connection?.lost) {
      await entry.connection?.close();
      delete entry.connection;
      await this.#connect(entry, true);
    }
    const connection = entry.connection;
    if (entry.status !== "ready" || !connection) {
      return {
        ok: false,
        failure: {
          kind: "crashed",
          message: `MCP server "${server}" is not running${entry.error ? `: ${entry.error}` : ""}`,
        },
      };
    }
    const timeoutMs = options.timeoutMs ?? this.timeoutMs(server);
    const called = await connection.callTool(tool, args, { ...options, timeoutMs });
    if (called.ok || this.#closed) return called;
    if (called.failure.kind === "crashed") {
      entry.status = "crashed";
      entry.error = called.failure.message;
    }
    if (
      called.failure.kind === "timeout" &&
      !(await connection.ping(this.#options.pingTimeoutMs ?? PING_TIMEOUT_MS))
    ) {
      return { ok: false, failure: this.#frozen(entry, connection, called.failure.message) };
    }
    return called;
  }

  /**
   * A server that answered neither a call nor a ping is frozen whole: it is stopped (in the
   * background) and started again on its next use, instead of timing out every later call.
   */
  #frozen(entry: Entry, connection: McpConnection, timedOut: string): McpCallFailure {
    entry.status = "crashed";
    entry.error = "it answered neither a call nor a ping";
    if (entry.connection === connection) delete entry.connection;
    void connection.close();
    this.#options.notice?.(
      `MCP server "${entry.name}" answered neither a call nor a ping: it was stopped and starts ` +
        "again on its next use",
    );
    return {
      kind: "timeout",
      message: `${timedOut}; the server did not answer a ping either, so it was stopped and ` +
        "starts again on the next call",
    };
  }

  /** Stops every server (stdio servers get their stdin closed, then SIGTERM). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    await Promise.all(this.#entries.map(async (entry) => {
      await entry.starting?.catch(() => undefined);
      await entry.connection?.close();
      delete entry.connection;
      if (entry.status !== "disabled" && entry.status !== "blocked") entry.status = "stopped";
    }));
  }
}

/**
 * One line per server for /mcp and `harness mcp list`: name, status, tool count, transport,
 * and the error when there is one.
 *
 * @example
 * ```ts
 * import { formatServerStates } from "./mcp_servers.ts";
 * const text = formatServerStates([
 *   { name: "fs", config: { command: "npx" }, status: "ready", tools: [] },
 * ]);
 * if (!text.includes("fs") || !text.includes("ready")) throw new Error(text);
 * ```
 */
export function formatServerStates(states: readonly McpServerState[]): string {
  if (states.length === 0) {
    return 'No MCP servers configured: add one with "harness mcp add NAME -- COMMAND ARGS..."';
  }
  return states.map((state) => {
    const where = "command" in state.config
      ? [state.config.command, ...(state.config.args ?? [])].join(" ")
      : state.config.url;
    const count = state.status === "ready" || state.tools.length > 0
      ? `  ${state.tools.length} tool${state.tools.length === 1 ? "" : "s"}`
      : "";
    const error = state.error ? `\n    ${state.error}` : "";
    const took = state.status === "ready" && state.readyMs !== undefined
      ? ` in ${(state.readyMs / 1000).toFixed(1)} s`
      : "";
    return `${state.name}  ${state.status}${took}${count}  ${where}${error}`;
  }).join("\n");
}
