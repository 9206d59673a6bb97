// harness entry point: parse flags, load settings, wire the parts, start the REPL or a
// one-shot run. Only this file knows every module; it holds wiring, not logic. Heavy
// modules are imported when a command needs them, so `--version` and `--help` stay instant.

import denoJson from "./deno.json" with { type: "json" };
import { type Command, HELP, parseCommand } from "./src/cli/args.ts";
import { formatAgentError } from "./src/errors.ts";
import { parseGrantFlags } from "./src/sandbox/grants.ts";
import { tracePhase } from "./src/cli/startup_trace.ts";

tracePhase("main.ts and its static imports loaded");

const EXIT_USAGE = 2;

function printError(message: string): void {
  const color = Deno.stderr.isTerminal() && !Deno.env.get("NO_COLOR");
  console.error(`${color ? "\x1b[1;31merror\x1b[0m" : "error"}: ${message}`);
}

async function main(argv: string[]): Promise<number> {
  const grants = parseGrantFlags(argv);
  if (!grants.ok) {
    printError(formatAgentError(grants.error));
    return EXIT_USAGE;
  }
  const parsed = parseCommand(grants.value.rest);
  if (!parsed.ok) {
    printError(formatAgentError(parsed.error));
    return EXIT_USAGE;
  }
  const command: Command = parsed.value;
  switch (command.kind) {
    case "help":
      console.log(HELP);
      return 0;
    case "version":
      console.log(`harness ${denoJson.version} (deno ${Deno.version.deno})`);
      return 0;
    default: {
      const { runCommand } = await import("./src/cli/run_command.ts");
      tracePhase("run_command.ts imported");
      return await runCommand(command, grants.value.grants, { printError });
    }
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
