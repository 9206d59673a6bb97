// The seam between the agent loop and permission decisions. The loop asks an Approver
// before running any call; the policy engine and the interactive prompt implement it.

import type { RiskLevel } from "../tools/define_tool.ts";
import type { PreviewResult } from "../tools/file_change.ts";

export interface ApprovalRequest {
  callId: string;
  tool: string;
  /** Validated arguments. */
  args: unknown;
  risk: RiskLevel;
  /**
   * What the call would change, worked out in its sandbox (a file-changing tool's diff); asked
   * only when the user is asked.
   */
  preview?(): Promise<PreviewResult | undefined>;
}

export interface ApprovalDecision {
  decision: "allow" | "deny";
  /** Who decided: a policy rule, the user at a prompt, or the run mode (--yes, -p, safe risk). */
  by: "policy" | "user" | "mode";
  /** Said to the model when denied. */
  reason?: string;
  /** The rule that decided, e.g. "~/.config/harness/policies.jsonc#3". */
  rule?: string;
  /** The user pressed Ctrl-C at the prompt: deny and abort the turn. */
  abortTurn?: boolean;
}

export interface Approver {
  approve(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalDecision>;
  /**
   * Optional: asks about the calls of one model turn together, before any of them runs, and
   * returns the Approver to pass each of these calls to afterwards (in call order). A call
   * the user was not shown (another id, tool or arguments) is asked about as usual.
   */
  approveTogether?(
    requests: readonly ApprovalRequest[],
    signal?: AbortSignal,
  ): Promise<Approver>;
}
