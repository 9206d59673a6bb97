// The approval of one workspace: the policy files' rules (a cloned project's only once
// trusted), rule names checked against the real tool list, and approvers for it: the mode
// (--yes, a front end that cannot ask, one that asks through its prompter) and "Always" rules
// saved to the right file.

import { join } from "../platform/paths.ts";
import type { LoadedRule } from "../permissions/policy.ts";
import { formatPolicyFileError, userPolicyFile } from "../permissions/policy_file.ts";
import type { PolicyApprover, PolicyApproverOptions } from "../permissions/policy_approver.ts";
import type { Approver } from "../permissions/approver.ts";
import type { Prompter } from "../permissions/prompt_types.ts";
import { formatAgentError } from "../errors.ts";
import {
  keepProjectPolicyTrusted,
  trustProjectPolicy,
} from "../permissions/project_policy_trust.ts";
import type { FrontEnd } from "./front_end.ts";
import type { RunTools } from "./run_tools.ts";

export interface RunApprovalOptions {
  rules: LoadedRule[];
  cwd: string;
  /** --yes: every call the sandbox allows runs, unless a rule denies it. */
  yes: boolean;
  frontEnd: FrontEnd;
  tools: RunTools;
}

/**
 * An approver whose policy engine loads on first use; `loaded()` gives the engine, `prompter`
 * the prompt it asks through (a subagent's calls are asked about there too).
 */
export type LazyApprover = Approver & {
  loaded(): Promise<PolicyApprover>;
  readonly prompter?: Prompter;
};

/** The rules of a workspace, and approvers over them. */
export interface RunApproval {
  /** The rules in force: an untrusted project file's can only make a decision stricter. */
  rules: readonly LoadedRule[];
  /** The workspace's `.harness/policies.jsonc`. */
  projectPolicyFile: string;
  /**
   * A misspelt tool or argument name in a rule, as a message, once the tool list is known: -p
   * and ACP stop before the first turn; the REPL says so and denies every call until a restart.
   */
  rulesProblem: Promise<string | undefined>;
  /**
   * An approver that asks through `prompter`; without one, what the rules leave to the user is
   * settled as -p settles it (denied, unless --yes). `yes: false` asks even under --yes (a
   * subagent whose agent file asks for approvals); it never allows more than the run.
   */
  approver(prompter?: Prompter, options?: { yes?: boolean }): LazyApprover;
}

/** Settles the project policy's trust and checks the rules' names once the tools are known. */
export async function openRunApproval(options: RunApprovalOptions): Promise<RunApproval> {
  const { cwd, frontEnd, tools } = options;
  const projectPolicyFile = join(cwd, ".harness", "policies.jsonc");
  // The policy file's question is answered with a line (the plugins' with one key).
  const io = { write: frontEnd.io.write, readLine: frontEnd.io.readLine };
  const policyTrust = await trustProjectPolicy(options.rules, {
    projectFile: projectPolicyFile,
    io,
    interactive: frontEnd.interactive,
    cwd,
  });
  const rulesProblem = tools.host.ready().then(async () => {
    if (options.rules.length === 0) return undefined; // no rule to misspell: nothing to load
    const { checkRuleNames } = await import("../permissions/check_rule_names.ts");
    // Every tool counts, also those not offered under these flags: a rule may name one.
    const known = tools.set.entries().map((entry) => entry.info);
    const problem = checkRuleNames(options.rules, [...known, ...tools.host.list()]);
    return problem && formatPolicyFileError(problem);
  });
  const denyAll = rulesProblem.then((problem) => {
    if (problem === undefined) return undefined;
    const message = `${problem}: tool calls are denied until you fix it and restart harness`;
    frontEnd.approvalNote(message, "error");
    return message;
  });
  const onRuleSaved: PolicyApproverOptions["onRuleSaved"] = (event) => {
    if (event.error) {
      frontEnd.approvalNote(
        `Could not save the rule to "${event.file}": ${
          formatAgentError(event.error)
        }; it applies for this session only`,
        "warning",
      );
      return;
    }
    frontEnd.approvalNote(`Saved rule to ${event.file}`, "note");
    void keepProjectPolicyTrusted(event.file, {
      projectFile: projectPolicyFile,
      trusted: policyTrust.trusted,
      io,
      ...event.hashes,
    });
  };
  return {
    rules: policyTrust.rules,
    projectPolicyFile,
    rulesProblem,
    approver: (prompter, asked = {}) =>
      lazyApprover({
        rules: policyTrust.rules,
        denyAll,
        mode: options.yes && asked.yes !== false
          ? "yes"
          : prompter
          ? "interactive"
          : "non_interactive",
        ...(prompter ? { prompter } : {}),
        userPolicyFile: userPolicyFile(),
        projectPolicyFile,
        workspace: cwd,
        onRuleSaved,
        // A command moved a denied or protected entry: everything asks from then on.
        autoApprovalStopped: () => tools.gate.autoApprovalStop(),
      }),
  };
}

/**
 * The policy approver, its modules (and their glob matcher, an npm package that costs Deno
 * about 30 ms to load) imported on first use: the REPL preloads it after the prompt shows.
 */
function lazyApprover(options: PolicyApproverOptions): LazyApprover {
  let loading: Promise<PolicyApprover> | undefined;
  const loaded = () =>
    loading ??= import("../permissions/policy_approver.ts").then((module) =>
      module.createPolicyApprover(options)
    );
  return {
    loaded,
    ...(options.prompter ? { prompter: options.prompter } : {}),
    approve: async (request, signal) => await (await loaded()).approve(request, signal),
    approveTogether: async (requests, signal) =>
      await (await loaded()).approveTogether(requests, signal),
  };
}
