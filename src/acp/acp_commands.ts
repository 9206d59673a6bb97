// The slash commands an editor offers (available_commands_update): /continue, /tasks, /tools,
// /permissions and /context, answered from the session without a model turn (except /continue,
// which runs the loop on). The REPL's own versions live in src/cli/slash_commands.ts.

import type { Conversation } from "../agent/conversation.ts";
import { formatContextReport } from "../agent/context_report.ts";
import { formatPermissionsReport } from "../permissions/explain.ts";
import type { PolicyApprover } from "../permissions/policy_approver.ts";
import { formatGrants, type Grants } from "../sandbox/grants.ts";
import { formatTaskChecklist } from "../tools/builtin/task_checklist.ts";

/** What a prompt asks for: a normal turn, a reply without the model, or a continuation. */
export type SlashOutcome =
  | { kind: "none" }
  | { kind: "reply"; text: string }
  | { kind: "continue" };

/**
 * Answers a prompt that is one of the ACP slash commands; other prompts are normal turns.
 *
 * @param text The prompt text.
 * @param context The session's conversation, approver and the grants.
 * @returns What to do.
 *
 * @example
 * ```ts
 * import { runSlashCommand } from "./acp_commands.ts";
 * const context = { conversation: {} as never, approver: () => ({}) as never, grants: {} as never, yes: false };
 * if ((await runSlashCommand("hello /tasks", context)).kind !== "none") throw new Error();
 * ```
 */
export async function runSlashCommand(
  text: string,
  context: {
    conversation: Conversation;
    /** The session's policy engine (loaded on first use). */
    approver: () => Promise<PolicyApprover>;
    grants: Grants;
    yes: boolean;
  },
): Promise<SlashOutcome> {
  const match = /^\/([a-z_]+)\s*$/.exec(text.trim());
  switch (match?.[1]) {
    case "continue":
      return context.conversation.canContinue()
        ? { kind: "continue" }
        : { kind: "reply", text: "Nothing to continue: the last turn was answered" };
    case "context": {
      const report = context.conversation.contextReport();
      return {
        kind: "reply",
        text: report ? formatContextReport(report) : "The context window is not known",
      };
    }
    case "tasks":
      return { kind: "reply", text: formatTaskChecklist(context.conversation.state) };
    case "tools": {
      const tools = context.conversation.parts.tools;
      await tools.ready?.();
      const lines = tools.list().map((tool) =>
        `${tool.name} (${tool.risk}, ${tool.origin}): ${tool.description.split("\n")[0]}`
      );
      return { kind: "reply", text: lines.join("\n") };
    }
    case "permissions": {
      const approver = await context.approver();
      return {
        kind: "reply",
        text: formatPermissionsReport({
          sandbox: `Sandbox: ${formatGrants(context.grants)}`,
          ...(context.yes
            ? { mode: "Approvals: --yes (calls run unless a rule denies them)" }
            : {}),
          sessionApprovals: approver.sessionApprovals(),
          rules: approver.rules(),
        }),
      };
    }
    default:
      return { kind: "none" };
  }
}
