// Built-in tool run_command: runs a shell command in the workspace and returns its combined
// output and exit code, or starts it in the background as a job (ctx.jobs, src/jobs/). The
// host starts the command in the command sandbox built from the user's grants (bubblewrap on
// Linux, where each command has a PID namespace of its own) with a clean environment, and
// streams its output to disk with bounded memory. A command run without timeout_ms that is
// still running after a while (`command_background_after`, 60 s) moves to the background
// instead of being killed; with timeout_ms it is killed then, with everything it started.
// Needs --allow-run without a list: a command line goes through sh, so a list cannot bound it.

import { z } from "zod";
import {
  defineTool,
  type ToolContext,
  ToolError,
  type ToolOutput,
} from "../src/tools/define_tool.ts";
import { DEFAULT_TOOL_OUTPUT_LIMIT } from "../src/sandbox/workers/truncate_output.ts";
import { type CommandOutcome, type ExitStatus, shortDuration } from "../src/jobs/job_control.ts";

/** Longest timeout a call may ask for. */
const MAX_TIMEOUT_MS = 600_000;
/** Room left in the result for the notes and the exit line. */
const NOTES_ROOM = 600;

export default defineTool({
  name: "run_command",
  description:
    "Run a shell command (sh -c) in the workspace and return its combined stdout and stderr and exit code. Stdin is closed; avoid interactive programs. A command still running after a while moves to the background as a job (see job_output); background: true starts servers and watchers that way at once. The command may be confined: writes, reads and network only as harness's flags grant.",
  risk: "high",
  permissions: { run: true, read: ["."] },
  // Above the largest timeout_ms, so the tool stops its command before the host gives up on
  // the worker.
  timeoutMs: MAX_TIMEOUT_MS + 30_000,
  parameters: z.object({
    command: z.string().min(1).describe(
      "The shell command line, e.g. `deno test -A` or `git status`.",
    ),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe(
      "Kill the command after this many milliseconds (at most 600000). Without it, a command " +
        "still running after 60 s moves to the background.",
    ),
    background: z.boolean().default(false).describe(
      "Start it as a background job and return its id at once (servers, watchers).",
    ),
    cwd: z.string().default(".").describe("Workspace-relative folder to run in."),
  }),
  async run({ command, timeout_ms, background, cwd }, ctx) {
    const dir = workingFolder(cwd, ctx);
    if (ctx.signal.aborted) {
      throw new ToolError("cancelled", "The command was cancelled before it started");
    }
    if (!ctx.commands.runsAnyProgram) {
      throw new ToolError(
        "permission_denied",
        "run_command needs --allow-run, without a list of programs and without --deny-run: a " +
          "command line runs through sh, and the programs it starts (git hooks, npm scripts) can " +
          "start any other, so a list cannot bound it. Ask the user to restart harness with " +
          "--allow-run (commands stay in the command sandbox) and to deny commands with policy " +
          "rules instead",
      );
    }
    if (!ctx.jobs) {
      throw new ToolError("internal_error", "run_command was not given harness's jobs");
    }
    const limit = Math.max(1000, (ctx.outputLimit ?? DEFAULT_TOOL_OUTPUT_LIMIT) - NOTES_ROOM);
    const progress = ctx.progress?.bind(ctx);
    const outcome = await ctx.jobs.run(
      {
        command,
        cwd: dir,
        background,
        limit,
        ...(timeout_ms === undefined ? {} : { timeoutMs: timeout_ms }),
      },
      { signal: ctx.signal, ...(progress ? { onOutput: progress } : {}) },
    );
    return commandOutput(outcome, { command, dir, timeoutMs: timeout_ms }, ctx);
  },
});

/** The absolute folder `cwd` names, which must exist and be a directory. */
function workingFolder(cwd: string, ctx: ToolContext): string {
  const dir = ctx.resolve(cwd);
  try {
    if (!Deno.statSync(dir).isDirectory) {
      throw new ToolError("validation_failed", `cwd "${cwd}" is not a directory`);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError("not_found", `cwd "${cwd}" does not exist`);
    }
    throw error;
  }
  return dir;
}

function exitLine(status: ExitStatus): string {
  return status.signal !== null
    ? `exit_code: ${status.code} (killed by ${status.signal})`
    : `exit_code: ${status.code}`;
}

function bodyOf(text: string): string {
  return text === "" ? "(no output)" : text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** The terminal's line: the command's first line, shortened. */
function shown(command: string): string {
  const firstLine = command.split("\n")[0] ?? "";
  return firstLine.length > 60 ? `${firstLine.slice(0, 57)}...` : firstLine;
}

/**
 * The tool's result for an outcome: output, notes and exit code; a job id; or a `timeout` /
 * `cancelled` ToolError with the output's head and tail when harness stopped the command.
 */
function commandOutput(
  outcome: CommandOutcome,
  call: { command: string; dir: string; timeoutMs: number | undefined },
  ctx: ToolContext,
): ToolOutput {
  switch (outcome.kind) {
    case "refused":
      throw new ToolError(outcome.errorType, outcome.message);
    case "background":
      return backgroundOutput(outcome, call.command);
    case "stopped": {
      // Error messages are not cut by tool_output_limit: the jobs kept this one's output short
      // (STOPPED_OUTPUT_BYTES), its marker naming the log when it was cut.
      const body = bodyOf(outcome.text);
      const exit = exitLine(outcome.status);
      if (outcome.why === "timeout") {
        throw new ToolError(
          "timeout",
          `${body}\n${exit}\n[killed after ${call.timeoutMs} ms (timeout_ms) with everything it started. Raise timeout_ms (at most ${MAX_TIMEOUT_MS}), or leave it out so that a long command moves to the background, or start it with background: true]`,
        );
      }
      throw new ToolError(
        "cancelled",
        `${body}\n${exit}\n[cancelled after ${outcome.elapsedMs} ms; the command and everything it started were stopped]`,
      );
    }
    case "exited": {
      const notes = [...outcome.notes];
      if (outcome.status.code !== 0) {
        const blocked = ctx.commands.explain(outcome.text, call.dir);
        if (blocked !== undefined) notes.push(blocked);
      }
      const warning = ctx.commands.unconfinedWarning();
      if (warning !== undefined) notes.push(warning);
      return {
        output: [bodyOf(outcome.text), ...notes, exitLine(outcome.status)].join("\n"),
        ...cutOf(outcome),
        display: `$ ${
          shown(call.command)
        } -> exit ${outcome.status.code} (${outcome.elapsedMs} ms)`,
      };
    }
    default: {
      const never: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(never)}`);
    }
  }
}

/** The result of a command started in, or moved to, the background. */
function backgroundOutput(
  outcome: Extract<CommandOutcome, { kind: "background" }>,
  command: string,
): ToolOutput {
  const { id } = outcome;
  const how = `job_output("${id}") reads what it prints next, job_kill("${id}") stops it`;
  const output = outcome.movedAfterMs === undefined
    ? `Started job ${id} in the background: ${how}.`
    : `${bodyOf(outcome.text)}\n[still running after ${
      shortDuration(outcome.movedAfterMs)
    }: moved to the background as job ${id}; ${how}]`;
  return { output, display: `$ ${shown(command)} -> job ${id}`, ...cutOf(outcome) };
}

/**
 * What a result says of the output the jobs cut: all the command printed, the bytes left out
 * and the log that holds them (the host puts them in the result's metadata).
 */
function cutOf(
  outcome: { bytes: number; cutBytes: number; path?: string },
): Pick<ToolOutput, "outputBytes" | "cutOutput"> {
  if (outcome.cutBytes === 0) return {};
  return {
    outputBytes: outcome.bytes,
    cutOutput: {
      bytes: outcome.cutBytes,
      ...(outcome.path === undefined ? {} : { path: outcome.path }),
    },
  };
}
