// The command line after the `--version` fast path of main.ts: Deno permission flags, then
// harness's own flags, then the command. Each command's module is imported when it runs.

import { HELP, parseCommand } from "./args.ts";
import { formatAgentError } from "../errors.ts";
import { parseGrantFlags } from "../sandbox/grants.ts";
import { tracePhase } from "./startup_trace.ts";

const EXIT_USAGE = 2;

/** How run_cli reports: the version line, and one-line errors. */
export interface CliIO {
  version: string;
  printError(message: string): void;
}

/**
 * Runs harness with `argv` (without the program name) and returns the exit code.
 *
 * @example
 * ```ts
 * import { runCli } from "./run_cli.ts";
 * const errors: string[] = [];
 * const io = { version: "harness 0", printError: (m: string) => errors.push(m) };
 * if (await runCli(["--no-such-flag"], io) !== 2 || !errors[0]?.includes("--no-such-flag")) {
 *   throw new Error(errors.join("\n"));
 * }
 * ```
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  tracePhase("argument parser loaded");
  const grants = parseGrantFlags(argv);
  if (!grants.ok) {
    io.printError(formatAgentError(grants.error));
    return EXIT_USAGE;
  }
  const parsed = parseCommand(grants.value.rest);
  if (!parsed.ok) {
    io.printError(formatAgentError(parsed.error));
    return EXIT_USAGE;
  }
  const command = parsed.value;
  switch (command.kind) {
    case "help":
      console.log(HELP);
      return 0;
    case "version":
      console.log(io.version);
      return 0;
    case "run": {
      // The REPL's prompt shows before the conversation's modules load (prompt_ahead.ts).
      const { startAhead } = await import("./prompt_ahead.ts");
      const ahead = await startAhead(command.flags, grants.value.grants, io);
      if (typeof ahead === "number") return ahead;
      try {
        const { runCommand } = await import("./run_command.ts");
        tracePhase("run_command.ts imported");
        return await runCommand(command, grants.value.grants, ahead, ahead);
      } finally {
        ahead.release();
      }
    }
    default: {
      const { runCommand } = await import("./run_command.ts");
      tracePhase("run_command.ts imported");
      return await runCommand(command, grants.value.grants, io);
    }
  }
}
