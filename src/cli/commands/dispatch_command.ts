// Runs a parsed subcommand, each from its module in this folder: `harness tool` and `harness
// policy explain`, `sessions`, `plugin new` and `plugin trust`, `mcp`, `agents`, `skills`,
// `index`, `stats`, `doctor`, and `harness acp` through the editor front end main.ts hands in
// (cli/run_cli.ts starts the REPL and -p runs itself). Each command's module is imported when it
// runs.

import { join } from "node:path";
import type { Command } from "../args.ts";
import type { CommandIO } from "../command_io.ts";
import { formatAgentError } from "../../errors.ts";
import type { Grants } from "../../sandbox/grants/grants.ts";
import { EXIT } from "../../app/exit_codes.ts";
import type { RunFlags } from "../../app/run_flags.ts";

/** The editor front end, `harness acp` (main.ts hands in src/acp/run_acp.ts's runAcp). */
export type EditorFrontEnd = (flags: RunFlags, grants: Grants, io: CommandIO) => Promise<number>;

/**
 * Runs one command; returns the process exit code.
 *
 * @param command The parsed command (not help/version, not a run).
 * @param grants The Deno permission grants from the command line.
 * @param io Error printing, and the editor front end for `harness acp`.
 */
export async function runCommand(
  command: Exclude<Command, { kind: "run" }>,
  grants: Grants,
  io: CommandIO & { editor?: EditorFrontEnd },
): Promise<number> {
  const cwd = Deno.cwd();
  switch (command.kind) {
    case "help":
    case "version":
      return EXIT.ok;
    case "plugin_new": {
      const { writePluginSkeleton } = await import("../../plugin_loader/plugin_skeleton.ts");
      const written = await writePluginSkeleton({ dir: join(cwd, "plugins"), name: command.name });
      if (!written.ok) {
        io.printError(formatAgentError(written.error));
        return EXIT.usage;
      }
      console.log(`Wrote ${written.value.pluginPath}\nWrote ${written.value.typesPath}`);
      // You just made it: it is trusted as written (an edit asks again, or plugin trust).
      const { markTrusted } = await import("../../permissions/project_trust.ts");
      await markTrusted(written.value.pluginPath, {
        io: { write: io.printError, readLine: () => Promise.resolve(null) },
      });
      console.log(`Try it: harness tool ${command.name} '{"who": "Ada"}'`);
      console.log(`After editing it, run "harness plugin trust" (or answer the REPL's question)`);
      return EXIT.ok;
    }
    case "plugin_trust": {
      const { trustPluginFiles } = await import("./plugin_trust_command.ts");
      return await trustPluginFiles(command.paths, cwd, io);
    }
    case "sessions": {
      const { runSessionsCommand } = await import("./sessions_command.ts");
      return await runSessionsCommand(command, io);
    }
    case "policy_explain": {
      const { runPolicyExplain } = await import("./direct_commands.ts");
      return await runPolicyExplain(command, grants, cwd, io);
    }
    case "tool": {
      const { runToolCommand } = await import("./direct_commands.ts");
      return await runToolCommand(command, grants, cwd, io);
    }
    case "acp": {
      if (!io.editor) {
        io.printError('"harness acp" is not available in this build: run harness from main.ts');
        return EXIT.runtime;
      }
      return await io.editor(command.flags, grants, io);
    }
    case "index": {
      const { runIndexCommand } = await import("./index_command.ts");
      return await runIndexCommand(grants, cwd, io);
    }
    case "stats": {
      const { runStatsCommand } = await import("./stats_command.ts");
      return runStatsCommand(command, io);
    }
    case "mcp": {
      const { runMcpCommand } = await import("./mcp_command.ts");
      return await runMcpCommand(command.args, grants, io);
    }
    case "agents":
    case "skills": {
      const { runLibraryCommand } = await import("./agents_command.ts");
      return await runLibraryCommand(command, cwd, io);
    }
    case "doctor": {
      const { runDoctorCommand } = await import("./doctor_command.ts");
      return await runDoctorCommand(command, {
        ...io,
        print: (text) => console.log(text.trimEnd()),
      });
    }
    default: {
      const never: never = command;
      throw new Error(`unhandled command ${JSON.stringify(never)}`);
    }
  }
}
