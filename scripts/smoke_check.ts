// What a release smoke check is and the helpers the checks share: a fresh folder per check,
// `harness -p` against the loopback model server with its JSON output parsed, and failures
// that say what harness printed. The checks themselves live in smoke_checks*.ts.

import { join } from "node:path";
import type { HarnessRun, RunOptions, SmokeFolder, SmokeHarness } from "./smoke_harness.ts";
import { SMOKE_MODEL, type SmokeModelServer } from "./smoke_model_server.ts";

/** What the in-process model check expects: a real answer, or the documented message. */
export type ModelFileExpectation = "answer" | "message";

/** What every check gets. */
export interface SmokeContext {
  harness: SmokeHarness;
  server: SmokeModelServer;
  /** A new empty workspace and home folder. */
  folder(): Promise<SmokeFolder>;
  /** The operating system harness runs on. */
  os: typeof Deno.build.os;
  modelFile: ModelFileExpectation;
}

/** One line of the smoke test: a name, and a run that returns a short detail or throws. */
export interface SmokeCheck {
  name: string;
  run(ctx: SmokeContext): Promise<string>;
}

/** A check's failure: the message is the line printed after the check's name. */
export class SmokeFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SmokeFailure";
  }
}

/** The tail of a run's output, on one line, for failure messages. */
export function describeRun(run: HarnessRun): string {
  const tail = (text: string) => text.trim().split("\n").slice(-4).join(" | ").slice(-600);
  const how = run.timedOut ? "timed out" : `exit ${run.code}`;
  return `${how}; stdout: ${tail(run.stdout) || "(empty)"}; stderr: ${
    tail(run.stderr) || "(empty)"
  }`;
}

/**
 * Throws a {@linkcode SmokeFailure} saying `what` and what harness printed unless `condition`.
 *
 * @example
 * ```ts
 * import { expect } from "./smoke_check.ts";
 * const run = { code: 0, stdout: "", stderr: "", ms: 1, timedOut: false };
 * expect(run.code === 0, "exit 0", run);
 * ```
 */
export function expect(condition: boolean, what: string, run?: HarnessRun): asserts condition {
  if (!condition) throw new SmokeFailure(run ? `${what} (${describeRun(run)})` : what);
}

/** The `-p --output-format json` object harness prints on the last line. */
export interface PrintResult {
  result: string;
  stop_reason: string;
  tool_calls: { name: string; result: { success: boolean; data: unknown; error_type: string } }[];
}

/** A `-p` run and the JSON object it printed. */
export interface Asked {
  run: HarnessRun;
  json: PrintResult;
}

/**
 * Runs `harness -p PROMPT --output-format json` against the smoke model server and parses
 * the last line of stdout.
 *
 * @param ctx The smoke context.
 * @param folder Where harness runs.
 * @param prompt The prompt; `call NAME {JSON}` makes the server call that tool.
 * @param options `args`: more flags (grants, --yes); `env`, `timeoutMs` as for a run.
 */
export async function askModel(
  ctx: SmokeContext,
  folder: SmokeFolder,
  prompt: string,
  options: RunOptions & { args?: readonly string[] } = {},
): Promise<Asked> {
  const run = await ctx.harness.run(folder, [
    "-p",
    prompt,
    "--base-url",
    ctx.server.baseUrl,
    "--model",
    SMOKE_MODEL,
    "--output-format",
    "json",
    ...(options.args ?? []),
  ], options);
  return { run, json: printResult(run) };
}

/**
 * The JSON object `-p --output-format json` printed on the last line of stdout.
 *
 * @throws {SmokeFailure} When the last line is not such an object.
 */
export function printResult(run: HarnessRun): PrintResult {
  const last = run.stdout.trim().split("\n").at(-1) ?? "";
  let json: unknown;
  try {
    json = JSON.parse(last);
  } catch {
    throw new SmokeFailure(`-p printed no JSON result (${describeRun(run)})`);
  }
  expect(
    typeof json === "object" && json !== null && "tool_calls" in json &&
      Array.isArray(json.tool_calls),
    "-p printed JSON without tool_calls",
    run,
  );
  return json as PrintResult;
}

/**
 * Asks the model to call `tool` with `args` and returns the tool's output text, after checking
 * that harness answered (exit 0) and ran exactly that one call successfully.
 */
export async function callTool(
  ctx: SmokeContext,
  folder: SmokeFolder,
  tool: string,
  args: Record<string, unknown>,
  options: RunOptions & { args?: readonly string[] } = {},
): Promise<string> {
  const { run, json } = await askModel(
    ctx,
    folder,
    `call ${tool} ${JSON.stringify(args)}`,
    options,
  );
  expect(run.code === 0, `harness -p calling ${tool} did not answer`, run);
  const call = json.tool_calls[0];
  expect(
    json.tool_calls.length === 1 && call?.name === tool,
    `${tool} was not called (model said: ${json.result})`,
    run,
  );
  expect(
    call.result.success,
    `${tool} failed: ${call.result.error_type}: ${String(call.result.data)}`,
    run,
  );
  return String(call.result.data);
}

/** Writes `files` (relative path -> text) under `dir`, creating folders. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, ...path.split("/"));
    await Deno.mkdir(join(full, ".."), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

/** Whether a file or folder exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
