// What the user approved for one session at the permission prompt: rules for "Allow for this
// session", calls no rule can describe (approved exactly as asked), and low-risk tools asked
// about once. The policy approver (policy_approver.ts) consults it before it asks and clears
// it when the REPL starts another session; "Always" answers live in policy files instead.

import type { ApprovalRequest } from "./approver.ts";
import { compactJson } from "./compact_json.ts";
import { type PolicyRule, ruleMatches } from "./policy.ts";

/** Why a remembered answer allows a call (the decision's `rule`). */
export type SessionCover = "session approval" | "session approval (low risk, asked once)";

/**
 * The answers one session remembers.
 *
 * @example
 * ```ts
 * import { SessionApprovals } from "./session_approvals.ts";
 * const approvals = new SessionApprovals();
 * const call = { callId: "1", tool: "ls", args: { path: "." }, risk: "low" as const };
 * approvals.askedAboutLowRisk("ls");
 * if (approvals.covers(call, { lowDefault: true }) === undefined) throw new Error();
 * approvals.clear();
 * if (approvals.covers(call, { lowDefault: true }) !== undefined) throw new Error();
 * ```
 */
export class SessionApprovals {
  /** "Allow for this session" answers, as the rules suggestRule gave. */
  readonly #rules: PolicyRule[] = [];
  /** Calls approved for the session that no rule can describe (e.g. a here-document command). */
  readonly #exact = new Set<string>();
  /** Low-risk tools asked about by default once: later calls of them are allowed. */
  readonly #lowRiskTools = new Set<string>();

  /**
   * Whether a remembered answer allows the call, and which.
   *
   * @param request The call.
   * @param options `lowDefault`: only the low-risk default asks about it (no rule did);
   *   `workspace` relativises absolute paths in its arguments, as the policy does.
   * @returns The cover, or undefined when the user must be asked again.
   */
  covers(
    request: ApprovalRequest,
    options: { lowDefault: boolean; workspace?: string },
  ): SessionCover | undefined {
    const match = options.workspace === undefined ? {} : { workspace: options.workspace };
    if (
      this.#rules.some((rule) => ruleMatches(rule, request, match)) ||
      this.#exact.has(exactCallKey(request))
    ) {
      return "session approval";
    }
    if (options.lowDefault && this.#lowRiskTools.has(request.tool)) {
      return "session approval (low risk, asked once)";
    }
    return undefined;
  }

  /** A low-risk tool that only the default asked about was answered: don't ask about it again. */
  askedAboutLowRisk(tool: string): void {
    this.#lowRiskTools.add(tool);
  }

  /**
   * "Allow for this session": later calls that `rule` matches are allowed; without a rule,
   * only this exact call (tool and arguments).
   */
  allowForSession(request: ApprovalRequest, rule: PolicyRule | undefined): void {
    if (rule) this.#rules.push(rule);
    else this.#exact.add(exactCallKey(request));
  }

  /** One line per remembered answer, e.g. `run_command {"command": "git status *"}`. */
  lines(): string[] {
    return [
      ...this.#rules.map((rule) => `${rule.tool} ${compactJson(rule.match ?? {})}`),
      ...[...this.#exact].map((key) => `${key} (exactly)`),
      ...[...this.#lowRiskTools].map((tool) => `${tool} (low risk: any arguments)`),
    ];
  }

  /** Forgets every answer (a new session starts). */
  clear(): void {
    this.#rules.length = 0;
    this.#exact.clear();
    this.#lowRiskTools.clear();
  }
}

/**
 * A call's tool and arguments as one string: two calls with equal keys ask the same thing.
 *
 * @example
 * ```ts
 * import { exactCallKey } from "./session_approvals.ts";
 * const key = exactCallKey({ callId: "1", tool: "ls", args: { path: "." }, risk: "low" });
 * if (key !== 'ls {"path": "."}') throw new Error(key);
 * ```
 */
export function exactCallKey(request: ApprovalRequest): string {
  return `${request.tool} ${compactJson(request.args ?? {})}`;
}
