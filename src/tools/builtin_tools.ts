// Typed handles of the built-in tools harness itself relies on: core code reaches a built-in
// through its handle (`set.builtin(READ_FILE)`, `isTool(info, RUN_COMMAND)`), never by
// comparing a name string, and the handle says what arguments it takes.
// tests/tools/builtin_tools_test.ts checks that each handle names a file of plugins/ (or a
// code tool).

import type { ToolEntry, ToolSource } from "./tool_entry.ts";

/** A built-in tool: its name, and the arguments core code calls it with. */
export interface ToolHandle<Args = unknown> {
  readonly name: string;
  /** Never set: carries the argument type. */
  readonly args?: Args;
}

function handle<Args>(name: string): ToolHandle<Args> {
  return { name };
}

export const READ_FILE = handle<{ path: string; offset?: number; limit?: number }>("read_file");
export const WRITE_FILE = handle<{ path: string; content: string }>("write_file");
export const EDIT_FILE = handle<{ path: string; old_string: string; new_string: string }>(
  "edit_file",
);
export const INSERT_LINES = handle<{ path: string }>("insert_lines");
export const REPLACE_LINES = handle<{ path: string }>("replace_lines");
export const LS = handle<{ path: string }>("ls");
export const RUN_COMMAND = handle<{ command: string }>("run_command");
export const GREP_SEARCH = handle("grep_search");
export const GLOB = handle("glob");
export const TASK_COMPLETE = handle<{ summary: string }>("task_complete");
export const CODE_MAP = handle("code_map");
export const JOB_OUTPUT = handle<{ id: string }>("job_output");
export const JOB_KILL = handle<{ id: string }>("job_kill");
export const JOB_LIST = handle("job_list");

/** run_command and the tools of the jobs it starts: they reach the host's jobs. */
export const JOB_TOOLS: readonly ToolHandle[] = [RUN_COMMAND, JOB_OUTPUT, JOB_KILL, JOB_LIST];

/** The built-in tools whose `path` names the one file a call writes. */
export const FILE_WRITE_TOOLS: readonly ToolHandle[] = [
  WRITE_FILE,
  EDIT_FILE,
  INSERT_LINES,
  REPLACE_LINES,
];

/** The built-in tools whose `path` names the one file a call reads or writes. */
export const FILE_TOOLS: readonly ToolHandle[] = [READ_FILE, ...FILE_WRITE_TOOLS];

/**
 * Whether a tool is the built-in one of a handle (a plugin of another origin with the same
 * name is not).
 *
 * @param info The tool, or undefined.
 * @param handles The handle, or several (any of them).
 * @returns True when it is.
 *
 * @example
 * ```ts
 * import { isTool, READ_FILE, FILE_TOOLS } from "./builtin_tools.ts";
 * const info = { name: "read_file", description: "", risk: "medium" as const, parameters: {}, source: "x", origin: "builtin" as const };
 * if (!isTool(info, READ_FILE) || !isTool(info, FILE_TOOLS)) throw new Error();
 * if (isTool({ ...info, origin: "user" }, READ_FILE)) throw new Error();
 * ```
 */
export function isTool(
  info: { name: string; origin: string } | undefined,
  handles: ToolHandle | readonly ToolHandle[],
): boolean {
  if (info?.origin !== "builtin") return false;
  const list: readonly ToolHandle[] = "name" in handles ? [handles] : handles;
  return list.some((handle) => handle.name === info.name);
}

/**
 * A built-in tool of a source (the sandboxed plugins, or the whole set), once the source has
 * listed its tools: undefined when it is not loaded.
 *
 * @param source Where to look.
 * @param handle The tool.
 * @returns Its entry.
 */
export async function builtinOf<A>(
  source: ToolSource,
  handle: ToolHandle<A>,
): Promise<ToolEntry | undefined> {
  await source.ready?.();
  return source.entries(new Set()).find((entry) => isTool(entry.info, handle));
}
