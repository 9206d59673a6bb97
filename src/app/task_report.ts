// What a `task` call returns to the model that made it: the task id (to send that subagent a
// follow-up), the subagent's own answer, and under it harness's footer (task_footer.ts): the
// files its checkpoints recorded it changed and the commands it ran, so the parent never
// relies on the child's claim. A child that failed or hit its limit is reported as such, with
// the footer too; an interrupted one ends the parent's turn as any interrupted call does.

import { makeToolResult } from "../messages.ts";
import type { PathStat } from "../checkpoints/diff_stat.ts";
import { describeLeftOut, type LeftOutTool } from "../sandbox/grants/child_scope.ts";
import { formatTaskFooter } from "../tools/builtin/task_footer.ts";
import type { ToolRun } from "../tools/tool_entry.ts";
import type { ChildRun } from "./child_task.ts";

/** The child as its report names it. */
export interface ReportedChild {
  id: string;
  agent: { name: string };
  scope: { leftOut: readonly LeftOutTool[] };
}

/** What harness saw beside the child's own answer. */
export interface ReportFacts {
  /** Lines changed per file, or why they are unknown. */
  changed: readonly PathStat[] | { unknown: string };
  /** How many other subagents ran at the same time. */
  beside: number;
  /** The parent's conversation state, unchanged. */
  state: Record<string, unknown>;
}

/**
 * The `task` call's result.
 *
 * @param child The child.
 * @param ran What its turn came to.
 * @param facts The changes, the concurrency and the parent's state.
 * @returns The run the model reads.
 *
 * @example
 * ```ts
 * import { taskReport } from "./task_report.ts";
 * const run = taskReport(
 *   { id: "1", agent: { name: "general" }, scope: { leftOut: [] } },
 *   { outcome: { stopReason: "answered", text: "Found it in a.ts:3", iterations: 2, toolCalls: [],
 *     usage: { promptTokens: 0, completionTokens: 0 } }, commands: ["rg x"], records: [] },
 *   { changed: [], beside: 0, state: {} },
 * );
 * const data = run.result.data ?? "";
 * if (!data.startsWith("task_id: 1") || !data.includes("$ rg x")) throw new Error(data);
 * ```
 */
export function taskReport(child: ReportedChild, ran: ChildRun, facts: ReportFacts): ToolRun {
  const { outcome } = ran;
  const name = child.agent.name;
  const footer = formatTaskFooter({
    changed: Array.isArray(facts.changed) ? facts.changed : [],
    commands: ran.commands,
    ...(facts.beside > 0 ? { concurrent: facts.beside } : {}),
    ...("unknown" in facts.changed ? { changesUnknown: facts.changed.unknown } : {}),
  });
  const left = describeLeftOut(name, child.scope.leftOut);
  const head = [`task_id: ${child.id} (agent "${name}")`, ...(left ? [`[${left}]`] : [])];
  // What the child ran without is the user's to know too: it may be a typo in the file.
  const display = `${name} (task ${child.id}): ${outcome.stopReason}, ${ran.commands.length} ` +
    `commands${left ? `. ${left}` : ""}`;
  const { state } = facts;
  switch (outcome.stopReason) {
    case "answered":
    case "task_complete":
    case "iteration_limit": {
      const limit = outcome.stopReason === "iteration_limit"
        ? [
          `[the subagent stopped after ${outcome.iterations} model turns (max_iterations): ` +
          `call task with task_id "${child.id}" to let it go on]`,
        ]
        : [];
      const answer = outcome.text.trim() || "(the subagent answered without a report)";
      const data = [...head, "", answer, ...limit, "", footer].join("\n");
      return { result: makeToolResult({ data }), state, display };
    }
    case "interrupted":
      return {
        result: makeToolResult({
          errorType: "cancelled",
          errorMessage: `The subagent "${name}" (task ${child.id}) was interrupted\n${footer}`,
        }),
        state,
        display,
      };
    case "error": {
      const partial = outcome.text.trim() ? `\nIts answer so far: ${outcome.text.trim()}` : "";
      const errorMessage = `The subagent "${name}" (task ${child.id}) failed: ${
        outcome.errorMessage ?? "the model server failed"
      }${partial}\n${footer}`;
      return {
        result: makeToolResult({ errorType: "internal_error", errorMessage }),
        state,
        display,
      };
    }
  }
}
