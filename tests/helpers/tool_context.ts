// Test helper: a real ToolContext over a fresh temp workspace, disposed with `await using`.
// Tool tests call `runTool(tool, args, ctx)`, which parses the arguments through the tool's
// zod schema first (so defaults apply) and then calls `tool.run` directly, without a worker.

import { join } from "node:path";
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { type ToolContext, type ToolDefinition, ToolError } from "../../src/tools/define_tool.ts";
import type { ToolErrorType } from "../../src/messages.ts";
import { resolveWorkspacePath } from "../../src/tools/workspace_path.ts";
import { localFiles } from "../../src/tools/local_files.ts";
import { type CommandSandboxMode } from "../../src/sandbox/commands/command_sandbox.ts";
import { probeCommandSandbox } from "../../src/sandbox/commands/command_sandbox_probe.ts";
import { CommandLauncher } from "../../src/sandbox/commands/command_sandbox_launcher.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import { JobTable } from "../../src/jobs/job_table.ts";

/** A ToolContext over a temp workspace that removes its folders when disposed. */
export interface TempToolContext extends ToolContext, AsyncDisposable {
  /** Aborts ctx.signal. */
  abort(reason?: unknown): void;
  /** Writes files (relative path -> text) into the workspace, creating folders. */
  write(files: Record<string, string>): Promise<void>;
  /** Reads a workspace file as text. */
  read(path: string): Promise<string>;
  /** A temp folder outside the workspace (for symlink-escape tests). */
  outside: string;
  /** The jobs run_command starts (ctx.jobs), closed on dispose. */
  jobs: JobTable;
  /** This context with other commands (`spawn`, `commands` and jobs started through them). */
  withCommands(commands: CommandLauncher): ToolContext;
}

/**
 * Builds a ToolContext over a new temp workspace.
 *
 * @param files Optional files to create (relative path -> content).
 * @param options `commandSandbox`: how commands started with `ctx.spawn` run (default
 *   "auto": in bubblewrap where it works); `backgroundAfterMs` and `logBytes` for the jobs.
 * @returns The context; dispose it to delete the temp folders.
 */
export async function makeToolContext(
  files: Record<string, string> = {},
  options: { commandSandbox?: CommandSandboxMode; backgroundAfterMs?: number; logBytes?: number } =
    {},
): Promise<TempToolContext> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_tool_test_" }));
  const workspace = join(root, "workspace");
  const outside = join(root, "outside");
  const dataDir = join(root, "data");
  await Deno.mkdir(workspace);
  await Deno.mkdir(outside);
  const controller = new AbortController();
  // Commands run as harness would run them with these flags, in the real command sandbox.
  const grants = parseGrantFlags(["--allow-read=.", "--allow-write=.", "--allow-run"], {
    cwd: workspace,
  });
  if (!grants.ok) throw new Error("the test grants do not parse");
  const sandbox = await probeCommandSandbox(options.commandSandbox ?? "auto", {
    grants: grants.value.grants,
    env: Deno.env.toObject(),
  });
  const commands = new CommandLauncher(sandbox, { grants: grants.value.grants, workspace });
  const tables: JobTable[] = [];
  const jobsOf = (launcher: CommandLauncher) => {
    const table = new JobTable({
      spawn: (request) => Promise.resolve(launcher.spawn(request.program, request)),
      logDir: join(dataDir, "tool_outputs"),
      backgroundAfterMs: options.backgroundAfterMs ?? 60_000,
      ...(options.logBytes === undefined ? {} : { logBytes: options.logBytes }),
    });
    tables.push(table);
    return table;
  };
  const jobs = jobsOf(commands);
  const ctx: TempToolContext = {
    workspace,
    outside,
    dataDir,
    state: {},
    signal: controller.signal,
    resolve: (path) => resolveWorkspacePath(workspace, path),
    files: localFiles,
    spawn: (program, options) => commands.spawn(program, options),
    commands,
    jobs,
    abort: (reason) => controller.abort(reason),
    withCommands(launcher) {
      return {
        ...ctx,
        spawn: (program, spawnOptions) => launcher.spawn(program, spawnOptions),
        commands: launcher,
        jobs: jobsOf(launcher),
      };
    },
    async write(entries) {
      for (const [path, content] of Object.entries(entries)) {
        const abs = join(workspace, path);
        await Deno.mkdir(join(abs, ".."), { recursive: true });
        await Deno.writeTextFile(abs, content);
      }
    },
    read: (path) => Deno.readTextFile(join(workspace, path)),
    async [Symbol.asyncDispose]() {
      for (const table of tables) await table.close();
      await Deno.remove(root, { recursive: true });
    },
  };
  await ctx.write(files);
  return ctx;
}

/**
 * Parses `args` through the tool's schema (defaults apply) and runs it.
 *
 * @param tool A plugin's default export.
 * @param args Raw arguments as the model would send them.
 * @param ctx The context.
 * @returns The tool's output.
 */
export async function runTool<P extends ToolDefinition["parameters"]>(
  tool: ToolDefinition<P>,
  args: unknown,
  ctx: ToolContext,
): Promise<{ output: string; display?: string; final?: boolean }> {
  const parsed = tool.parameters.parse(args);
  return await tool.run(parsed, ctx);
}

/**
 * Runs a tool expecting a ToolError of the given type; returns its message.
 *
 * @param tool A plugin's default export.
 * @param args Raw arguments.
 * @param ctx The context.
 * @param type The expected error type.
 * @returns The error message.
 */
export async function expectToolError<P extends ToolDefinition["parameters"]>(
  tool: ToolDefinition<P>,
  args: unknown,
  ctx: ToolContext,
  type: Exclude<ToolErrorType, "none">,
): Promise<string> {
  try {
    const result = await runTool(tool, args, ctx);
    throw new Error(`Expected a ToolError "${type}", got output: ${result.output}`);
  } catch (error) {
    assert(error instanceof ToolError, `Expected a ToolError, got ${String(error)}`);
    assertEquals(error.type, type, error.message);
    return error.message;
  }
}

/** Asserts the three path rules: absolute, `..` escape and symlink out are validation_failed. */
export async function assertPathRules<P extends ToolDefinition["parameters"]>(
  tool: ToolDefinition<P>,
  ctx: TempToolContext,
  argsFor: (path: string) => Record<string, unknown>,
): Promise<void> {
  await Deno.writeTextFile(join(ctx.outside, "secret.txt"), "secret\n");
  await Deno.symlink(ctx.outside, join(ctx.workspace, "escape"));
  for (
    const path of [join(ctx.outside, "secret.txt"), "../outside/secret.txt", "escape/secret.txt"]
  ) {
    const message = await expectToolError(tool, argsFor(path), ctx, "validation_failed");
    assert(message.includes("workspace") || message.includes("absolute"), message);
  }
  await Deno.remove(join(ctx.workspace, "escape"));
}
