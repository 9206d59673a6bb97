// Read-only views of the permission policy for people: `harness policy explain TOOL 'JSON'`
// (which rule decides a call and why) and the `/permissions` REPL command (session approvals
// and loaded rules). Pure formatting over policy.ts.

import type { RiskLevel } from "../tools/define_tool.ts";
import { compactJson } from "./compact_json.ts";
import { evaluatePolicy, type LoadedRule, type PolicyDecision, ruleSource } from "./policy.ts";
import { analyzeCommand } from "../shell/split_command.ts";

/** A call to explain. */
export interface ExplainRequest {
  tool: string;
  args: unknown;
  risk: RiskLevel;
}

/**
 * Explains the policy decision for a call: the decision, the rule (file and index) that made
 * it or `default for risk MEDIUM: ask`, and for commands each sub-command with its own
 * decision and rule (the call takes the strictest).
 * In `yes` and `non_interactive` modes an "ask" also says how the run mode settles it.
 *
 * @param request The tool, its arguments and its risk level.
 * @param rules The loaded rules.
 * @param options `mode`: the run mode to describe; `workspace`: absolute root.
 * @returns The decision and the text to print.
 *
 * @example
 * ```ts
 * import { explainDecision } from "./explain.ts";
 * const { decision, text } = explainDecision({ tool: "read_file", args: { path: "a" }, risk: "medium" }, []);
 * if (decision.action !== "ask" || !text.includes("default for risk MEDIUM: ask")) throw new Error(text);
 * ```
 */
export function explainDecision(
  request: ExplainRequest,
  rules: readonly LoadedRule[],
  options: { mode?: "interactive" | "yes" | "non_interactive"; workspace?: string } = {},
): { decision: PolicyDecision; text: string } {
  const decision = evaluatePolicy(
    request,
    rules,
    options.workspace === undefined ? {} : { workspace: options.workspace },
  );
  const lines = [
    `${request.tool} ${compactJson(request.args ?? {})}  risk: ${request.risk.toUpperCase()}`,
  ];
  const command = (request.args as { command?: unknown } | null)?.command;
  if (typeof command === "string" && decision.parts) {
    lines.push("sub-commands (each decided on its own; any deny denies, any ask asks):");
    const width = Math.max(...decision.parts.map((part) => part.command.length));
    for (const part of decision.parts) {
      lines.push(
        `  ${part.command.padEnd(width)}  ${part.action.padEnd(5)}  ${
          part.rule ? describeRule(part.rule) : `no rule (${part.source})`
        }`,
      );
    }
    if (!analyzeCommand(command).complete) {
      lines.push("note: part of this command cannot be analysed, so no allow rule matches it");
    }
  }
  lines.push(`decision: ${decision.action}`);
  lines.push(
    decision.rule
      ? `rule: ${describeRule(decision.rule)}`
      : `rule: none matched (${decision.source})`,
  );
  if (decision.action === "ask" && options.mode === "yes") {
    lines.push("with --yes: allowed without asking");
  } else if (decision.action === "ask" && options.mode === "non_interactive") {
    lines.push("with -p and without --yes: denied (needs approval)");
  }
  return { decision, text: lines.join("\n") };
}

/** `p.jsonc#3 {"tool": "run_command", ...}`: where the rule is and what it says. */
function describeRule(rule: LoadedRule): string {
  return `${ruleSource(rule)} ${compactJson(ruleBody(rule))}${untrustedNote(rule)}`;
}

function ruleBody(rule: LoadedRule): Record<string, unknown> {
  const { file: _file, index: _index, untrusted: _untrusted, positions: _at, ...body } = rule;
  return body;
}

function untrustedNote(rule: LoadedRule): string {
  return rule.untrusted ? " (untrusted file: only makes decisions stricter)" : "";
}

/**
 * Formats the `/permissions` report: the sandbox grants line (given by the caller), session
 * approvals, then the loaded rules in order with their sources.
 *
 * @param options `sandbox`: the grants line; `sessionApprovals`: from the approver; `rules`.
 * @returns The text to print.
 *
 * @example
 * ```ts
 * import { formatPermissionsReport } from "./explain.ts";
 * const text = formatPermissionsReport({ sandbox: "Sandbox: --allow-read", sessionApprovals: [], rules: [] });
 * if (!text.includes("Session approvals: none")) throw new Error(text);
 * ```
 */
export function formatPermissionsReport(options: {
  sandbox: string;
  /** A line saying how calls that would ask are answered (e.g. under --yes); optional. */
  mode?: string;
  sessionApprovals: readonly string[];
  rules: readonly LoadedRule[];
}): string {
  const lines = [options.sandbox];
  if (options.mode) lines.push(options.mode);
  if (options.sessionApprovals.length === 0) lines.push("Session approvals: none");
  else {
    lines.push("Session approvals:");
    for (const approval of options.sessionApprovals) lines.push(`  ${approval}`);
  }
  if (options.rules.length === 0) {
    lines.push(
      options.mode ? "Rules: none" : "Rules: none (safe tools run; everything else asks)",
    );
  } else {
    lines.push("Rules (the last matching rule wins):");
    for (const rule of options.rules) {
      lines.push(`  ${ruleSource(rule)}  ${compactJson(ruleBody(rule))}${untrustedNote(rule)}`);
    }
  }
  return lines.join("\n");
}
