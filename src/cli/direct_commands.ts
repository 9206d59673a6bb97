// The model-free commands around tools: `harness tool NAME JSON` runs one call in the
// sandbox, `harness policy explain TOOL JSON` shows which rule decides a call. Both open the
// same plugins and policy rules as the REPL, without trust prompts. `harness tool` is the
// user's own call, so rules that would ask do not stop it; deny rules do.

import { readStdinLine } from "./read_stdin_line.ts";
import { join } from "node:path";
import type { Command, RunFlags } from "./args.ts";
import { type Settings } from "../config/settings.ts";
import { dataDir, savedOutputsRoot } from "../config/folders.ts";
import type { Grants } from "../sandbox/grants.ts";
import { EXIT } from "./exit_codes.ts";
import { makeToolResult } from "../messages.ts";
import type { LoadedRule } from "../permissions/policy.ts";
import { checkRuleNames, type KnownTool } from "../permissions/check_rule_names.ts";
import {
  formatPolicyFileError,
  loadPolicyFiles,
  policyFileRefs,
} from "../permissions/policy_file.ts";
import { type CommandIO, settingsOrExit } from "./command_io.ts";
import { openTools } from "./open_tools.ts";
import { trustProjectPolicy } from "./project_policy_trust.ts";
import { CodeTools } from "../code_index/code_tools.ts";
import { WithCodeTools } from "../tools/with_code_tools.ts";
import { jsonTerminalSafe } from "../platform/terminal_text.ts";

/** Opens the tools non-interactively (untrusted project plugins are skipped with a warning). */
function openDirectTools(
  settings: Settings,
  grants: Grants,
  cwd: string,
  write: (text: string) => void,
): ReturnType<typeof openTools> {
  return openTools({
    settings,
    grants,
    cwd,
    dataDir: join(savedOutputsRoot(), "direct"),
    // On a terminal the plugin author is asked, as in the REPL; a script never is.
    interactive: Deno.stdin.isTerminal(),
    io: { write, readLine: (prompt) => readStdinLine(prompt) },
    // One call: its worker imports only the plugin it runs.
    workerPerTool: true,
  });
}

/**
 * The policy rules of this folder as a run uses them: loaded, checked against the tools
 * (a misspelt tool or argument name is an error), an untrusted project file's rules made
 * strict-only. Prints the error and returns the exit code on failure.
 */
async function loadRules(
  flags: RunFlags,
  cwd: string,
  tools: readonly KnownTool[],
  io: CommandIO,
): Promise<LoadedRule[] | number> {
  const rules = await loadPolicyFiles(
    policyFileRefs({ cwd, ...(flags.policies ? { extra: flags.policies } : {}) }),
  );
  const problem = rules.ok ? checkRuleNames(rules.value, tools) : rules.error;
  if (problem !== undefined) {
    io.printError(formatPolicyFileError(problem));
    return EXIT.usage;
  }
  if (!rules.ok) return EXIT.usage;
  // As in a run: an untrusted project policy file's allow rules ask (no question here).
  const trusted = await trustProjectPolicy(rules.value, {
    projectFile: join(cwd, ".harness", "policies.jsonc"),
    io: {
      readLine: () => Promise.resolve(null),
      write: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
    },
    interactive: false,
    cwd,
  });
  return trusted.rules;
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
  const settings = await settingsOrExit(command.flags, io);
  if (typeof settings === "number") return settings;
  const args = parseJsonArgument(command.json, io);
  if (args === undefined) return EXIT.usage;
  const opened = await openDirectTools(settings, grants, cwd, (text) => {
    Deno.stderr.writeSync(new TextEncoder().encode(text));
  });
  const host = new WithCodeTools(
    opened.host,
    new CodeTools({
      workspace: cwd,
      grants,
      dataDir: dataDir(),
      // search_code, as in a run; the server is the configured one (none is looked for here).
      embedder: async () =>
        (await import("../providers/embeddings/embedding_setup.ts")).resolveEmbedder({
          ...(settings.embeddingModel ? { embeddingModel: settings.embeddingModel } : {}),
          ...(settings.embeddingBaseUrl ? { embeddingBaseUrl: settings.embeddingBaseUrl } : {}),
          server: {
            ...(settings.discover ? {} : { baseUrl: settings.baseUrl }),
            provider: settings.provider ?? "auto",
          },
          ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        }),
    }),
  );
  const tools = { host };
  await host.ready();
  try {
    const info = tools.host.list().find((tool) => tool.name === command.name);
    if (!info) {
      io.printError(
        `Unknown tool "${command.name}": available tools are ${
          tools.host.list().map((t) => t.name).join(", ")
        }`,
      );
      return EXIT.usage;
    }
    const validated = await tools.host.validate(command.name, args);
    if (!validated.ok) {
      io.printError(`Invalid arguments for "${command.name}": ${validated.error.join("; ")}`);
      return EXIT.usage;
    }
    const rules = await loadRules(command.flags, cwd, tools.host.list(), io);
    if (typeof rules === "number") return rules;
    const { evaluatePolicy } = await import("../permissions/policy.ts");
    const policy = evaluatePolicy(
      { tool: command.name, args: validated.value, risk: info.risk },
      rules,
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
      const run = await tools.host.run(command.name, validated.value, {
        state: {},
        signal: controller.signal,
      });
      console.log(jsonTerminalSafe(JSON.stringify(run.result, null, 2)));
      if (controller.signal.aborted) return EXIT.interrupted;
      return run.result.success ? EXIT.ok : EXIT.runtime;
    } finally {
      for (const signal of signals) Deno.removeSignalListener(signal, cancel);
    }
  } finally {
    await tools.host.close();
  }
}

/** `harness policy explain TOOL JSON`: prints which rule decides the call and why. */
export async function runPolicyExplain(
  command: Extract<Command, { kind: "policy_explain" }>,
  grants: Grants,
  cwd: string,
  io: CommandIO,
): Promise<number> {
  const settings = await settingsOrExit(command.flags, io);
  if (typeof settings === "number") return settings;
  const args = parseJsonArgument(command.json, io);
  if (args === undefined) return EXIT.usage;
  const tools = await openDirectTools(settings, grants, cwd, () => {});
  const known = tools.host.list();
  await tools.host.close();
  const info = known.find((tool) => tool.name === command.tool);
  if (!info) {
    io.printError(
      `Unknown tool "${command.tool}": available tools are ${
        known.map((t) => t.name).join(", ")
      } (/tools in the REPL describes them)`,
    );
    return EXIT.usage;
  }
  const rules = await loadRules(command.flags, cwd, known, io);
  if (typeof rules === "number") return rules;
  const mode = command.flags.yes ? "yes" : "interactive";
  const { explainDecision } = await import("../permissions/explain.ts");
  const explained = explainDecision({ tool: command.tool, args, risk: info.risk }, rules, {
    mode,
    workspace: cwd,
  });
  console.log(explained.text);
  return EXIT.ok;
}
