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
  /** One line of text, or null at end of input. */
  readLine(prompt: string): Promise<string | null>;
  write(text: string): void;
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
}

/** The user's answer. `abort` is Ctrl-C (or end of input): deny and stop the turn. */
export type PromptAnswer =
  | { kind: "once" }
  | { kind: "session" }
  | { kind: "always" }
  | { kind: "deny"; reason?: string }
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
