// harness entry point. `harness --version` answers here; everything else is run_cli.ts,
// imported only when needed, and `harness acp` is the editor front end it is handed (no front
// end imports another). Both come from harness's bundle (bundle_entry.ts, built into
// .bundle/ by scripts/build_bundle.ts) while it is fresh, else from the source, whose
// specifiers are deliberately not string literals: `deno run` loads every module reachable
// through literal imports (dynamic ones too) before running this file, which would cost
// `--version` about 5 ms. The compiled binary embeds the bundle (see the "compile" task).

import denoJson from "./deno.json" with { type: "json" };
import type { runCli as RunCli } from "./src/cli/run_cli.ts";
import type { runAcp as RunAcp } from "./src/acp/run_acp.ts";
import { freshBundle, startBundleBuild } from "./src/platform/bundle_manifest.ts";
import { tracePhase } from "./src/platform/startup_trace.ts";
import {
  checkDenoPrompt,
  missingHostPermissions,
  readOwnCommandLine,
  restartWithoutPrompt,
} from "./src/cli/no_prompt.ts";
import { EXIT } from "./src/app/exit_codes.ts";
import { terminalSafe } from "./src/platform/terminal_text.ts";

const VERSION = `harness ${denoJson.version} (deno ${Deno.version.deno})`;
const CLI_MODULE = "./src/cli/run_cli.ts";
const ACP_MODULE = "./src/acp/run_acp.ts";

/** Prints an error; its message may quote a server's or a file's words, so it is made safe. */
/** The two front ends, from the bundle or the source. */
interface FrontEnds {
  runCli: typeof RunCli;
  loadRunAcp(): Promise<typeof RunAcp>;
}

/**
 * The front ends: the bundle's while it is fresh (HARNESS_BUNDLE=0 runs the source), else the
 * source's, with a rebuild of the bundle started in the background.
 */
async function frontEnds(): Promise<FrontEnds> {
  if (Deno.env.get("HARNESS_BUNDLE") !== "0") {
    const entry = freshBundle();
    if (entry !== undefined) {
      tracePhase("bundle checked");
      return await import(entry.href) as FrontEnds;
    }
    if (!Deno.build.standalone) startBundleBuild();
  }
  const { runCli }: { runCli: typeof RunCli } = await import(CLI_MODULE);
  return {
    runCli,
    loadRunAcp: async () => ((await import(ACP_MODULE)) as { runAcp: typeof RunAcp }).runAcp,
  };
}

function printError(message: string): void {
  const color = Deno.stderr.isTerminal() && !Deno.env.get("NO_COLOR");
  console.error(`${color ? "\x1b[1;31merror\x1b[0m" : "error"}: ${terminalSafe(message)}`);
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
  const { runCli, loadRunAcp } = await frontEnds();
  return await runCli(argv, {
    version: VERSION,
    printError,
    editor: async (flags, grants, io) => (await loadRunAcp())(flags, grants, io),
  });
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
