// The Approver the agent loop calls before every tool call. It asks the pure policy first;
// a "deny" rule always wins, "allow" runs, and "ask" is settled by session approvals, the run
// mode (--yes allows, -p denies with instructions), or the interactive prompt. "Always"
// answers are saved to the policy file whose rules they must follow and take the same place in
// this session's rules (always_rules.ts), so they decide alike now and after a restart. A rule
// saved anywhere but the project's own file names absolute paths (a relative `x.txt` in the
// user's file would apply in every project), and nothing is ever saved into a project file the
// user has not trusted. The state is explicit: the rules in force and the session's answers
// (session_approvals.ts), passed to each step (settle, asking, applyAnswer, saveAlways).

import type { AgentError } from "../errors.ts";
import type { ApprovalDecision, ApprovalRequest, Approver, CallEditing } from "./approver.ts";
import { compactJson } from "./compact_json.ts";
import { alwaysRule, fileLabel, type PolicyFiles, saveAlwaysRule } from "./always_rules.ts";
import { evaluatePolicy, type LoadedRule, type PolicyDecision, type PolicyRule } from "./policy.ts";
import type { ContentChange } from "./policy_file.ts";
import type {
  EditCheck,
  PromptAnswer,
  PromptEditing,
  Prompter,
  PromptRequest,
} from "./prompt_types.ts";
import { exactCallKey, SessionApprovals } from "./session_approvals.ts";
import { suggestRule } from "./suggest_rule.ts";

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
  /**
   * Why nothing may be approved without asking any more (a command moved a denied or
   * protected entry: FileGate.autoApprovalStop), or undefined. While it says so, every call
   * that is not read-only (risk `safe`) asks, whatever --yes, allow rules, hooks and session
   * approvals say; where nobody can be asked, it is denied with that sentence.
   */
  autoApprovalStopped?(): string | undefined;
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
  const state = approverState(options);
  const self: PolicyApprover = {
    approve: (request, signal) => approve(state, request, signal),
    approveTogether: (requests, signal) => approveTogether(state, self, requests, signal),
    sessionApprovals: () => state.session.lines(),
    rules: () => state.rules,
    resetSession: () => state.session.clear(),
  };
  return self;
}

/** Everything one approver decides with; `rules` and `session` change as the user answers. */
interface ApproverState {
  readonly options: PolicyApproverOptions;
  /** The rules in force, in load order: the loaded ones plus "Always" rules saved since. */
  readonly rules: LoadedRule[];
  /** What the user approved for this session. */
  readonly session: SessionApprovals;
  /** Where "Always" rules may go. */
  readonly files: PolicyFiles;
  /** How the policy matches paths: relative to the workspace, when there is one. */
  readonly match: { workspace?: string };
}

function approverState(options: PolicyApproverOptions): ApproverState {
  const { workspace, projectPolicyFile } = options;
  return {
    options,
    rules: [...options.rules],
    session: new SessionApprovals(),
    files: {
      user: options.userPolicyFile,
      userLabel: options.userPolicyLabel ?? options.userPolicyFile,
      ...(projectPolicyFile === undefined ? {} : { project: projectPolicyFile }),
      ...(workspace === undefined ? {} : { workspace }),
    },
    match: workspace === undefined ? {} : { workspace },
  };
}

/** A call only the user can decide: the prompt, and what each answer changes. */
interface Asking {
  ask: PromptRequest;
  /** Only the low-risk default asked (no rule did): an allowing answer covers the tool. */
  lowDefault: boolean;
  /** The rule "Always" saves; absent when "Always" is not offered. */
  always?: PolicyRule;
  /** The policy file (a path) the "Always" rule goes to. */
  target: string;
  /** The rule "Allow for this session" remembers; absent: the exact call is remembered. */
  suggestion?: PolicyRule;
}

/** What the policy, session approvals and the mode decide; `Asking` when only the user can. */
async function settle(
  state: ApproverState,
  request: ApprovalRequest,
): Promise<{ decided: ApprovalDecision } | Asking> {
  const { options, rules, match } = state;
  const broken = await options.denyAll;
  if (broken !== undefined) return { decided: decision("deny", "policy", { reason: broken }) };
  const policy = evaluatePolicy(request, rules, match);
  if (policy.action === "deny") {
    return {
      decided: decision("deny", "policy", {
        reason: policy.rule?.reason ?? `Denied by the rule ${policy.source}`,
        rule: policy.source,
      }),
    };
  }
  const stopped = request.risk === "safe" ? undefined : options.autoApprovalStopped?.();
  if (stopped !== undefined) {
    if (options.mode === "non_interactive" || !options.prompter) {
      return { decided: decision("deny", "mode", { reason: `${stopped}: ask the user` }) };
    }
    return asking(state, request, { policy, lowDefault: false, suggestion: undefined });
  }
  // A PreToolUse hook's "allow" settles it (deny rules came first); its "ask" passes over
  // the rules and session approvals that would allow the call.
  if (request.hook === "allow") {
    return { decided: decision("allow", "mode", { rule: "PreToolUse hook" }) };
  }
  const hookAsks = request.hook === "ask";
  if (policy.action === "allow" && !hookAsks) {
    return {
      decided: policy.rule
        ? decision("allow", "policy", { rule: policy.source })
        : decision("allow", "mode", { rule: policy.source }),
    };
  }
  const lowDefault = request.risk === "low" && policy.rule === undefined;
  const covered = !hookAsks && state.session.covers(request, { lowDefault, ...match });
  if (covered) return { decided: decision("allow", "user", { rule: covered }) };
  const suggestion = suggestRule(request, match);
  if (options.mode === "yes") return { decided: decision("allow", "mode", { rule: "--yes" }) };
  if (options.mode === "non_interactive" || !options.prompter) {
    return {
      decided: decision("deny", "mode", { reason: needsApproval(request.tool, suggestion) }),
    };
  }
  return asking(state, request, { policy, lowDefault, suggestion });
}

/** The prompt for a call only the user can decide, and what an "Always" answer would save. */
function asking(
  state: ApproverState,
  request: ApprovalRequest,
  found: { policy: PolicyDecision; lowDefault: boolean; suggestion: PolicyRule | undefined },
): Asking {
  const { policy, lowDefault, suggestion } = found;
  const { target, rule: always } = alwaysRule(policy, suggestion, state);
  const ask: PromptRequest = {
    tool: request.tool,
    args: request.args,
    risk: request.risk,
    alwaysFile: fileLabel(state.files, target),
    ...(always ? { alwaysRule: always } : {}),
    ...(request.preview ? { preview: request.preview } : {}),
    ...(request.edit ? { edit: promptEditing(state, request, request.edit) } : {}),
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
 * Settles a call, prompting when only the user can decide; `given` is the answer already
 * given at the prompt for several calls (used only when this call would prompt now).
 */
async function approve(
  state: ApproverState,
  request: ApprovalRequest,
  signal?: AbortSignal,
  given?: PromptAnswer,
): Promise<ApprovalDecision> {
  const settled = await settle(state, request);
  if ("decided" in settled) return settled.decided;
  const answer = given ?? await state.options.prompter!.ask(settled.ask, signal);
  return await applyAnswer(state, request, settled, answer);
}

/** The decision the user's answer makes, remembering it for the session or saving its rule. */
async function applyAnswer(
  state: ApproverState,
  request: ApprovalRequest,
  asked: Asking,
  answer: PromptAnswer,
): Promise<ApprovalDecision> {
  // A changed call is allowed once: no low-risk pass, session approval or rule comes of it.
  const allows = answer.kind !== "deny" && answer.kind !== "abort" && answer.kind !== "edit";
  if (asked.lowDefault && allows) {
    state.session.askedAboutLowRisk(request.tool);
  }
  switch (answer.kind) {
    case "once":
      return decision("allow", "user", {});
    case "session":
      state.session.allowForSession(request, asked.suggestion);
      return decision("allow", "user", { rule: "session approval" });
    case "always":
      return asked.always
        ? await saveAlways(state, asked.always, asked.target)
        : decision("allow", "user", {});
    case "deny":
      return decision("deny", "user", {
        reason: answer.reason
          ? `The user denied this call: ${answer.reason}`
          : "The user denied this call",
      });
    case "edit":
      return await approveEdited(state, request, answer.args);
    case "abort":
      return stoppedAtPrompt();
    default: {
      const never: never = answer;
      throw new Error(`unhandled answer ${JSON.stringify(never)}`);
    }
  }
}

/** The prompt's edit seam: the arguments as sent, the check, the changed call's preview. */
function promptEditing(
  state: ApproverState,
  request: ApprovalRequest,
  edit: CallEditing,
): PromptEditing {
  return {
    sent: edit.sent,
    check: (args) => checkEdited(state, request, args),
    ...(edit.preview ? { preview: (args: unknown) => edit.preview!(args) } : {}),
  };
}

/**
 * Checks the arguments the user changed a call to: the tool's schema, then the rules in
 * force (a deny rule denies the changed call as it would the model's). Allow and ask rules
 * change nothing: the user allows the changed call once, at the prompt.
 */
async function checkEdited(
  state: ApproverState,
  request: ApprovalRequest,
  args: unknown,
): Promise<EditCheck | { ok: false; problem: "denied"; message: string; rule: string }> {
  const validated = await request.edit?.validate(args);
  if (!validated?.ok) {
    const issues = validated?.issues.join("; ") ?? "this call cannot be changed";
    return { ok: false, problem: "invalid", message: issues };
  }
  const policy = evaluatePolicy({ ...request, args: validated.value }, state.rules, state.match);
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
async function approveEdited(
  state: ApproverState,
  request: ApprovalRequest,
  args: unknown,
): Promise<ApprovalDecision> {
  const checked = await checkEdited(state, request, args);
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

/** "Always allow": saves the rule and reports where (or that writing the file failed). */
async function saveAlways(
  state: ApproverState,
  always: PolicyRule,
  target: string,
): Promise<ApprovalDecision> {
  const { index, saved } = await saveAlwaysRule(state.rules, { rule: always, target }, state.files);
  state.options.onRuleSaved?.({
    rule: always,
    file: target,
    ...(saved.ok ? { hashes: saved.value.hashes } : { error: saved.error }),
  });
  return decision("allow", "user", { rule: `${fileLabel(state.files, target)}#${index}` });
}

/**
 * Asks about the calls that would each prompt now (not those a rule, a session approval or
 * the mode settles) in one prompt, when there are two or more and the prompter can. The
 * Approver returned applies the answer only to a call that would still prompt and that has
 * the id, tool and arguments listed, each at most once; a policy deny always wins. Ctrl-C at
 * that prompt denies every call of the turn (policy denials keep their reason) and stops the
 * turn.
 */
async function approveTogether(
  state: ApproverState,
  self: Approver,
  requests: readonly ApprovalRequest[],
  signal?: AbortSignal,
): Promise<Approver> {
  const prompter = state.options.prompter;
  if (state.options.mode !== "interactive" || !prompter?.askMany) return self;
  const asked: { request: ApprovalRequest; prompt: PromptRequest }[] = [];
  for (const request of requests) {
    const settled = await settle(state, request);
    if ("ask" in settled) asked.push({ request, prompt: settled.ask });
  }
  if (asked.length < 2) return self;
  const answer = await prompter.askMany(asked.map((entry) => entry.prompt), signal);
  if (answer.kind === "each") return self;
  if (answer.kind === "abort") return stoppedTurn(state);
  const given: PromptAnswer = answer.kind === "all"
    ? { kind: "once" }
    : answer.reason
    ? { kind: "deny", reason: answer.reason }
    : { kind: "deny" };
  const shown = asked.map(({ request }) => ({ id: request.callId, key: exactCallKey(request) }));
  return {
    approve(request, signal) {
      const key = exactCallKey(request);
      const index = shown.findIndex((s) => s.id === request.callId && s.key === key);
      if (index < 0) return approve(state, request, signal);
      shown.splice(index, 1);
      return approve(state, request, signal, given);
    },
  };
}

/** The Approver after Ctrl-C at a prompt for several calls: each is denied, the turn stops. */
function stoppedTurn(state: ApproverState): Approver {
  return {
    async approve(request) {
      const settled = await settle(state, request);
      if ("decided" in settled && settled.decided.decision === "deny") {
        return { ...settled.decided, abortTurn: true };
      }
      return stoppedAtPrompt();
    },
  };
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

/** The permission_denied text for a call that needs approval in non-interactive mode. */
function needsApproval(tool: string, suggestion: PolicyRule | undefined): string {
  const example = compactJson(suggestion ?? { tool, action: "allow" });
  return `"${tool}" needs approval and there is no one to ask (non-interactive run): ` +
    `the user can add an allow rule such as ${example} to a policy file ` +
    `(~/.config/harness/policies.jsonc, .harness/policies.jsonc or --policies FILE), or rerun ` +
    `with --yes. Do not retry this call; continue without it or say what is needed`;
}
