// The plugin contract: one tool per file, one default export. Built-in tools import
// this module; a dropped plugin file may instead export a factory `({ z }) => definition`
// so it needs no import resolution (the sandbox worker hands it zod).

import type { z } from "zod";
import type { ToolErrorType } from "../messages.ts";
import type { FilePreview } from "./file_change.ts";
import type { SearchClient } from "./search/search_client.ts";
import type { FilePort } from "./file_port.ts";
import type { JobControl } from "../jobs/job_control.ts";

export type RiskLevel = "safe" | "low" | "medium" | "high";

/** Deno permissions a tool declares it needs; the sandbox grants at most these. */
export interface ToolPermissions {
  read?: boolean | string[];
  write?: boolean | string[];
  net?: boolean | string[];
  run?: boolean | string[];
  env?: boolean | string[];
  sys?: boolean | string[];
  ffi?: boolean | string[];
}

/**
 * Options of `ctx.spawn`: those of `Deno.Command`, `cwd` defaulting to the workspace. A
 * process never shares harness's terminal or output, so streams are piped (default for
 * stdout and stderr) or null (default for stdin).
 */
export interface SpawnOptions {
  args?: string[];
  cwd?: string;
  /** Added to the clean environment (PATH, HOME, LANG, ... and what --allow-env names). */
  env?: Record<string, string>;
  stdin?: "piped" | "null";
  stdout?: "piped" | "null";
  stderr?: "piped" | "null";
  /** Windows: pass `args` to the program as written (cmd.exe quoting). */
  windowsRawArguments?: boolean;
}

/** The command sandbox as a tool sees it (src/sandbox/commands/command_sandbox_launcher.ts). */
export interface CommandRunner {
  /** Whether processes run inside an OS sandbox (bubblewrap, sandbox-exec). */
  readonly confined: boolean;
  /** One line: how commands run here. */
  readonly summary: string;
  /** Whether the user granted every program (`--allow-run` without a list). */
  readonly runsAnyProgram: boolean;
  /** Same as `ctx.spawn`. */
  spawn(program: string, options?: SpawnOptions): Deno.ChildProcess;
  /**
   * One line for a result whose failure the sandbox explains (a blocked write or connection,
   * a path --deny-read hides); `cwd` is where the process ran (default: the workspace).
   */
  explain(output: string, cwd?: string): string | undefined;
  /** In "auto" mode without a sandbox: a warning line, the first time only. */
  unconfinedWarning(): string | undefined;
}

/**
 * What a tool's `run` receives besides its arguments. harness_plugin_dts.ts declares the same
 * for plugin files, except what only built-in tools use; a test compares the two
 * (tests/plugin_loader/harness_plugin_dts_test.ts): change both alike.
 */
export interface ToolContext {
  /** Absolute workspace root (the harness's working directory). */
  workspace: string;
  /**
   * Resolves a workspace-relative path to its real absolute path (symbolic links resolved, so
   * the sandbox checks what is really opened). Throws a ToolError ("validation_failed") for
   * absolute paths, `..` escapes and symlinks leaving the workspace; absolute paths of full
   * outputs harness saved for this workspace (which results name) are accepted. Open the
   * result with verified_fs.ts to notice a folder swapped for a link after the check.
   */
  resolve(path: string): string;
  /**
   * Reads, writes, stats and lists files by the real paths `resolve` returns: the worker's
   * own file access, or, for the built-in file tools under ACP, the editor's buffers (the host
   * checks the grants first). The built-in read_file, write_file and edit_file use only this.
   */
  files: FilePort;
  /** Aborted when the user interrupts or the call times out. */
  signal: AbortSignal;
  /** Folder for this workspace's data (full outputs); may be created by the tool. */
  dataDir: string;
  /** Per-conversation state shared by tools across calls (e.g. the task list). */
  state: Record<string, unknown>;
  /**
   * Characters of output the model gets before the harness cuts the middle out (config
   * `tool_output_limit`). Tools that can page (read_file) stop at whole units within it.
   */
  outputLimit?: number;
  /**
   * Starts a process confined by the command sandbox built from the user's grants, in its own
   * process group (`child.kill(signal)` stops all of it), with a clean environment and only
   * stdin, stdout and stderr open. The tool declares `run` (a list names the programs it may
   * start), but its worker never holds Deno's `run` permission: harness starts the process,
   * so `Deno.Command` and `Deno.kill` are refused in tools. Throws `CommandRefused` when
   * command_sandbox is "required" and no sandbox works here.
   */
  spawn(program: string, options?: SpawnOptions): Deno.ChildProcess;
  /** How `ctx.spawn` confines processes. */
  commands: CommandRunner;
  /**
   * Shows output while the tool runs (the terminal keeps the last line on the tool's running
   * line). Optional: only the sandbox worker provides it; calls are cheap and rate-limited.
   */
  progress?(text: string): void;
  /**
   * ripgrep and fd, run by the host in the command sandbox with this tool's read grant
   * (src/sandbox/processes/search_service.ts): given to the built-in grep_search and glob only.
   */
  search?: SearchClient;
  /**
   * The host's jobs (src/jobs/): commands that outlive the call, their output and their end.
   * Given to the built-in run_command (which starts them) and job tools only.
   */
  jobs?: JobControl;
  /**
   * Settings the configuration gives this built-in tool, with a grant of its own
   * (src/sandbox/grants/tool_grants.ts): web_search's engine URL. Given to built-in tools only.
   */
  config?: Readonly<Record<string, string>>;
}

/** What a tool returns: `output` goes to the model, `display` to the terminal. */
export interface ToolOutput {
  output: string;
  display?: string;
  /** Ends the run (task_complete). */
  final?: boolean;
  /**
   * Images to show the model with the output (PNG, JPEG, GIF or WebP bytes; the host checks
   * each and leaves out what the model cannot see).
   */
  images?: { data: Uint8Array; name?: string }[];
  /**
   * Set when the tool cut its own output: how many bytes it had (run_command: all the command
   * printed). The result's note and metadata then give the real size.
   */
  outputBytes?: number;
  /**
   * Set when the tool cut its own output: the bytes it left out, and the file that holds the
   * whole output (or its start, past a cap) when harness saved it among the workspace's saved
   * outputs (run_command's and job_output's job log). The result's metadata says what was cut
   * and names the file; the host names only a file of its own saved outputs.
   */
  cutOutput?: { bytes: number; path?: string };
}

/** A tool definition, the default export of a plugin file. */
export interface ToolDefinition<P extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  risk: RiskLevel;
  parameters: P;
  permissions?: ToolPermissions;
  /** Per-tool timeout in milliseconds (default 120000). */
  timeoutMs?: number;
  run(args: z.infer<P>, ctx: ToolContext): Promise<ToolOutput> | ToolOutput;
  /**
   * For a tool that changes one file: the file a call would write and its whole new text,
   * computed as `run` would compute it but without writing. The approval prompt shows the
   * diff against the file as the sandbox reads it now (the same grants as `run`). Throwing
   * (a path the tool refuses, text not found) means no diff is shown.
   */
  preview?(args: z.infer<P>, ctx: ToolContext): Promise<FilePreview> | FilePreview;
}

/**
 * A failure a tool reports on purpose, with the category the model sees. ("tool_error" is
 * an MCP server's own `isError`, src/mcp/mcp_tools.ts, and "repeated_call" the loop guard's,
 * src/agent/loop_guard.ts; a plugin has the other kinds.)
 */
export class ToolError extends Error {
  constructor(
    readonly type: Exclude<ToolErrorType, "none" | "tool_error" | "repeated_call">,
    message: string,
  ) {
    super(message);
    this.name = "ToolError";
  }
}

/**
 * Declares a tool with type inference for its arguments. Returns the definition unchanged.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "./define_tool.ts";
 * const tool = defineTool({
 *   name: "echo",
 *   description: "Echo text back.",
 *   risk: "safe",
 *   parameters: z.object({ text: z.string().describe("Text to echo") }),
 *   run: ({ text }) => ({ output: text }),
 * });
 * if (tool.name !== "echo") throw new Error();
 * ```
 */
export function defineTool<P extends z.ZodType>(definition: ToolDefinition<P>): ToolDefinition<P> {
  return definition;
}
