// Release smoke checks that differ by platform: run_command confined by bubblewrap (Linux) or
// sandbox-exec (macOS), or run with the documented unconfined notice (Windows); and a model run
// in-process from the scripted GGUF the tests make, or the documented message where the build
// cannot load node-llama-cpp (compiled binaries).

import { join } from "node:path";
import { writeScriptedGguf } from "../tests/fixtures/make_scripted_gguf.ts";
import {
  askModel,
  callTool,
  exists,
  expect,
  printResult,
  type SmokeCheck,
  type SmokeContext,
} from "./smoke_check.ts";

/** A key harness holds; a command must never see it. */
const SECRET = "smoke-secret-key";

/** The notice harness prints on Windows (src/sandbox/commands/command_sandbox_probe.ts, probeCommandSandbox). */
export const WINDOWS_NOTICE =
  "commands: unconfined, they can do anything your user can: harness has no command sandbox " +
  "on windows: commands run with your user's rights";

/** What harness says when a build cannot load node-llama-cpp (docs: in-process models). */
export const NO_LLAMA_MESSAGE = 'node-llama-cpp is not installed: run "deno task install-llama"';

/** The user's real home folder: outside every temp folder that sandbox-exec lets commands write. */
function realHome(): string {
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  if (home === undefined) throw new Error("neither HOME nor USERPROFILE is set");
  return home;
}

async function confinedCommand(ctx: SmokeContext): Promise<string> {
  const folder = await ctx.folder();
  const outside = await Deno.realPath(
    await Deno.makeTempDir({ dir: realHome(), prefix: ".harness-smoke-" }),
  );
  try {
    const target = join(outside, "escaped.txt");
    const command = `echo inside > inside.txt; echo "key=$HARNESS_API_KEY"; ` +
      `echo escaped > '${target}'; echo finished`;
    const { run, json } = await askModel(
      ctx,
      folder,
      `call run_command ${JSON.stringify({ command })}`,
      {
        args: ["--yes", "--allow-run", "--allow-read=.", "--allow-write=."],
        env: { HARNESS_API_KEY: SECRET },
      },
    );
    expect(run.code === 0, "harness -p calling run_command did not answer", run);
    expect(json.tool_calls[0]?.name === "run_command", "run_command was not called", run);
    const data = String(json.tool_calls[0]?.result.data);
    expect(!run.stderr.includes("unconfined"), "harness says commands run unconfined", run);
    expect(data.includes("finished"), `the command did not run: ${data}`);
    expect(await exists(join(folder.cwd, "inside.txt")), `no write inside: ${data}`);
    expect(!data.includes(SECRET), `the command saw HARNESS_API_KEY: ${data}`);
    expect(!await exists(target), `the command wrote outside the workspace: ${data}`);
    return `wrote in the workspace, not in ${outside}; HARNESS_API_KEY hidden`;
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
}

async function unconfinedNotice(ctx: SmokeContext): Promise<string> {
  const folder = await ctx.folder();
  const command = "echo smoke-windows& echo key=%HARNESS_API_KEY%";
  const { run } = await askModel(ctx, folder, "hello", { args: ["--allow-run"] });
  expect(run.stderr.includes(`warning: ${WINDOWS_NOTICE}`), "no unconfined notice", run);
  const data = await callTool(ctx, folder, "run_command", { command }, {
    args: ["--yes", "--allow-run"],
    env: { HARNESS_API_KEY: SECRET },
  });
  expect(data.includes("smoke-windows"), `the command did not run: ${data}`);
  expect(!data.includes(SECRET), `the command saw HARNESS_API_KEY: ${data}`);
  expect(data.includes(`[warning: ${WINDOWS_NOTICE}]`), `no notice in the result: ${data}`);
  return "ran unconfined with the documented notice";
}

/** The grammar node-llama-cpp builds lists every property in schema order; optional ones null. */
const READ_NOTES = '{"path": "notes.txt", "offset": null, "limit": null}';

async function inProcessModel(ctx: SmokeContext): Promise<string> {
  const folder = await ctx.folder();
  await Deno.writeTextFile(join(folder.cwd, "notes.txt"), "hello\n");
  // The scripted vocabulary spells prompt text a byte at a time: the prompt needs a long context.
  await writeScriptedGguf(join(folder.cwd, "model.gguf"), {
    contextLength: 65536,
    onUser: { toolCall: { name: "read_file", argumentsJson: READ_NOTES } },
    onToolResult: { text: "The notes say hello." },
  });
  const args = [
    "--model-file",
    "model.gguf",
    "--ctx-size",
    "65536",
    "--allow-read=.",
    "-p",
    "read the notes",
    "--yes",
    "--output-format",
    "json",
  ];
  const run = await ctx.harness.run(folder, args, { timeoutMs: 600_000 });
  if (ctx.modelFile === "message") {
    expect(run.code === 2, "expected exit 2 for a build without node-llama-cpp", run);
    expect(run.stderr.includes(NO_LLAMA_MESSAGE), "not the documented message", run);
    return `this build reports: ${NO_LLAMA_MESSAGE}`;
  }
  expect(run.code === 0, "the scripted model did not answer", run);
  const json = printResult(run);
  expect(json.result === "The notes say hello.", "not the scripted answer", run);
  expect(json.tool_calls[0]?.name === "read_file", "the model did not call read_file", run);
  return `answered "${json.result}" after read_file`;
}

/** The platform's checks: the command sandbox (or notice) and the in-process model. */
export function platformChecks(os: typeof Deno.build.os): SmokeCheck[] {
  const sandboxCheck: SmokeCheck = os === "windows"
    ? {
      name: "run_command on Windows: unconfined, with the documented notice",
      run: unconfinedNotice,
    }
    : {
      name: `run_command confined by ${os === "darwin" ? "sandbox-exec" : "bubblewrap"}`,
      run: confinedCommand,
    };
  return [
    sandboxCheck,
    { name: "in-process model (--model-file, scripted GGUF)", run: inProcessModel },
  ];
}
