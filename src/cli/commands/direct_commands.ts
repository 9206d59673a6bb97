// The model-free commands around tools: `harness tool NAME JSON` runs one call in the
// sandbox, `harness policy explain TOOL JSON` shows which rule decides a call. Both open the
// same plugins and policy rules as the REPL, without trust prompts. `harness tool` is the
// user's own call, so rules that would ask do not stop it; deny rules do.

import { readStdinLine } from "../read_stdin_line.ts";
import { join } from "node:path";
import type { Command } from "../args.ts";
import type { RunFlags } from "../../app/run_flags.ts";
import { savedOutputsRoot } from "../../config/folders.ts";
import type { Grants } from "../../sandbox/grants/grants.ts";
import { EXIT } from "../../app/exit_codes.ts";
import { makeToolResult } from "../../messages.ts";
import type { FrontEnd } from "../../app/front_end.ts";
import { openToolsRun, type ToolsRun } from "../../app/open_tools_run.ts";
import { type CommandIO, settingsOrExit } from "../command_io.ts";
import { jsonTerminalSafe, terminalSafe } from "../../platform/terminal_text.ts";
import { tracePhase } from "../../platform/startup_trace.ts";

/**
 * Reads the settings and the command's JSON arguments, then opens the folder's tools and
 * rules as a run does, without a model. On a terminal the user is asked about untrusted
 * project plugins, as in the REPL; a script never is. A failure is printed and its exit code
 * returned.
 */
async function openDirectRun(
  command: { flags: RunFlags; json: string },
  grants: Grants,
  cwd: string,
  io: CommandIO,
): Promise<{ run: ToolsRun; args: unknown } | number> {
  const { flags } = command;
  const settings = await settingsOrExit(flags, io);
  if (typeof settings === "number") return settings;
  tracePhase("settings loaded");
  const args = parseJsonArgument(command.json, io);
  if (args === undefined) return EXIT.usage;
  const stderr = (text: string) => Deno.stderr.writeSync(new TextEncoder().encode(text));
  const frontEnd: FrontEnd = {
    interactive: Deno.stdin.isTerminal(),
    io: { write: stderr, readLine: (prompt) => readStdinLine(prompt) },
    mcpNotice: (line) => stderr(`warning: ${terminalSafe(line)}\n`),
    approvalNote: (text) => stderr(`${text}\n`),
    outputsDir: join(savedOutputsRoot(), "direct"),
    oneCall: true,
  };
  const opened = await openToolsRun({
    settings,
    grants,
    cwd,
    yes: flags.yes,
    ...(flags.policies !== undefined ? { policies: flags.policies } : {}),
  }, frontEnd);
  if (!opened.ok) {
    if (opened.error.message !== undefined) io.printError(opened.error.message);
    return opened.error.exit;
  }
  return { run: opened.value, args };
}

/**
 * The rules of the folder as a run uses them, checked against the tools (a misspelt tool or
 * argument name is an error, printed, and the exit code returned).
 */
async function checkedRules(run: ToolsRun, io: CommandIO): Promise<number | undefined> {
  const problem = await run.workspace.approval.rulesProblem;
  if (problem === undefined) return undefined;
  io.printError(problem);
  return EXIT.usage;
}

function parseJsonArgument(json: string, io: CommandIO): unknown | undefined {
  try {
    return JSON.parse(json);
  } catch (error) {
    io.printError(
      `Invalid JSON arguments '${json}': ${
        (error as Error).message
      }: pass one JSON object, e.g. '{"path": "."}'`,
    );
    return undefined;
  }
}

/**
 * `harness tool NAME JSON`: runs one tool call in the sandbox without a model and prints
 * its result as JSON (exit 0 on success, 1 on a failed result, 2 on bad input).
 */
export async function runToolCommand(
  command: Extract<Command, { kind: "tool" }>,
  grants: Grants,
  cwd: string,
  io: CommandIO,
): Promise<number> {
  const opened = await openDirectRun(command, grants, cwd, io);
  if (typeof opened === "number") return opened;
  const { run, args } = opened;
  const tools = run.workspace.tools.set;
  try {
    await tools.ready(); // the code tools settle whether search_code is offered
    tracePhase("tool list ready");
    const entry = tools.get(command.name);
    if (!entry) {
      io.printError(
        `Unknown tool "${command.name}": available tools are ${
          tools.entries().map((e) => e.info.name).join(", ")
        }`,
      );
      return EXIT.usage;
    }
    const { info } = entry;
    const validated = await entry.validate(args);
    if (!validated.ok) {
      io.printError(`Invalid arguments for "${command.name}": ${validated.error.join("; ")}`);
      return EXIT.usage;
    }
    const broken = await checkedRules(run, io);
    if (broken !== undefined) return broken;
    const { evaluatePolicy } = await import("../../permissions/policy.ts");
    const policy = evaluatePolicy(
      { tool: command.name, args: validated.value, risk: info.risk },
      run.workspace.approval.rules,
      { workspace: cwd },
    );
    if (policy.action === "deny") {
      const reason = policy.rule?.reason ?? `Denied by the rule ${policy.source}`;
      const result = makeToolResult({ errorType: "permission_denied", errorMessage: reason });
      console.log(jsonTerminalSafe(JSON.stringify(result, null, 2)));
      return EXIT.runtime;
    }
    // Ctrl-C, SIGTERM or SIGHUP cancel the call, so run_command stops its whole process group.
    const controller = new AbortController();
    const cancel = () => controller.abort();
    const signals: Deno.Signal[] = Deno.build.os === "windows"
      ? ["SIGINT"]
      : ["SIGINT", "SIGTERM", "SIGHUP"];
    for (const signal of signals) Deno.addSignalListener(signal, cancel);
    try {
      const ran = await entry.run(validated.value, {
        state: {},
        signal: controller.signal,
      });
      tracePhase("tool call answered");
      console.log(jsonTerminalSafe(JSON.stringify(ran.result, null, 2)));
      if (controller.signal.aborted) return EXIT.interrupted;
      return ran.result.success ? EXIT.ok : EXIT.runtime;
    } finally {
      for (const signal of signals) Deno.removeSignalListener(signal, cancel);
    }
  } finally {
    await run.close();
  }
}

/** `harness policy explain TOOL JSON`: prints which rule decides the call and why. */
export async function runPolicyExplain(
  command: Extract<Command, { kind: "policy_explain" }>,
  grants: Grants,
  cwd: string,
  io: CommandIO,
): Promise<number> {
  const opened = await openDirectRun(command, grants, cwd, io);
  if (typeof opened === "number") return opened;
  const { run, args } = opened;
  try {
    const known = run.workspace.tools.set.entries().map((entry) => entry.info);
    const info = known.find((tool) => tool.name === command.tool);
    if (!info) {
      io.printError(
        `Unknown tool "${command.tool}": available tools are ${
          known.map((t) => t.name).join(", ")
        } (/tools in the REPL describes them)`,
      );
      return EXIT.usage;
    }
    const broken = await checkedRules(run, io);
    if (broken !== undefined) return broken;
    const mode = command.flags.yes ? "yes" : "interactive";
    const { explainDecision } = await import("../../permissions/explain.ts");
    const explained = explainDecision(
      { tool: command.tool, args, risk: info.risk },
      run.workspace.approval.rules,
      { mode, workspace: cwd },
    );
    console.log(explained.text);
    return EXIT.ok;
  } finally {
    await run.close();
  }
}
