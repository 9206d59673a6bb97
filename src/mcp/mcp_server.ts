// One MCP server seen through the official SDK (`@modelcontextprotocol/sdk`): connects over
// stdio or Streamable HTTP (falling back to SSE), lists its tools, follows
// `notifications/tools/list_changed`, and calls tools with progress, cancellation and a
// timeout. A server that exits or drops its connection is marked "crashed" and is started
// again on its next use. Loaded by mcp_servers.ts only once a server is configured, so the
// SDK never weighs on start-up.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import denoJson from "../../deno.json" with { type: "json" };
import { isStdioServer, type McpServerConfig } from "../config/mcp_config.ts";
import { type McpCallResult, printable } from "./mcp_result.ts";
import { MessageReader, type ReadBufferLike } from "./message_reader.ts";
import { toolOutputsDir } from "../config/folders.ts";
import { join } from "node:path";

/** A new file for an answer too large to hold, named after its server. */
function spillFile(outputsDir: string, server: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const suffix = Math.random().toString(36).slice(2, 8);
  return join(
    toolOutputsDir(outputsDir),
    `mcp-${server.replace(/[^\w-]/g, "_")}-${stamp}-${suffix}.txt`,
  );
}

/** A tool as the server lists it. */
export interface McpToolListing {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

/** How a call ended when no result came back. */
export type McpCallFailure =
  | { kind: "timeout"; message: string }
  | { kind: "cancelled"; message: string }
  | { kind: "crashed"; message: string }
  | { kind: "protocol"; message: string };

export interface McpConnectionOptions {
  /** Folder a stdio server starts in when its entry names none. */
  cwd: string;
  /** Time allowed to start and initialise (ms). */
  connectTimeoutMs: number;
  /** Gives up at once (harness is exiting): the server process is stopped. */
  signal?: AbortSignal;
  /** Called after the tool list changed on the server's own notice. */
  onToolsChanged(tools: McpToolListing[]): void;
  /** Called when the server exits or its connection drops outside a close(). */
  onLost(reason: string): void;
  /** Where an answer too large to hold is saved (the saved outputs' folder). */
  outputsDir: string;
}

const STDERR_TAIL = 2000;

/** A live connection to one server. Open it with {@linkcode connectMcpServer}. */
export class McpConnection {
  #closing = false;
  #lost = false;

  constructor(
    readonly client: Client,
    readonly transport: Transport,
    readonly stderrTail: () => string,
  ) {}

  /** Whether the server exited or the connection dropped. */
  get lost(): boolean {
    return this.#lost;
  }

  markLost(): void {
    this.#lost = true;
  }

  get closing(): boolean {
    return this.#closing;
  }

  /** The server's tools, following `nextCursor` pages. */
  async listTools(timeoutMs: number): Promise<McpToolListing[]> {
    const tools: McpToolListing[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
      tools.push(...page.tools as McpToolListing[]);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /**
   * Calls a tool. Progress notifications go to `onProgress`; an abort sends
   * `notifications/cancelled` (the SDK does that for an aborted request).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: {
      timeoutMs: number;
      signal?: AbortSignal;
      onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
    },
  ): Promise<{ ok: true; result: McpCallResult } | { ok: false; failure: McpCallFailure }> {
    try {
      const result = await this.client.callTool({ name, arguments: args }, undefined, {
        timeout: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress
          ? { onprogress: options.onProgress, resetTimeoutOnProgress: false }
          : {}),
      });
      return { ok: true, result: result as McpCallResult };
    } catch (error) {
      if (options.signal?.aborted) {
        return { ok: false, failure: { kind: "cancelled", message: "Cancelled by the user" } };
      }
      if (errorCode(error) === ErrorCode.RequestTimeout) {
        return {
          ok: false,
          failure: {
            kind: "timeout",
            message: `did not answer within ${options.timeoutMs / 1000} s and was cancelled`,
          },
        };
      }
      if (this.#lost || errorCode(error) === ErrorCode.ConnectionClosed) {
        this.#lost = true;
        const tail = this.stderrTail().trim();
        return {
          ok: false,
          failure: {
            kind: "crashed",
            message: `the server stopped during the call${
              tail ? `; its stderr ends: ${lastLines(tail)}` : ""
            }`,
          },
        };
      }
      if (!(error instanceof McpError)) this.#lost = true; // a transport failure: reconnect
      return { ok: false, failure: { kind: "protocol", message: errorText(error) } };
    }
  }

  /**
   * Whether the server still answers: a `ping` (any answer counts, an error too) within
   * `timeoutMs`. A call that timed out may be slow work; a server that answers nothing is frozen.
   */
  async ping(timeoutMs: number): Promise<boolean> {
    if (this.#lost) return false;
    try {
      await this.client.ping({ timeout: timeoutMs });
      return true;
    } catch (error) {
      const code = errorCode(error);
      return error instanceof McpError && code !== ErrorCode.RequestTimeout &&
        code !== ErrorCode.ConnectionClosed;
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.client.close().catch(() => undefined);
  }
}

/** The JSON-RPC code of an McpError (the SDK's class does not narrow under `instanceof`). */
function errorCode(error: unknown): number | undefined {
  return error instanceof McpError ? (error as { code?: number }).code : undefined;
}

/** An error's message without the SDK's "MCP error -32000:" prefix noise kept readable. */
export function errorText(error: unknown): string {
  return printable(error instanceof Error ? error.message : String(error));
}

/**
 * Starts (stdio) or reaches (HTTP) one server and runs the MCP handshake.
 *
 * @returns The connection and its tool list, or a one-line reason with the stderr tail.
 */
export async function connectMcpServer(
  name: string,
  config: McpServerConfig,
  options: McpConnectionOptions,
): Promise<
  | { ok: true; connection: McpConnection; tools: McpToolListing[] }
  | { ok: false; error: string; stderr: string }
> {
  let stderr = "";
  const tail = () => stderr.slice(-STDERR_TAIL);
  const newClient = () =>
    new Client({ name: "harness", version: denoJson.version }, { capabilities: {} });
  let client = newClient();
  options.signal?.addEventListener("abort", () => void client.close().catch(() => undefined), {
    once: true,
  });
  let transport: Transport;
  let connection: McpConnection | undefined;
  const timeout = { timeout: options.connectTimeoutMs };
  try {
    if (isStdioServer(config)) {
      const stdio = new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        ...(config.env ? { env: config.env } : {}),
        cwd: config.cwd ?? options.cwd,
        stderr: "pipe",
      });
      // Messages are split without the SDK's quadratic buffer, and one over its 10 MiB limit
      // is saved to a file instead of ending the connection (message_reader.ts).
      (stdio as unknown as { _readBuffer: ReadBufferLike })._readBuffer = new MessageReader({
        spillFile: () => spillFile(options.outputsDir, name),
      });
      stdio.stderr?.on("data", (chunk: Uint8Array | string) => {
        stderr = (stderr + String(chunk)).slice(-STDERR_TAIL * 2);
      });
      transport = stdio;
      await withTimeout(client.connect(stdio, timeout), options.connectTimeoutMs, () => {
        void client.close().catch(() => undefined);
      });
    } else {
      const url = new URL(config.url);
      const requestInit = config.headers ? { headers: config.headers } : undefined;
      const sse = () =>
        new SSEClientTransport(url, {
          ...(requestInit ? { requestInit } : {}),
          ...(config.headers
            ? {
              eventSourceInit: {
                fetch: (input: string | URL, init?: RequestInit) =>
                  fetch(input, {
                    ...init,
                    headers: {
                      ...Object.fromEntries(new Headers(init?.headers)),
                      ...config.headers,
                    },
                  }),
              },
            }
            : {}),
        });
      if (config.type === "sse") {
        transport = sse();
        await client.connect(transport, timeout);
      } else {
        transport = new StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {});
        try {
          await client.connect(transport, timeout);
        } catch (error) {
          if (config.type === "http" || config.type === "streamable-http") throw error;
          // Older servers speak only HTTP+SSE (protocol 2024-11-05).
          await client.close().catch(() => undefined);
          client = newClient();
          transport = sse();
          await client.connect(transport, timeout);
        }
      }
    }
    connection = new McpConnection(client, transport, tail);
    const live = connection;
    client.onclose = () => {
      if (live.closing) return;
      live.markLost();
      const text = tail().trim();
      options.onLost(`the server stopped${text ? `; its stderr ends: ${lastLines(text)}` : ""}`);
    };
    // Malformed lines from the server are dropped by the SDK; the call they belonged to
    // times out. Nothing to do here but keep them from reaching the terminal.
    client.onerror = () => {};
    const tools = await live.listTools(options.connectTimeoutMs);
    if (client.getServerCapabilities()?.tools?.listChanged) {
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        try {
          options.onToolsChanged(await live.listTools(options.connectTimeoutMs));
        } catch {
          // the old list stays until the next change
        }
      });
    }
    return { ok: true, connection: live, tools };
  } catch (error) {
    await (connection?.close() ?? client.close()).catch(() => undefined);
    const text = lastLines(tail().trim());
    return {
      ok: false,
      error: `${connectErrorText(name, config, error)}${text ? `; its stderr ends: ${text}` : ""}`,
      stderr: tail(),
    };
  }
}

function connectErrorText(name: string, config: McpServerConfig, error: unknown): string {
  const message = errorText(error);
  if (isStdioServer(config)) {
    if (/ENOENT|not found|No such file/i.test(message)) {
      return `Cannot start MCP server "${name}": command "${config.command}" was not found ` +
        `(install it, or give its full path)`;
    }
    return `MCP server "${name}" failed to start: ${message}`;
  }
  return `Cannot connect to MCP server "${name}" at "${config.url}": ${message}`;
}

/** The last three lines of a stderr tail, on one line, without terminal control codes. */
function lastLines(text: string): string {
  return printable(text.split("\n").slice(-3).join(" | ").slice(-600));
}

async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => void,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          onTimeout();
          reject(new Error(`no answer to "initialize" within ${ms / 1000} s`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
