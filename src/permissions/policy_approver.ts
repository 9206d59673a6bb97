// The Approver the agent loop calls before every tool call. It asks the pure policy first;
// a "deny" rule always wins, "allow" runs, and "ask" is settled by session approvals, the run
// mode (--yes allows, -p denies with instructions), or the interactive prompt. "Always"
// answers are saved to the policy file whose rules they must follow (see alwaysTarget) and
// take the same place in this session's rules, so they decide alike now and after a restart.
// A rule saved anywhere but the project's own file names absolute paths (a relative `x.txt`
// in the user's file would apply in every project), and nothing is ever saved into a project
// file the user has not trusted.

import type { AgentError } from "../errors.ts";
import type { ApprovalDecision, ApprovalRequest, Approver } from "./approver.ts";
import { compactJson } from "./compact_json.ts";
import {
  evaluatePolicy,
  type LoadedRule,
  type PolicyDecision,
  type PolicyRule,
  ruleMatches,
} from "./policy.ts";
import { appendRule, type ContentChange } from "./policy_file.ts";
import type { EditCheck, PromptAnswer, Prompter, PromptRequest } from "./prompt_types.ts";
import { anchorPathPatterns, suggestRule } from "./suggest_rule.ts";

/** How "ask" is settled: prompt, allow (`--yes`), or deny (`-p` without `--yes`). */
export type ApprovalMode = "interactive" | "yes" | "non_interactive";

/** Reported after an "Always allow" answer tried to save its rule. */
export interface RuleSavedEvent {
  rule: PolicyRule;
  file: string;
  /** Set when writing the file failed; the rule still applies for this session. */
  error?: AgentError;
  /** The file's content before and after the rule was saved (trust carries over by them). */
  hashes?: ContentChange;
}

export interface PolicyApproverOptions {
  /** Rules from loadPolicyFiles, in order. */
  rules: readonly LoadedRule[];
  mode: ApprovalMode;
  /** Needed for "interactive"; without one, "ask" is settled as in "non_interactive". */
  prompter?: Prompter;
  /**
   * Where "Always allow" rules go when no rule from a later file asked (normally
   * userPolicyFile()). When the asking rule came from the project file or --policies, the
   * new rule goes to the end of that file instead, or it would load before the rule it
   * answers and lose to it after a restart.
   */
  userPolicyFile: string;
  /** How the user's file is named in prompts and messages (default: userPolicyFile). */
  userPolicyLabel?: string;
  /** Absolute workspace root, to relativise absolute paths in arguments. */
  workspace?: string;
  /**
   * The project's policy file (`<workspace>/.harness/policies.jsonc`): the one file where an
   * "Always" rule keeps workspace-relative paths. Rules saved to any other file get the
   * workspace's absolute path in front of theirs.
   */
  projectPolicyFile?: string;
  onRuleSaved?(event: RuleSavedEvent): void;
  /**
   * Resolves to a message when the rules turned out broken after start (a misspelt tool or
   * argument name, found once the tool list is known): every call is then denied with it.
   */
  denyAll?: Promise<string | undefined>;
}

/** An Approver that also reports what the user approved for this session. */
export interface PolicyApprover extends Approver {
  approveTogether(requests: readonly ApprovalRequest[], signal?: AbortSignal): Promise<Approver>;
  /** Session approvals, one line each, e.g. `run_command {"command": "git status *"}`. */
  sessionApprovals(): string[];
  /** The rules in force: the loaded ones plus "Always" rules saved during this session. */
  rules(): readonly LoadedRule[];
  /**
   * Forgets this session's approvals ("Allow for this session" and low-risk tools asked once)
   * when the REPL starts another session (/clear, /resume). "Always" rules stay: they are in
   * a policy file.
   */
  resetSession(): void;
}

/**
 * Creates the policy-backed Approver.
 *
 * - A matching deny rule denies in every mode (`by: "policy"`, the rule's `reason` if any).
 * - An allow rule, or the `safe` default, allows (`by: "policy"` / `"mode"`).
 * - Otherwise the call would ask. Session approvals answer first: "Allow for this session"
 *   covers later calls that the rule {@link suggestRule} gives would match (per tool and
 *   target scope); a low-risk tool asked about by default is asked once per session, after
 *   which any call of that tool is allowed. Then `yes` allows, `non_interactive` denies with a
 *   result naming the allow rule or `--yes` that would grant it, and `interactive` prompts.
 * - "Always allow" saves the rule at the end of the file of the latest rule that asked (the
 *   user's file when only the risk default asked) and inserts it after that file's rules in
 *   this session's list, the place it takes when the files load again. The prompt names the
 *   file. Outside the project's file, path patterns are made absolute (`/home/me/w/src/**`).
 *   When an `untrusted` rule (of a project file not trusted) asked, "Always" is not offered:
 *   no saved rule could loosen it, and harness never writes into that file.
 * - Ctrl-C at the prompt denies with `abortTurn: true`.
 *
 * @param options Rules, mode, prompter and the user's policy file.
 * @returns The approver.
 *
 * @example
 * ```ts
 * import { createPolicyApprover } from "./policy_approver.ts";
 * const approver = createPolicyApprover({ rules: [], mode: "non_interactive", userPolicyFile: "p" });
 * const d = await approver.approve({ callId: "1", tool: "write_file", args: { path: "a" }, risk: "medium" });
 * if (d.decision !== "deny" || !d.reason?.includes("--yes")) throw new Error();
 * ```
 */
export function createPolicyApprover(options: PolicyApproverOptions): PolicyApprover {
  const rules: LoadedRule[] = [...options.rules];
  const sessionRules: PolicyRule[] = [];
  const lowRiskTools = new Set<string>();
  // Calls approved for the session that no rule can describe (e.g. a here-document command).
  const sessionExact = new Set<string>();
  const exactKey = (r: ApprovalRequest) => `${r.tool} ${compactJson(r.args ?? {})}`;
  const label = options.userPolicyLabel ?? options.userPolicyFile;
  const evalOptions = options.workspace === undefined ? {} : { workspace: options.workspace };
  // Rules saved to the user's file this session carry its label; compare files by path.
  const pathOf = (file: string) => file === label ? options.userPolicyFile : file;
  const labelOf = (file: string) => file === options.userPolicyFile ? label : file;

  /** What the policy, session approvals and the mode decide; `ask` when only the user can. */
  async function settle(request: ApprovalRequest): Promise<
    { decided: ApprovalDecision } | {
      ask: PromptRequest;
      lowDefault: boolean;
      always?: PolicyRule;
      target: string;
      suggestion?: PolicyRule;
    }
  > {
    const broken = await options.denyAll;
    if (broken !== undefined) return { decided: decision("deny", "policy", { reason: broken }) };
    const policy = evaluatePolicy(request, rules, evalOptions);
    if (policy.action === "deny") {
      return {
        decided: decision("deny", "policy", {
          reason: policy.rule?.reason ?? `Denied by the rule ${policy.source}`,
          rule: policy.source,
        }),
      };
    }
    if (policy.action === "allow") {
      return {
        decided: policy.rule
          ? decision("allow", "policy", { rule: policy.source })
          : decision("allow", "mode", { rule: policy.source }),
      };
    }
    const session = sessionRules.find((r) => ruleMatches(r, request, evalOptions));
    if (session || sessionExact.has(exactKey(request))) {
      return { decided: decision("allow", "user", { rule: "session approval" }) };
    }
    const lowDefault = request.risk === "low" && policy.rule === undefined;
    if (lowDefault && lowRiskTools.has(request.tool)) {
      return {
        decided: decision("allow", "user", { rule: "session approval (low risk, asked once)" }),
      };
    }
    const suggestion = suggestRule(request, evalOptions);
    if (options.mode === "yes") return { decided: decision("allow", "mode", { rule: "--yes" }) };
    if (options.mode === "non_interactive" || !options.prompter) {
      return {
        decided: decision("deny", "mode", { reason: needsApproval(request.tool, suggestion) }),
      };
    }
    const target = pathOf(alwaysTarget(policy, rules) ?? options.userPolicyFile);
    const always = suggestion === undefined || askedByUntrusted(policy)
      ? undefined
      : target === options.projectPolicyFile || options.workspace === undefined
      ? suggestion
      : anchorPathPatterns(suggestion, options.workspace);
    const ask: PromptRequest = {
      tool: request.tool,
      args: request.args,
      risk: request.risk,
      alwaysFile: labelOf(target),
      ...(always ? { alwaysRule: always } : {}),
      ...(request.edit
        ? { edit: { sent: request.edit.sent, check: (args) => checkEdited(request, args) } }
        : {}),
    };
    return {
      ask,
      lowDefault,
      target,
      ...(always ? { always } : {}),
      ...(suggestion ? { suggestion } : {}),
    };
  }

  /**
   * Checks the arguments the user changed a call to: the tool's schema, then the rules in
   * force (a deny rule denies the changed call as it would the model's). Allow and ask rules
   * change nothing: the user allows the changed call once, at the prompt.
   */
  async function checkEdited(
    request: ApprovalRequest,
    args: unknown,
  ): Promise<EditCheck | { ok: false; problem: "denied"; message: string; rule: string }> {
    const validated = await request.edit?.validate(args);
    if (!validated?.ok) {
      const issues = validated?.issues.join("; ") ?? "this call cannot be changed";
      return { ok: false, problem: "invalid", message: issues };
    }
    const policy = evaluatePolicy({ ...request, args: validated.value }, rules, evalOptions);
    if (policy.action === "deny") {
      return {
        ok: false,
        problem: "denied",
        message: policy.rule?.reason ?? `Denied by the rule ${policy.source}`,
        rule: policy.source,
      };
    }
    return { ok: true, value: validated.value };
  }

  /**
   * The decision on a call the user changed at the prompt: the changed arguments are checked
   * again (the prompt's check is the user's convenience, this is the gate) and allowed once,
   * with no session approval, saved rule or low-risk pass derived from them.
   */
  async function approveEdited(request: ApprovalRequest, args: unknown) {
    const checked = await checkEdited(request, args);
    if (checked.ok) return decision("allow", "user", { editedArgs: checked.value });
    if (checked.problem === "invalid") {
      return decision("deny", "user", {
        reason:
          `The user changed this call, but the changed arguments are invalid: ${checked.message}`,
        editedArgs: args,
      });
    }
    return decision("deny", "policy", {
      reason:
        `The user changed this call, and a policy rule denies the changed call: ${checked.message}`,
      ...("rule" in checked ? { rule: checked.rule } : {}),
      editedArgs: args,
    });
  }

  /**
   * Settles a call, prompting when only the user can decide; `given` is the answer already
   * given at the prompt for several calls (used only when this call would prompt now).
   */
  async function approve(request: ApprovalRequest, signal?: AbortSignal, given?: PromptAnswer) {
    const settled = await settle(request);
    if ("decided" in settled) return settled.decided;
    const { lowDefault, always, target, suggestion } = settled;
    const answer = given ?? await options.prompter!.ask(settled.ask, signal);
    switch (answer.kind) {
      case "once":
        if (lowDefault) lowRiskTools.add(request.tool);
        return decision("allow", "user", {});
      case "session":
        if (lowDefault) lowRiskTools.add(request.tool);
        if (suggestion) sessionRules.push(suggestion);
        else sessionExact.add(exactKey(request));
        return decision("allow", "user", { rule: "session approval" });
      case "always": {
        if (lowDefault) lowRiskTools.add(request.tool);
        if (!always) return decision("allow", "user", {});
        const saved = await appendRule(target, always);
        const fromTarget = rules.filter((r) => pathOf(r.file) === target);
        const index = saved.ok ? saved.value.index : fromTarget.length + 1;
        const loaded: LoadedRule = { ...always, file: labelOf(target), index };
        // Right after the target file's rules: where it will be when the files load again.
        // The user's file loads first, so with none of its rules yet the place is the start.
        const last = fromTarget.at(-1);
        rules.splice(last ? rules.indexOf(last) + 1 : 0, 0, loaded);
        options.onRuleSaved?.({
          rule: always,
          file: target,
          ...(saved.ok ? { hashes: saved.value.hashes } : { error: saved.error }),
        });
        return decision("allow", "user", { rule: `${labelOf(target)}#${index}` });
      }
      case "deny":
        return decision("deny", "user", {
          reason: answer.reason
            ? `The user denied this call: ${answer.reason}`
            : "The user denied this call",
        });
      case "edit":
        return await approveEdited(request, answer.args);
      case "abort":
        return stoppedAtPrompt();
      default: {
        const never: never = answer;
        throw new Error(`unhandled answer ${JSON.stringify(never)}`);
      }
    }
  }

  const self: PolicyApprover = {
    approve: (request, signal) => approve(request, signal),
    /**
     * Asks about the calls that would each prompt now (not those a rule, a session approval
     * or the mode settles) in one prompt, when there are two or more and the prompter can.
     * The Approver returned applies the answer only to a call that would still prompt and
     * that has the id, tool and arguments listed, each at most once; a policy deny always
     * wins. Ctrl-C at that prompt denies every call of the turn (policy denials keep their
     * reason) and stops the turn.
     */
    async approveTogether(requests, signal) {
      const prompter = options.prompter;
      if (options.mode !== "interactive" || !prompter?.askMany) return self;
      const asking: { request: ApprovalRequest; prompt: PromptRequest }[] = [];
      for (const request of requests) {
        const settled = await settle(request);
        if ("ask" in settled) asking.push({ request, prompt: settled.ask });
      }
      if (asking.length < 2) return self;
      const answer = await prompter.askMany(asking.map((entry) => entry.prompt), signal);
      if (answer.kind === "each") return self;
      if (answer.kind === "abort") {
        return {
          async approve(request) {
            const settled = await settle(request);
            if ("decided" in settled && settled.decided.decision === "deny") {
              return { ...settled.decided, abortTurn: true };
            }
            return stoppedAtPrompt();
          },
        };
      }
      const given: PromptAnswer = answer.kind === "all"
        ? { kind: "once" }
        : answer.reason
        ? { kind: "deny", reason: answer.reason }
        : { kind: "deny" };
      const shown = asking.map(({ request }) => ({ id: request.callId, key: exactKey(request) }));
      return {
        approve(request, signal) {
          const key = exactKey(request);
          const index = shown.findIndex((s) => s.id === request.callId && s.key === key);
          if (index < 0) return approve(request, signal);
          shown.splice(index, 1);
          return approve(request, signal, given);
        },
      };
    },
    sessionApprovals() {
      return [
        ...sessionRules.map((r) => `${r.tool} ${compactJson(r.match ?? {})}`),
        ...[...sessionExact].map((key) => `${key} (exactly)`),
        ...[...lowRiskTools].map((t) => `${t} (low risk: any arguments)`),
      ];
    },
    rules() {
      return rules;
    },
    resetSession() {
      sessionRules.length = 0;
      sessionExact.clear();
      lowRiskTools.clear();
    },
  };
  return self;
}

function decision(
  decision: "allow" | "deny",
  by: ApprovalDecision["by"],
  extra: { reason?: string; rule?: string; abortTurn?: boolean; editedArgs?: unknown },
): ApprovalDecision {
  return { decision, by, ...extra };
}

/** The denial for Ctrl-C (or end of input) at a permission prompt: it stops the turn. */
function stoppedAtPrompt(): ApprovalDecision {
  return decision("deny", "user", {
    reason: "The user pressed Ctrl-C at the permission prompt and stopped the turn",
    abortTurn: true,
  });
}

/**
 * The file an "Always allow" rule must be saved to: that of the latest rule (in load order)
 * that asked about the call or one of its sub-commands. A rule saved anywhere earlier would
 * lose to it ("last match wins"). Undefined when only risk defaults asked.
 */
function alwaysTarget(policy: PolicyDecision, rules: readonly LoadedRule[]): string | undefined {
  const asking = policy.parts
    ? policy.parts.filter((part) => part.action === "ask").map((part) => part.rule)
    : [policy.rule];
  let latest = -1;
  for (const rule of asking) if (rule) latest = Math.max(latest, rules.indexOf(rule));
  return rules[latest]?.file;
}

/** Whether a rule of an untrusted project file made the call ask. */
function askedByUntrusted(policy: PolicyDecision): boolean {
  const asking = policy.parts
    ? policy.parts.filter((part) => part.action === "ask").map((part) => part.rule)
    : [policy.rule];
  return asking.some((rule) => rule?.untrusted === true);
}

/** The permission_denied text for a call that needs approval in non-interactive mode. */
function needsApproval(tool: string, suggestion: PolicyRule | undefined): string {
  const example = compactJson(suggestion ?? { tool, action: "allow" });
  return `"${tool}" needs approval and there is no one to ask (non-interactive run): ` +
    `the user can add an allow rule such as ${example} to a policy file ` +
    `(~/.config/harness/policies.jsonc, .harness/policies.jsonc or --policies FILE), or rerun ` +
    `with --yes. Do not retry this call; continue without it or say what is needed`;
}
