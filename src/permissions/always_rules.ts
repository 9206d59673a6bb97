// "Always allow" answers: the policy file the rule goes to (that of the latest rule that asked,
// else the user's), the form it is saved in (absolute paths outside the project's own file;
// none when an untrusted project file asked), and its place among the rules in force once
// saved: where it will be when the files load again. The policy approver uses these steps.

import type { Result } from "../errors.ts";
import type { LoadedRule, PolicyDecision, PolicyRule } from "./policy.ts";
import { appendRule, type ContentChange } from "./policy_file.ts";
import type { PolicyFileError } from "./policy_text.ts";
import { anchorPathPatterns } from "./suggest_rule.ts";

/** The policy files an "Always" rule may go to, and how prompts name the user's. */
export interface PolicyFiles {
  /** The user's policy file (a path). */
  user: string;
  /** How prompts and decisions name the user's file (rules saved to it carry this name). */
  userLabel: string;
  /** The project's policy file: the one file where rules keep workspace-relative paths. */
  project?: string;
  /** Absolute workspace root. */
  workspace?: string;
}

/**
 * Where an "Always" answer to a call that asks would go, and the rule it would save.
 *
 * @param policy The policy's "ask" decision about the call.
 * @param suggestion The rule suggestRule gives for the call (none: "Always" is not offered).
 * @param place The rules in force (in load order) and the policy files.
 * @returns `target`, a path; `rule`, absent when "Always" is not offered.
 *
 * @example
 * ```ts
 * import { alwaysRule } from "./always_rules.ts";
 * const files = { user: "/u/p.jsonc", userLabel: "~/p.jsonc", workspace: "/w" };
 * const asked = { action: "ask" as const, source: "risk default" };
 * const suggestion = { tool: "write_file", action: "allow" as const, match: { path: "src/**" } };
 * const { target, rule } = alwaysRule(asked, suggestion, { rules: [], files });
 * if (target !== "/u/p.jsonc" || rule?.match?.path !== "/w/src/**") throw new Error();
 * ```
 */
export function alwaysRule(
  policy: PolicyDecision,
  suggestion: PolicyRule | undefined,
  place: { rules: readonly LoadedRule[]; files: PolicyFiles },
): { target: string; rule?: PolicyRule } {
  const { rules, files } = place;
  const target = filePath(files, alwaysTarget(policy, rules) ?? files.user);
  if (suggestion === undefined || askedByUntrusted(policy)) return { target };
  if (target === files.project || files.workspace === undefined) {
    return { target, rule: suggestion };
  }
  return { target, rule: anchorPathPatterns(suggestion, files.workspace) };
}

/**
 * Appends an "Always" rule to `target` and inserts it into `rules` right after that file's
 * rules (the user's file loads first, so with none of its rules yet the place is the start).
 * A file that cannot be written still gets the rule for this session.
 *
 * @returns The rule's index in its file, and what writing the file did.
 */
export async function saveAlwaysRule(
  rules: LoadedRule[],
  saving: { rule: PolicyRule; target: string },
  files: PolicyFiles,
): Promise<{
  index: number;
  saved: Result<LoadedRule & { hashes: ContentChange }, PolicyFileError>;
}> {
  const { rule, target } = saving;
  const saved = await appendRule(target, rule);
  const fromTarget = rules.filter((r) => filePath(files, r.file) === target);
  const index = saved.ok ? saved.value.index : fromTarget.length + 1;
  const last = fromTarget.at(-1);
  rules.splice(last ? rules.indexOf(last) + 1 : 0, 0, {
    ...rule,
    file: fileLabel(files, target),
    index,
  });
  return { index, saved };
}

/**
 * How prompts and decisions name a policy file: the user's by its label, others by path.
 *
 * @example
 * ```ts
 * import { fileLabel } from "./always_rules.ts";
 * const files = { user: "/u/p.jsonc", userLabel: "~/p.jsonc" };
 * if (fileLabel(files, "/u/p.jsonc") !== "~/p.jsonc" || fileLabel(files, "/x") !== "/x") {
 *   throw new Error();
 * }
 * ```
 */
export function fileLabel(files: PolicyFiles, file: string): string {
  return file === files.user ? files.userLabel : file;
}

/** A rule saved this session names the user's file by its label: its path, to compare. */
function filePath(files: PolicyFiles, file: string): string {
  return file === files.userLabel ? files.user : file;
}

/** The rules that made the call ask: the rule that decided, or those of its sub-commands. */
function askingRules(policy: PolicyDecision): (LoadedRule | undefined)[] {
  return policy.parts
    ? policy.parts.filter((part) => part.action === "ask").map((part) => part.rule)
    : [policy.rule];
}

/**
 * The file an "Always allow" rule must be saved to: that of the latest rule (in load order)
 * that asked about the call or one of its sub-commands. A rule saved anywhere earlier would
 * lose to it ("last match wins"). Undefined when only risk defaults asked.
 */
function alwaysTarget(policy: PolicyDecision, rules: readonly LoadedRule[]): string | undefined {
  let latest = -1;
  for (const rule of askingRules(policy)) if (rule) latest = Math.max(latest, rules.indexOf(rule));
  return rules[latest]?.file;
}

/** Whether a rule of an untrusted project file made the call ask. */
function askedByUntrusted(policy: PolicyDecision): boolean {
  return askingRules(policy).some((rule) => rule?.untrusted === true);
}
