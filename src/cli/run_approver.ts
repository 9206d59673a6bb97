// The approver of one run: the policy files' rules (a cloned project's only once trusted), the
// mode (--yes, -p's non-interactive, the REPL's prompts), rule names checked against the real
// tool list, and "Always" rules saved to the right file.

import { join } from "node:path";
import type { LoadedRule } from "../permissions/policy.ts";
import { formatPolicyFileError, userPolicyFile } from "../permissions/policy_file.ts";
import type { PolicyApprover, PolicyApproverOptions } from "../permissions/policy_approver.ts";
import type { Approver } from "../permissions/approver.ts";
import { createPrompter } from "../permissions/prompter.ts";
import { formatAgentError } from "../errors.ts";
import type { ToolHost } from "../sandbox/tool_host.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import type { Style } from "../ui/style.ts";
import type { TurnInput } from "../ui/repl.ts";
import { keepProjectPolicyTrusted, trustProjectPolicy } from "./project_policy_trust.ts";

export interface RunApproverOptions {
  rules: LoadedRule[];
  cwd: string;
  yes: boolean;
  printMode: boolean;
  turnInput: TurnInput;
  /** Where trust questions are written (stderr). */
  writeErr: (text: string) => void;
  color: boolean;
  style: Style;
  /** What the approval prompt says about run_command's confinement. */
  commandNote(): string;
  host: ToolHost;
  runner: ToolRunner;
}

/** The approver, and the problem with the rules' tool names once the tool list is known. */
export interface RunApprover {
  approver: Approver & { loaded(): Promise<PolicyApprover> };
  /**
   * A misspelt tool or argument name in a rule, as a message, once the tool list is known: -p
   * stops before the first turn; the REPL says so and denies every call until a restart.
   */
  rulesProblem: Promise<string | undefined>;
}

/** Settles the project policy's trust and creates the approver (its engine loads lazily). */
export async function openRunApprover(options: RunApproverOptions): Promise<RunApprover> {
  const { cwd, turnInput, style } = options;
  const trustIo = { write: options.writeErr, readLine: (text: string) => turnInput.readLine(text) };
  const projectPolicy = join(cwd, ".harness", "policies.jsonc");
  const policyTrust = await trustProjectPolicy(options.rules, {
    projectFile: projectPolicy,
    io: trustIo,
    interactive: !options.printMode,
    cwd,
  });
  const rulesProblem = options.host.ready().then(async () => {
    const { checkRuleNames } = await import("../permissions/check_rule_names.ts");
    // Every tool counts, also those not offered under these flags: a rule may name one.
    const problem = checkRuleNames(options.rules, [
      ...options.runner.list(),
      ...options.host.list(),
    ]);
    return problem && formatPolicyFileError(problem);
  });
  const denyAll = rulesProblem.then((problem) => {
    if (problem === undefined) return undefined;
    const message = `${problem}: tool calls are denied until you fix it and restart harness`;
    turnInput.write(`${style.red(message)}\n`);
    return message;
  });
  const approver = lazyApprover({
    rules: policyTrust.rules,
    denyAll,
    mode: options.yes ? "yes" : options.printMode ? "non_interactive" : "interactive",
    prompter: createPrompter({
      io: turnInput,
      color: options.color,
      toolNote: (tool) => tool === "run_command" ? options.commandNote() : undefined,
    }),
    userPolicyFile: userPolicyFile(),
    projectPolicyFile: projectPolicy,
    workspace: cwd,
    onRuleSaved: (event) => {
      if (event.error) {
        turnInput.write(style.yellow(
          `Could not save the rule to "${event.file}": ${
            formatAgentError(event.error)
          }; it applies for this session only\n`,
        ));
        return;
      }
      turnInput.write(style.dim(`Saved rule to ${event.file}\n`));
      void keepProjectPolicyTrusted(event.file, {
        projectFile: projectPolicy,
        trusted: policyTrust.trusted,
        io: trustIo,
        ...event.hashes,
      });
    },
  });
  return { approver, rulesProblem };
}

/**
 * The policy approver, its modules (and their glob matcher, an npm package that costs Deno
 * about 30 ms to load) imported on first use: the REPL preloads it after the prompt shows.
 */
function lazyApprover(
  options: PolicyApproverOptions,
): Approver & { loaded(): Promise<PolicyApprover> } {
  let loading: Promise<PolicyApprover> | undefined;
  const loaded = () =>
    loading ??= import("../permissions/policy_approver.ts").then((module) =>
      module.createPolicyApprover(options)
    );
  return {
    loaded,
    approve: async (request, signal) => await (await loaded()).approve(request, signal),
    approveTogether: async (requests, signal) =>
      await (await loaded()).approveTogether(requests, signal),
  };
}
