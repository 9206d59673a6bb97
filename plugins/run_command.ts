// Built-in tool run_command: runs a shell command in the workspace and returns its combined
// output and exit code. The command starts through ctx.spawn, so it runs in the command
// sandbox built from the user's grants (bubblewrap on Linux) with a clean environment, in its
// own process group with stdin closed; on timeout or abort the whole group is killed, so
// pagers, prompts and stray background jobs cannot hang the harness. Needs --allow-run
// without a list: a command line goes through sh, so a list of programs cannot bound it.

import { z } from "zod";
import {
  defineTool,
  type ToolContext,
  ToolError,
  type ToolOutput,
} from "../src/tools/define_tool.ts";
import { COMMAND_OUTPUT_LIMITS, OutputCollector } from "../src/tools/builtin/command_output.ts";
import { truncateMiddle } from "../src/sandbox/truncate_output.ts";
import { CommandRefused } from "../src/sandbox/command_sandbox.ts";

/** Longest timeout a call may ask for. */
const MAX_TIMEOUT_MS = 600_000;
/** How long to wait for output pipes after the shell exits before stopping leftovers. */
const PIPE_GRACE_MS = 300;
/** How long SIGTERM gets before SIGKILL. */
const KILL_GRACE_MS = 1000;
/** Characters of output kept in the message of a timed-out or cancelled command (head and tail). */
const STOPPED_OUTPUT_CHARS = 10_000;

/** Variables that make common tools skip prompts, pagers, colours and editors. */
const NON_INTERACTIVE_ENV: Record<string, string> = {
  CI: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_PAGER: "cat",
  GIT_EDITOR: "true",
  GCM_INTERACTIVE: "never",
  PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  EDITOR: "true",
  VISUAL: "true",
  DEBIAN_FRONTEND: "noninteractive",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
  CLICOLOR: "0",
  TERM: "dumb",
  PIP_NO_INPUT: "1",
  npm_config_yes: "true",
  HOMEBREW_NO_AUTO_UPDATE: "1",
};

/** Waits for `promise` at most `ms` milliseconds; true when it settled in time. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function pump(
  stream: ReadableStream<Uint8Array>,
  out: OutputCollector,
  progress?: (text: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    out.push(chunk);
    progress?.(decoder.decode(chunk, { stream: true }));
  }
}

export default defineTool({
  name: "run_command",
  description:
    "Run a shell command (sh -c) in the workspace and return its combined stdout and stderr and exit code. Stdin is closed; avoid interactive programs. The command may be confined: writes, reads and network only as harness's flags grant.",
  risk: "high",
  permissions: { run: true, read: ["."] },
  // Above the largest timeout_ms, so the tool stops its own process group before the host
  // gives up on the worker.
  timeoutMs: MAX_TIMEOUT_MS + 30_000,
  parameters: z.object({
    command: z.string().min(1).describe(
      "The shell command line, e.g. `deno test -A` or `git status`.",
    ),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).default(120_000).describe(
      "Kill the command after this many milliseconds (at most 600000).",
    ),
    cwd: z.string().default(".").describe("Workspace-relative folder to run in."),
  }),
  async run({ command, timeout_ms, cwd }, ctx) {
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
    const child = startShell(command, dir, ctx);

    const started = performance.now();
    const finished = await superviseCommand(child, timeout_ms, ctx);
    const elapsed = Math.round(performance.now() - started);
    return commandOutput({ ...finished, command, timeoutMs: timeout_ms, elapsed, dir }, ctx);
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

/** Starts the command line under the platform's shell through the command sandbox. */
function startShell(command: string, dir: string, ctx: ToolContext): Deno.ChildProcess {
  const windows = Deno.build.os === "windows";
  try {
    return windows
      ? ctx.spawn("cmd.exe", {
        args: ["/d", "/s", "/c", `"${command}"`],
        windowsRawArguments: true,
        cwd: dir,
        env: NON_INTERACTIVE_ENV,
      })
      : ctx.spawn("sh", {
        // One pipe for both streams keeps their true order; the stderr pipe still catches
        // anything the shell prints before the redirection takes effect.
        args: ["-c", `exec 2>&1; ${command}`],
        cwd: dir,
        env: NON_INTERACTIVE_ENV,
      });
  } catch (error) {
    if (error instanceof CommandRefused) throw new ToolError("permission_denied", error.message);
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError(
        "io_error",
        `Cannot start the shell (${windows ? "cmd.exe" : "sh"}): not found`,
      );
    }
    throw error;
  }
}

/** How a command ended: its status, whether harness stopped it, notes, and its output. */
interface FinishedCommand {
  status: Deno.CommandStatus;
  stoppedBy: "timeout" | "cancelled" | null;
  /** Lines added after the output (leftover processes stopped, sandbox explanations). */
  notes: string[];
  output: OutputCollector;
}

/**
 * Collects the child's output until it exits, stopping its whole process group on timeout or
 * abort, and any leftovers still holding the output pipes once the shell is gone.
 */
async function superviseCommand(
  child: Deno.ChildProcess,
  timeoutMs: number,
  ctx: ToolContext,
): Promise<FinishedCommand> {
  // Up to 32 MiB is kept whole, for the file harness saves when it cuts the result for the
  // model; longer output loses its middle and says so.
  const output = new OutputCollector(COMMAND_OUTPUT_LIMITS);
  // What the command prints shows on its running line in the terminal as it comes.
  const progress = ctx.progress?.bind(ctx);
  const pumps = Promise.all([
    pump(child.stdout, output, progress),
    pump(child.stderr, output, progress),
  ]);
  let stoppedBy: "timeout" | "cancelled" | null = null;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (reason: "timeout" | "cancelled") => {
    if (stoppedBy !== null) return;
    stoppedBy = reason;
    child.kill("SIGTERM"); // the whole process group (ctx.spawn)
    killTimer = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
  };
  const timer = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("cancelled");
  ctx.signal.addEventListener("abort", onAbort, { once: true });

  let status: Deno.CommandStatus;
  const notes: string[] = [];
  try {
    status = await child.status;
    if (!await settlesWithin(pumps, PIPE_GRACE_MS)) {
      // The shell is gone but something it started still holds the output pipes.
      child.kill("SIGKILL");
      notes.push("[background processes still holding the output were stopped]");
      if (!await settlesWithin(pumps, KILL_GRACE_MS)) {
        await Promise.allSettled([child.stdout.cancel(), child.stderr.cancel()]);
      }
    }
    if (stoppedBy !== null) {
      // Make sure grandchildren that ignored SIGTERM are gone before reporting.
      child.kill("SIGKILL");
    }
  } finally {
    clearTimeout(timer);
    clearTimeout(killTimer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
  return { status, stoppedBy, notes, output };
}

/**
 * The tool's result for a finished command: output, notes and exit code, or a `timeout` /
 * `cancelled` ToolError with the output's head and tail when harness stopped it.
 */
function commandOutput(
  run: FinishedCommand & { command: string; timeoutMs: number; elapsed: number; dir: string },
  ctx: ToolContext,
): ToolOutput {
  const { status, notes, elapsed } = run;
  const text = run.output.text();
  const body = text === "" ? "(no output)" : text.endsWith("\n") ? text.slice(0, -1) : text;
  const exit = status.signal !== null && status.signal !== undefined
    ? `exit_code: ${status.code} (killed by ${status.signal})`
    : `exit_code: ${status.code}`;
  const stopped: "timeout" | "cancelled" | null = run.stoppedBy;
  // Error messages are not cut by tool_output_limit: keep them short here.
  const shortBody = truncateMiddle(body, { limit: STOPPED_OUTPUT_CHARS }).text;
  if (stopped === "timeout") {
    throw new ToolError(
      "timeout",
      `${shortBody}\n${exit}\n[killed after ${run.timeoutMs} ms (timeout_ms); the whole process group was stopped. Raise timeout_ms (at most ${MAX_TIMEOUT_MS}) or run long jobs in the background with output to a file]`,
    );
  }
  if (stopped === "cancelled") {
    throw new ToolError(
      "cancelled",
      `${shortBody}\n${exit}\n[cancelled after ${elapsed} ms; the whole process group was stopped]`,
    );
  }
  if (status.code !== 0) {
    const blocked = ctx.commands.explain(text, run.dir);
    if (blocked !== undefined) notes.push(blocked);
  }
  const warning = ctx.commands.unconfinedWarning();
  if (warning !== undefined) notes.push(warning);
  const firstLine = run.command.split("\n")[0] ?? "";
  return {
    output: [body, ...notes, exit].join("\n"),
    ...(run.output.cut ? { outputBytes: run.output.totalBytes } : {}),
    display: `$ ${
      firstLine.length > 60 ? `${firstLine.slice(0, 57)}...` : firstLine
    } -> exit ${status.code} (${elapsed} ms)`,
  };
}
