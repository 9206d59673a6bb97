// Claude Code's names for harness's tools, so hooks written for Claude Code see what they
// expect: `tool_name` is Claude Code's name where one exists (Bash for run_command, Write for
// write_file, ...) and `tool_input` has its field names (`file_path`, absolute); an
// `updatedInput` a hook returns is read back into harness's arguments.

import { isAbsolute, join, relative } from "../platform/paths.ts";
import { isRecord } from "../platform/json_values.ts";

/** A harness tool with a Claude Code counterpart, and how their arguments differ. */
interface Counterpart {
  name: string;
  /** harness argument -> Claude Code field. */
  rename: Record<string, string>;
  /** Fields that are absolute paths in Claude Code and workspace-relative in harness. */
  paths: readonly string[];
}

const COUNTERPARTS: Record<string, Counterpart> = {
  run_command: { name: "Bash", rename: { timeout_ms: "timeout" }, paths: [] },
  read_file: { name: "Read", rename: { path: "file_path" }, paths: ["file_path"] },
  write_file: { name: "Write", rename: { path: "file_path" }, paths: ["file_path"] },
  edit_file: { name: "Edit", rename: { path: "file_path" }, paths: ["file_path"] },
  insert_lines: { name: "Edit", rename: { path: "file_path" }, paths: ["file_path"] },
  replace_lines: { name: "Edit", rename: { path: "file_path" }, paths: ["file_path"] },
  glob: { name: "Glob", rename: {}, paths: ["path"] },
  grep_search: { name: "Grep", rename: { file_filter: "glob" }, paths: [] },
  ls: { name: "LS", rename: {}, paths: ["path"] },
  download_url: { name: "WebFetch", rename: {}, paths: [] },
  web_search: { name: "WebSearch", rename: {}, paths: [] },
};

/**
 * The table of names for the docs and tests: harness tool -> Claude Code tool.
 *
 * @example
 * ```ts
 * import { claudeCodeNames } from "./hook_tool_names.ts";
 * if (claudeCodeNames().run_command !== "Bash") throw new Error();
 * ```
 */
export function claudeCodeNames(): Record<string, string> {
  return Object.fromEntries(Object.entries(COUNTERPARTS).map(([tool, c]) => [tool, c.name]));
}

/**
 * Claude Code's name for a tool: its counterpart's, `mcp__server__tool` for an MCP tool
 * (harness names those `server__tool`), else the tool's own name.
 *
 * @param tool The harness tool name.
 * @param server The MCP server of an MCP tool.
 * @returns The name hooks see as `tool_name`.
 *
 * @example
 * ```ts
 * import { claudeCodeToolName } from "./hook_tool_names.ts";
 * if (claudeCodeToolName("write_file") !== "Write") throw new Error();
 * if (claudeCodeToolName("fs__read", "fs") !== "mcp__fs__read") throw new Error();
 * if (claudeCodeToolName("my_tool") !== "my_tool") throw new Error();
 * ```
 */
export function claudeCodeToolName(tool: string, server?: string): string {
  const counterpart = COUNTERPARTS[tool];
  if (counterpart) return counterpart.name;
  if (server !== undefined) return `mcp__${tool}`;
  return tool;
}

/**
 * The arguments as a Claude Code hook expects them: renamed fields, workspace paths made
 * absolute; other fields as they are.
 *
 * @param tool The harness tool name.
 * @param args The validated arguments.
 * @param workspace The workspace folder.
 * @returns `tool_input`.
 *
 * @example
 * ```ts
 * import { claudeCodeInput } from "./hook_tool_names.ts";
 * const input = claudeCodeInput("write_file", { path: "a.ts", content: "x" }, "/w");
 * if (input.file_path !== "/w/a.ts" || input.content !== "x" || "path" in input) throw new Error();
 * ```
 */
export function claudeCodeInput(
  tool: string,
  args: unknown,
  workspace: string,
): Record<string, unknown> {
  const input: Record<string, unknown> = isRecord(args) ? { ...args } : {};
  const counterpart = COUNTERPARTS[tool];
  if (!counterpart) return input;
  for (const [from, to] of Object.entries(counterpart.rename)) {
    if (from in input) {
      input[to] = input[from];
      delete input[from];
    }
  }
  for (const field of counterpart.paths) {
    const value = input[field];
    if (typeof value === "string" && !isAbsolute(value)) input[field] = join(workspace, value);
  }
  return input;
}

/**
 * Reads an `updatedInput` back into harness's arguments: fields renamed back, absolute paths
 * inside the workspace made relative (paths outside stay absolute, and the tool refuses them
 * as it would the model's).
 *
 * @param tool The harness tool name.
 * @param input The hook's `updatedInput`.
 * @param workspace The workspace folder.
 * @returns Arguments to validate again.
 *
 * @example
 * ```ts
 * import { harnessArguments } from "./hook_tool_names.ts";
 * const args = harnessArguments("run_command", { command: "ls", timeout: 5 }, "/w");
 * if (args.timeout_ms !== 5 || args.command !== "ls") throw new Error();
 * if (harnessArguments("read_file", { file_path: "/w/src/a.ts" }, "/w").path !== "src/a.ts") {
 *   throw new Error();
 * }
 * ```
 */
export function harnessArguments(
  tool: string,
  input: Record<string, unknown>,
  workspace: string,
): Record<string, unknown> {
  const args: Record<string, unknown> = { ...input };
  const counterpart = COUNTERPARTS[tool];
  if (!counterpart) return args;
  for (const field of counterpart.paths) {
    const value = args[field];
    if (typeof value === "string" && isAbsolute(value)) {
      const inside = relative(workspace, value);
      if (!inside.startsWith("..") && !isAbsolute(inside)) args[field] = inside || ".";
    }
  }
  for (const [from, to] of Object.entries(counterpart.rename)) {
    if (to in args) {
      args[from] = args[to];
      delete args[to];
    }
  }
  return args;
}
