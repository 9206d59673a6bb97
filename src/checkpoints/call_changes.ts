// What one tool call may change, as checkpoints need to know it before the call runs: the
// built-in file tools change exactly the file their `path` names (its state is read before
// and after the call); a command, an MCP tool, or a plugin that may write without saying
// which file changes whatever changed in the folder while it ran.

/** A call as the call path hands it to checkpoints (its tool's info: where it comes from). */
export interface CheckpointedCall {
  id: string;
  name: string;
  args: unknown;
  info: { origin: string };
}

/** What a call may change. */
export type CallChanges =
  /** Exactly these paths (as the call names them, relative to the workspace). */
  | { kind: "files"; paths: string[] }
  /** Anything: what changes while it runs is its; `label` names it for the user. */
  | { kind: "command"; label: string };

/** The built-in tools that write exactly the file their `path` argument names. */
const FILE_TOOLS: ReadonlySet<string> = new Set([
  "write_file",
  "edit_file",
  "insert_lines",
  "replace_lines",
]);

/**
 * What a call may change.
 *
 * @param call The call, with its tool's info.
 * @returns The files it names, or "command" when it may change anything.
 *
 * @example
 * ```ts
 * import { callChanges } from "./call_changes.ts";
 * const info = { origin: "builtin" };
 * const files = callChanges({ id: "1", name: "write_file", args: { path: "a.ts" }, info });
 * if (files.kind !== "files" || files.paths[0] !== "a.ts") throw new Error();
 * const command = callChanges({ id: "2", name: "run_command", args: { command: "make" }, info });
 * if (command.kind !== "command" || command.label !== "run_command: make") throw new Error();
 * ```
 */
export function callChanges(call: CheckpointedCall): CallChanges {
  const args = call.args as Record<string, unknown> | undefined;
  if (
    call.info.origin === "builtin" && FILE_TOOLS.has(call.name) && typeof args?.path === "string"
  ) {
    return { kind: "files", paths: [args.path] };
  }
  const command = typeof args?.command === "string" ? args.command : undefined;
  const label = command === undefined ? call.name : `${call.name}: ${firstLine(command)}`;
  return { kind: "command", label };
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
