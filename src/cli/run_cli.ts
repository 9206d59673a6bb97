// The command line after the `--version` fast path of main.ts: Deno permission flags, then
// harness's own flags, then the command. Each command's module is imported when it runs.

import { HELP, parseCommand } from "./args.ts";
import { EXIT } from "../app/exit_codes.ts";
import { formatAgentError } from "../errors.ts";
import { parseGrantFlags } from "../cli/grant_flags.ts";
import { tracePhase } from "../platform/startup_trace.ts";
import { loadOwnModule } from "../platform/own_modules.ts";
import type * as PromptAhead from "./prompt_ahead.ts";
import type * as RunCommand from "./commands/dispatch_command.ts";
import type { EditorFrontEnd } from "./commands/dispatch_command.ts";
import type * as RunConversation from "./run_conversation.ts";
import type * as DirectCommands from "./commands/direct_commands.ts";
import type * as OpenProvider from "../app/open_provider.ts";
import type { OpenedProvider } from "../app/provider_openers.ts";
import type { Settings } from "../config/settings.ts";
import type { AgentError, Result } from "../errors.ts";

// Each command's modules load through src/platform/own_modules.ts, like main.ts's import of
// this file: from source, a literal import would make `deno run` prepare every command's
// modules first (about 2.5 ms before the REPL prompt). A run skips dispatch_command.ts: its
// literal imports of every other command (MCP, code index, doctor, ...) made Deno prepare
// their module graphs first, about 30 ms of a -p run. `harness tool` and `policy explain`
// skip it too: plugin authors run `harness tool` in a loop.

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
      // The REPL's prompt shows before the conversation's modules load (prompt_ahead.ts); a
      // -p run has no prompt to show, so they load while its settings do.
      const conversation = command.flags.prompt === undefined ? undefined : loadConversation();
      conversation?.catch(() => {}); // awaited below unless the settings fail
      const { startAhead } = await loadOwnModule<typeof PromptAhead>("src/cli/prompt_ahead.ts");
      const ahead = await startAhead(command.flags, grants.value.grants, io);
      if (typeof ahead === "number") return ahead;
      try {
        const provider = openProviderAhead(ahead.settings);
        const { runConversation } = await (conversation ?? loadConversation());
        const started = provider ? { ...ahead, provider } : ahead;
        return await runConversation(command.flags, grants.value.grants, ahead, started);
      } finally {
        ahead.release();
      }
    }
    case "tool":
    case "policy_explain": {
      const direct = await loadOwnModule<typeof DirectCommands>(
        "src/cli/commands/direct_commands.ts",
      );
      tracePhase("direct_commands.ts imported");
      const cwd = Deno.cwd();
      return command.kind === "tool"
        ? await direct.runToolCommand(command, grants.value.grants, cwd, io)
        : await direct.runPolicyExplain(command, grants.value.grants, cwd, io);
    }
    default: {
      const { runCommand } = await loadOwnModule<typeof RunCommand>(
        "src/cli/commands/dispatch_command.ts",
      );
      tracePhase("dispatch_command.ts imported");
      return await runCommand(command, grants.value.grants, io);
    }
  }
}

function loadConversation(): Promise<typeof RunConversation> {
  return loadOwnModule<typeof RunConversation>("src/cli/run_conversation.ts");
}

/**
 * Starts opening the provider as soon as the settings are known: its module and the server's
 * probes (the window, four GETs) overlap the loading of the conversation's modules, which
 * then takes this provider. A model file is not opened ahead: its load shows progress on the
 * front end, which does not exist yet.
 */
function openProviderAhead(
  settings: Settings,
): Promise<Result<OpenedProvider, AgentError>> | undefined {
  if (settings.modelFile !== undefined) return undefined;
  const opening = loadOwnModule<typeof OpenProvider>("src/app/open_provider.ts")
    .then(({ openProvider }) => openProvider(settings));
  opening.catch(() => {}); // awaited by the run; a failure must not go unhandled meanwhile
  return opening;
}
