// The command line after the `--version` fast path of main.ts: Deno permission flags, then
// harness's own flags, then the command. Each command's module is imported when it runs.

import { HELP, parseCommand } from "./args.ts";
import { EXIT } from "../app/exit_codes.ts";
import { formatAgentError } from "../errors.ts";
import { parseGrantFlags } from "../cli/grant_flags.ts";
import { tracePhase } from "../platform/startup_trace.ts";
import type * as PromptAhead from "./prompt_ahead.ts";
import type * as RunCommand from "./commands/dispatch_command.ts";
import type { EditorFrontEnd } from "./commands/dispatch_command.ts";
import type * as RunConversation from "./run_conversation.ts";
import type * as DirectCommands from "./commands/direct_commands.ts";

// Not string literals, like main.ts's import of this file: when a module loads, `deno run`
// also prepares every module its literal dynamic imports reach, which cost about 2.5 ms
// before the REPL prompt. `deno compile` embeds them through the "compile" task's --include
// list; tests/release/compile_includes_test.ts keeps that list complete.
const PROMPT_AHEAD_MODULE = "./prompt_ahead.ts";
const RUN_COMMAND_MODULE = "./commands/dispatch_command.ts";
// A run skips cli/commands/dispatch_command.ts: its literal imports of every other command (MCP,
// code index, doctor, ...) made Deno prepare their module graphs first, about 30 ms of a -p run.
const RUN_CONVERSATION_MODULE = "./run_conversation.ts";
// `harness tool` and `policy explain` skip it too: plugin authors run `harness tool` in a loop.
const DIRECT_COMMANDS_MODULE = "./commands/direct_commands.ts";

/** How run_cli reports (the version line, one-line errors), and the editor front end. */
export interface CliIO {
  version: string;
  printError(message: string): void;
  /** `harness acp` (src/acp/run_acp.ts), handed in by main.ts: cli/ never imports acp/. */
  editor?: EditorFrontEnd;
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
    return EXIT.usage;
  }
  const parsed = parseCommand(grants.value.rest);
  if (!parsed.ok) {
    io.printError(formatAgentError(parsed.error));
    return EXIT.usage;
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
      const { startAhead }: typeof PromptAhead = await import(PROMPT_AHEAD_MODULE);
      const ahead = await startAhead(command.flags, grants.value.grants, io);
      if (typeof ahead === "number") return ahead;
      try {
        const { runConversation }: typeof RunConversation = await import(
          RUN_CONVERSATION_MODULE
        );
        return await runConversation(command.flags, grants.value.grants, ahead, ahead);
      } finally {
        ahead.release();
      }
    }
    case "tool":
    case "policy_explain": {
      const direct: typeof DirectCommands = await import(DIRECT_COMMANDS_MODULE);
      tracePhase("direct_commands.ts imported");
      const cwd = Deno.cwd();
      return command.kind === "tool"
        ? await direct.runToolCommand(command, grants.value.grants, cwd, io)
        : await direct.runPolicyExplain(command, grants.value.grants, cwd, io);
    }
    default: {
      const { runCommand }: typeof RunCommand = await import(RUN_COMMAND_MODULE);
      tracePhase("dispatch_command.ts imported");
      return await runCommand(command, grants.value.grants, io);
    }
  }
}
