// harness entry point. `harness --version` answers here; everything else is run_cli.ts,
// imported only when needed. Its specifier is deliberately not a string literal: `deno run`
// loads every module reachable through literal imports (dynamic ones too) before running
// this file, which would cost `--version` about 5 ms. `deno compile` embeds run_cli.ts and
// its modules through `--include src/cli/run_cli.ts` (see the "compile" task).

import denoJson from "./deno.json" with { type: "json" };
import type { runCli as RunCli } from "./src/cli/run_cli.ts";
import {
  checkDenoPrompt,
  missingHostPermissions,
  readOwnCommandLine,
  restartWithoutPrompt,
} from "./src/cli/no_prompt.ts";
import { EXIT } from "./src/app/exit_codes.ts";

const VERSION = `harness ${denoJson.version} (deno ${Deno.version.deno})`;
const CLI_MODULE = "./src/cli/run_cli.ts";

function printError(message: string): void {
  const color = Deno.stderr.isTerminal() && !Deno.env.get("NO_COLOR");
  console.error(`${color ? "\x1b[1;31merror\x1b[0m" : "error"}: ${message}`);
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    console.log(VERSION);
    return EXIT.ok;
  }
  const promptCheck = checkDenoPrompt({
    cmdline: readOwnCommandLine(),
    env: (name) => Deno.env.get(name),
    terminal: Deno.stdin.isTerminal() || Deno.stderr.isTerminal(),
  }, missingHostPermissions());
  if (promptCheck.kind === "missing-permissions") {
    printError(promptCheck.message);
    return EXIT.usage;
  }
  if (promptCheck.kind === "restart") {
    return await restartWithoutPrompt(promptCheck.command, promptCheck.args);
  }
  const { runCli }: { runCli: typeof RunCli } = await import(CLI_MODULE);
  return await runCli(argv, { version: VERSION, printError });
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
