// How a tool call looks in the editor: the ACP kind of each tool (read, edit, search, execute,
// fetch, think), a short title, the file locations it touches, and the content of its result.
// The session bridge (session_bridge.ts) and the history replay (session_updates.ts) send the
// same two updates for a call: toolCallUpdate when the model makes it, toolResultUpdate when
// it has finished.

import { isAbsolute, resolve } from "node:path";
import type {
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type { ToolCall, ToolResult } from "../messages.ts";
import { ownField } from "../platform/json_values.ts";
import { parseShallowJson } from "../platform/json_depth.ts";

const KINDS: Record<string, ToolKind> = {
  read_file: "read",
  ls: "read",
  get_file_tree: "read",
  get_working_directory: "read",
  glob: "search",
  grep_search: "search",
  code_map: "search",
  find_definition: "search",
  find_references: "search",
  write_file: "edit",
  edit_file: "edit",
  insert_lines: "edit",
  replace_lines: "edit",
  run_command: "execute",
  job_output: "execute",
  job_kill: "execute",
  job_list: "other",
  download_url: "fetch",
  web_search: "search",
  add_task: "think",
  update_task: "think",
  list_tasks: "think",
  task_complete: "think",
};

/**
 * The ACP kind of a tool, "other" for tools harness does not know (plugins, MCP).
 *
 * @example
 * ```ts
 * import { toolKind } from "./tool_updates.ts";
 * if (toolKind("edit_file") !== "edit" || toolKind("mine") !== "other") throw new Error();
 * ```
 */
export function toolKind(name: string): ToolKind {
  return ownField(KINDS, name) ?? "other";
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

/**
 * A one-line title: the tool and its main argument (path, pattern, command or URL).
 *
 * @example
 * ```ts
 * import { toolTitle } from "./tool_updates.ts";
 * if (toolTitle("run_command", { command: "ls -la" }) !== "run_command: ls -la") throw new Error();
 * ```
 */
export function toolTitle(name: string, args: unknown): string {
  const a = record(args);
  for (const key of ["path", "command", "pattern", "url", "content", "summary", "prompt"]) {
    const value = a[key];
    if (typeof value === "string" && value !== "") {
      const flat = value.replace(/\s+/g, " ");
      return `${name}: ${flat.length > 80 ? `${flat.slice(0, 80)}…` : flat}`;
    }
  }
  return name;
}

/**
 * The files a call touches, as absolute paths (with the first line for line-based tools).
 *
 * @example
 * ```ts
 * import { toolLocations } from "./tool_updates.ts";
 * const l = toolLocations({ path: "a.ts", offset: 3 }, "/w");
 * if (l[0]?.path !== "/w/a.ts" || l[0]?.line !== 3) throw new Error(JSON.stringify(l));
 * ```
 */
export function toolLocations(args: unknown, cwd: string): ToolCallLocation[] {
  const a = record(args);
  if (typeof a.path !== "string" || a.path === "") return [];
  const path = isAbsolute(a.path) ? a.path : resolve(cwd, a.path);
  const line = [a.offset, a.line, a.start_line].find((v) => typeof v === "number");
  return [{ path, ...(typeof line === "number" ? { line } : {}) }];
}

/**
 * The result as editor content: the data, or the error message.
 *
 * @example
 * ```ts
 * import { resultContent } from "./tool_updates.ts";
 * import { makeToolResult } from "../messages.ts";
 * const c = resultContent(makeToolResult({ data: "ok" }));
 * if (c[0]?.type !== "content") throw new Error();
 * ```
 */
export function resultContent(result: ToolResult): ToolCallContent[] {
  const text = result.success ? (result.data ?? "") : (result.error_message ?? result.error_type);
  if (text === "") return [];
  return [{ type: "content", content: { type: "text", text } }];
}

/** The raw arguments of a call as an object (its JSON text parsed), for `rawInput`. */
export function rawInput(argumentsText: string): unknown {
  const parsed = parseShallowJson(argumentsText);
  return parsed === undefined ? argumentsText : parsed.value;
}

/**
 * The update that shows a call the model made: pending, with its title, kind, arguments and
 * the files it touches.
 *
 * @example
 * ```ts
 * import { toolCallUpdate } from "./tool_updates.ts";
 * const u = toolCallUpdate({ id: "c1", name: "read_file", arguments: '{"path": "a.ts"}' }, "/w");
 * if (u.sessionUpdate !== "tool_call" || u.kind !== "read" || u.locations?.[0]?.path !== "/w/a.ts") {
 *   throw new Error(JSON.stringify(u));
 * }
 * ```
 */
export function toolCallUpdate(call: ToolCall, cwd: string): SessionUpdate {
  const args = rawInput(call.arguments);
  return {
    sessionUpdate: "tool_call",
    toolCallId: call.id,
    title: toolTitle(call.name, args),
    kind: toolKind(call.name),
    status: "pending",
    rawInput: args,
    locations: toolLocations(args, cwd),
  };
}

/**
 * The update for a finished call: completed or failed, the file changes it made (`diffs`)
 * and its result as content, and the raw result.
 *
 * @example
 * ```ts
 * import { toolResultUpdate } from "./tool_updates.ts";
 * import { makeToolResult } from "../messages.ts";
 * const u = toolResultUpdate("c1", makeToolResult({ errorType: "not_found", errorMessage: "No a.ts" }));
 * if (u.sessionUpdate !== "tool_call_update" || u.status !== "failed") throw new Error();
 * ```
 */
export function toolResultUpdate(
  callId: string,
  result: ToolResult,
  diffs: readonly ToolCallContent[] = [],
): SessionUpdate {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: callId,
    status: result.success ? "completed" : "failed",
    content: [...diffs, ...resultContent(result)],
    rawOutput: result,
  };
}
