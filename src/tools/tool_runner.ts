// The seam between the agent loop and wherever tools run. The real implementation is
// src/sandbox/tool_host.ts (Web Workers with Deno permissions); the loop only sees this.

import type { Result } from "../errors.ts";
import type { ImagePart, ToolResult, ToolSchema, Usage } from "../messages.ts";
import type { RiskLevel, ToolPermissions } from "./define_tool.ts";
import type { PreviewResult } from "./file_change.ts";

/** What the host knows about a loaded tool. */
export interface ToolInfo {
  name: string;
  description: string;
  risk: RiskLevel;
  /** JSON Schema of the parameters (from z.toJSONSchema). */
  parameters: Record<string, unknown>;
  permissions?: ToolPermissions;
  timeoutMs?: number;
  /** The plugin file it came from (a path or URL), or `mcp:SERVER`. */
  source: string;
  origin: "builtin" | "project" | "user" | "flag" | "mcp";
  /** For an MCP tool: the server's name in `mcp_servers` (src/mcp/). */
  server?: string;
}

/** The outcome of one executed tool call. */
export interface ToolRun {
  result: ToolResult;
  /** Terminal line for the user (defaults to a summary of the result). */
  display?: string;
  /** The tool asked to end the run (task_complete). */
  final?: boolean;
  /** Conversation state after the call (tasks); unchanged when the tool did not touch it. */
  state: Record<string, unknown>;
  /** Tokens of model side requests the tool made (the read_file curator). */
  usage?: Usage;
  /** Images the tool shows the model with its result (read_file of an image). */
  images?: ImagePart[];
}

export interface ToolRunner {
  /**
   * Resolves when the tool list is known. A runner may start loading plugins in the
   * background so the prompt shows at once; the loop awaits this before its first request.
   */
  ready?(): Promise<void>;
  /** Tools loaded, in a stable order (complete once `ready` resolved). */
  list(): readonly ToolInfo[];
  /** Why a loaded tool is not offered (the flag that would enable it), if it is not. */
  unavailableReason?(name: string): string | undefined;
  /** Checks arguments against the tool's zod schema; returns the parsed value or plain-word issues. */
  validate(name: string, args: unknown): Promise<Result<unknown, string[]>>;
  /** Runs a validated call in the sandbox. Never throws for tool failures. */
  run(
    name: string,
    args: unknown,
    options: {
      signal?: AbortSignal;
      state: Record<string, unknown>;
      /** Output the tool reports while it runs (run_command's latest lines). */
      onOutput?: (text: string) => void;
      /**
       * The session whose background jobs the call starts and sees (JobTable.scope): an ACP
       * editor's conversations share a workspace. Left out: the front end's one session.
       */
      jobOwner?: string;
    },
  ): Promise<ToolRun>;
  /**
   * What a validated call would change, for the approval prompt: the tool's preview run in its
   * sandbox. Undefined when the tool changes no single file or the runner cannot say.
   */
  preview?(
    name: string,
    args: unknown,
    state?: Record<string, unknown>,
  ): Promise<PreviewResult | undefined>;
  close(): Promise<void>;
}

/**
 * Converts ToolInfo to the schema offered to the model.
 *
 * @example
 * ```ts
 * import { toToolSchema } from "./tool_runner.ts";
 * const s = toToolSchema({ name: "ls", description: "d", risk: "safe", parameters: {}, source: "x", origin: "builtin" });
 * if (s.name !== "ls") throw new Error();
 * ```
 */
export function toToolSchema(info: ToolInfo): ToolSchema {
  return { name: info.name, description: info.description, parameters: info.parameters };
}

/**
 * Whether a tool only reads: it declares `read` and nothing else the sandbox grants. A tool
 * that declares nothing (an MCP tool, a plugin that changes the tasks) may change things.
 *
 * @param info The tool, or undefined for a tool not loaded.
 * @returns True for a read-only tool.
 *
 * @example
 * ```ts
 * import { readsOnly } from "./tool_runner.ts";
 * const base = { name: "ls", description: "", risk: "safe" as const, parameters: {}, source: "x", origin: "builtin" as const };
 * if (!readsOnly({ ...base, permissions: { read: ["."] } })) throw new Error();
 * if (readsOnly({ ...base, permissions: { read: ["."], write: ["."] } }) || readsOnly(base)) throw new Error();
 * ```
 */
export function readsOnly(info: ToolInfo | undefined): boolean {
  const declared = Object.entries(info?.permissions ?? {}).filter(([, value]) =>
    value !== undefined && value !== false
  );
  return declared.length > 0 && declared.every(([kind]) => kind === "read");
}
