// What a tool is to the rest of harness: an entry `{ info, validate, run, preview? }` that
// its source (the sandboxed plugins of src/sandbox/workers/tool_host.ts, the code tools of
// src/code_index/, the MCP servers of src/mcp/) hands in once. The tool set (tool_set.ts)
// gathers the sources' entries; the agent offers them (src/sandbox/grants/tool_offer.ts) and drives
// each call through its stages (src/agent/call_driver.ts). A new source is an object with
// `entries()`: see tool_set.ts.

import type { Result } from "../errors.ts";
import type { ImagePart, ToolResult, ToolSchema, Usage } from "../messages.ts";
import type { RiskLevel, ToolPermissions } from "./define_tool.ts";
import type { PreviewResult } from "./file_change.ts";
import type { FilePort } from "./file_port.ts";

/** What a source knows about one of its tools. */
export interface ToolInfo {
  name: string;
  description: string;
  risk: RiskLevel;
  /** JSON Schema of the parameters (from z.toJSONSchema). */
  parameters: Record<string, unknown>;
  permissions?: ToolPermissions;
  timeoutMs?: number;
  /** The plugin file it came from (a path or URL), `mcp:SERVER`, or `code_index`. */
  source: string;
  origin: "builtin" | "project" | "user" | "flag" | "mcp";
  /** For an MCP tool: the server's name in `mcp_servers` (src/mcp/). */
  server?: string;
  /**
   * Calls of it in one reply run together (`task`: each child is its own conversation, and
   * the slot scheduler queues those the server has no room for).
   */
  concurrent?: boolean;
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

/** What one call of an entry runs with besides its arguments. */
export interface EntryCall {
  /** The call's id, as the model's turn and the loop's events name it. */
  callId?: string;
  signal?: AbortSignal;
  /** The conversation's state (tasks); the run returns it, changed or not. */
  state: Record<string, unknown>;
  /** Output the tool reports while it runs (run_command's latest lines). */
  onOutput?: (text: string) => void;
  /**
   * Where a built-in file tool reads and writes (its `ctx.files`): the editor's buffers under
   * ACP. Left out, the tool uses its worker's own file access.
   */
  files?: FilePort;
  /**
   * The session whose background jobs the call starts and sees (JobTable.scope): an editor's
   * conversations share a workspace. Left out: the front end's one session.
   */
  jobOwner?: string;
}

/**
 * One tool as its source hands it in. Entries are plain records of functions (no `this`), so
 * the tool set and the offer pass them on as they are.
 */
export interface ToolEntry {
  readonly info: ToolInfo;
  /** Checks arguments against the tool's schema; the parsed value or plain-word issues. */
  validate(args: unknown): Promise<Result<unknown, string[]>>;
  /** Runs a validated call. Never throws for tool failures. */
  run(args: unknown, call: EntryCall): Promise<ToolRun>;
  /**
   * What a validated call would change, for the approval prompt (a tool that changes one
   * file). Undefined when the tool cannot say.
   */
  preview?(
    args: unknown,
    state: Record<string, unknown>,
    files?: FilePort,
  ): Promise<PreviewResult | undefined>;
}

/**
 * A source of entries: the sandboxed plugins, the code tools, the MCP servers. Its list may
 * grow once it is ready (a server starts) or change (a server lists new tools): `entries()`
 * returns the same array while nothing changed, so the set's cache holds.
 */
export interface ToolSource {
  /** Resolves when the list is known; the loop awaits it before its first request. */
  ready?(): Promise<void>;
  /**
   * The source's entries now, in a stable order.
   *
   * @param taken Names earlier sources hold: a source that makes names up avoids them.
   */
  entries(taken: ReadonlySet<string>): readonly ToolEntry[];
  close?(): Promise<void> | void;
}

/**
 * Converts ToolInfo to the schema offered to the model.
 *
 * @example
 * ```ts
 * import { toToolSchema } from "./tool_entry.ts";
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
 * import { readsOnly } from "./tool_entry.ts";
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

/**
 * Whether a call of this tool may change files, so a turn's checkpoint must come first: an
 * MCP tool (its server runs outside the workers), or a tool that declares writes, processes or
 * native code. A tool that declares nothing else cannot touch a file in its worker.
 *
 * @example
 * ```ts
 * import { mayChangeFiles } from "./tool_entry.ts";
 * const base = { name: "t", description: "", risk: "low" as const, parameters: {}, source: "x", origin: "builtin" as const };
 * if (mayChangeFiles({ ...base, permissions: { read: ["."] } })) throw new Error();
 * if (!mayChangeFiles({ ...base, permissions: { run: true } })) throw new Error();
 * if (!mayChangeFiles({ ...base, origin: "mcp" })) throw new Error();
 * ```
 */
export function mayChangeFiles(info: ToolInfo): boolean {
  if (info.origin === "mcp") return true;
  const declared = info.permissions ?? {};
  return [declared.write, declared.run, declared.ffi].some((value) =>
    value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)
  );
}
