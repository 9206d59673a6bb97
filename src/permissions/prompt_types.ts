// What a permission prompt asks and what the user answers: the seam between the approver
// (policy_approver.ts), the terminal prompts (prompter.ts, batch_prompt.ts) and the editor's
// (src/acp/acp_prompter.ts).

import type { RiskLevel } from "../tools/define_tool.ts";
import type { PolicyRule } from "./policy.ts";
import type { PreviewResult } from "../tools/file_change.ts";

/** The terminal seam: single keys, one-line answers, output. */
export interface KeyIO {
  /** One key press; `"\x03"` for Ctrl-C, `""` at end of input. */
  readKey(signal?: AbortSignal): Promise<string>;
  /**
   * One line of text, or null at end of input. `initial` is put on the line to be edited where
   * the terminal can (printable text only); elsewhere the user types the whole line.
   */
  readLine(prompt: string, initial?: string): Promise<string | null>;
  write(text: string): void;
  /**
   * Gives the terminal to another program (the user's editor) while `work` runs: cooked mode,
   * no reading. Absent when input is not a terminal.
   */
  releaseTerminal?<T>(work: () => Promise<T>): Promise<T>;
}

/** What the prompt shows. */
export interface PromptRequest {
  tool: string;
  args: unknown;
  risk: RiskLevel;
  /** The rule "Always allow" would save; undefined disables that answer. */
  alwaysRule?: PolicyRule;
  /** Where it would be saved, as shown to the user. */
  alwaysFile: string;
  /** What the call would change (a file-changing tool's diff), worked out when asked. */
  preview?(): Promise<PreviewResult | undefined>;
  /** Offers the "Edit" answer: change the arguments, then allow the changed call once. */
  edit?: PromptEditing;
  /** A subagent asks (its calls go through its parent's prompt): who, and its call's id. */
  asker?: PromptAsker;
}

/** Which subagent a prompt is for. */
export interface PromptAsker {
  /** How the prompt names it: `subagent "explorer" (task 2)`. */
  label: string;
  /** Its call as the editor knows it (the task's id and the child's call id). */
  callId: string;
}

/** What the prompt needs to let the user change a call. */
export interface PromptEditing {
  /** The arguments as the model sent them (before schema defaults). */
  sent: unknown;
  /**
   * Checks changed arguments as the approver will: the tool's schema (the value with defaults
   * filled in), then the policy rules (a deny rule denies the changed call too).
   */
  check(args: unknown): Promise<EditCheck>;
  /** What the changed call would change (checked arguments): a file-changing tool's diff. */
  preview?(args: unknown): Promise<PreviewResult | undefined>;
}

/** The verdict on changed arguments. */
export type EditCheck =
  | { ok: true; value: unknown }
  | { ok: false; problem: "invalid" | "denied"; message: string };

/** The user's answer. `abort` is Ctrl-C (or end of input): deny and stop the turn. */
export type PromptAnswer =
  | { kind: "once" }
  | { kind: "session" }
  | { kind: "always" }
  | { kind: "deny"; reason?: string }
  /** The user changed the call and allowed the changed one, once (`args` passed `check`). */
  | { kind: "edit"; args: unknown }
  | { kind: "abort" };

/** The answer to the prompt about several calls (batch_prompt.ts). */
export type BatchAnswer =
  | { kind: "all" }
  | { kind: "none"; reason?: string }
  | { kind: "each" }
  | { kind: "abort" };

/** Asks the user about one call, or (optionally) about several calls at once. */
export interface Prompter {
  ask(request: PromptRequest, signal?: AbortSignal): Promise<PromptAnswer>;
  /** Approve all, deny all, or one by one (`each`: the caller then uses `ask` per call). */
  askMany?(requests: readonly PromptRequest[], signal?: AbortSignal): Promise<BatchAnswer>;
}
