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
  /** Lets the user change the call at the prompt (an "Edit" answer); absent: no edit. */
  edit?: CallEditing;
}

/** What an edit at the prompt needs from the call: its arguments as sent and the schema. */
export interface CallEditing {
  /** The arguments as the model sent them, before the schema's defaults were filled in. */
  sent: unknown;
  /** Checks edited arguments against the tool's schema: the value (defaults filled) or why not. */
  validate(args: unknown): Promise<{ ok: true; value: unknown } | { ok: false; issues: string[] }>;
  /** What the call would change with these (validated) arguments: a file-changing tool's diff. */
  preview?(args: unknown): Promise<PreviewResult | undefined>;
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
  /**
   * The arguments the user changed the call to at the prompt (validated): an allowed call runs
   * with these, once. Absent when the call is the model's.
   */
  editedArgs?: unknown;
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
