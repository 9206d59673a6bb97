// What one hook run means, by Claude Code's rules: exit 0 goes on (JSON on stdout is read as
// decisions; plain stdout is context for UserPromptSubmit and SessionStart); exit 2 blocks
// where the event can be blocked, its stderr going to the model (to the user for a prompt);
// any other exit, a crash or a timeout is a hook error the user is told about, and the turn
// goes on. The runner combines the outcomes of all hooks of one event.

import type { HookEvent } from "../config/hooks_config.ts";
import { isRecord } from "../platform/json_values.ts";
import type { HookRun } from "./run_hook_command.ts";
import { stderrExcerpt } from "./hook_text_budget.ts";

/** What the hooks of one event decided. */
export interface HookOutcome {
  /**
   * Blocked: PreToolUse denies the call (said to the model), PostToolUse feeds this back to
   * the model, UserPromptSubmit drops the prompt (said to the user), Stop makes the model go
   * on with it.
   */
  block?: string;
  /** PreToolUse only: skip asking the user ("allow") or ask even when a rule allows. */
  permission?: "allow" | "ask";
  /** PreToolUse only: arguments to use instead (Claude Code's field names). */
  updatedInput?: Record<string, unknown>;
  /** Added for the model (additionalContext, or plain stdout where Claude Code adds it). */
  context?: string;
  /** `continue: false`: stop after this step; the reason is said to the user. */
  stop?: string;
  /** Lines for the user: hook errors, timeouts, `systemMessage`, reasons for allow and ask. */
  notices: string[];
}

/** Events whose exit 0 stdout, when not JSON, is added to the model's context. */
const STDOUT_IS_CONTEXT: readonly HookEvent[] = ["UserPromptSubmit", "SessionStart"];

/**
 * Reads one hook run.
 *
 * @param event The event it ran for.
 * @param run Its exit code and output.
 * @param label How the hook is named to the user (its command, shortened).
 * @returns The outcome.
 *
 * @example
 * ```ts
 * import { readHookRun } from "./hook_outcome.ts";
 * const run = { code: 2, stdout: "", stderr: "Use rg instead of grep\n", timedOut: false };
 * if (readHookRun("PreToolUse", run, "check.py").block !== "Use rg instead of grep") throw new Error();
 * const context = readHookRun("UserPromptSubmit", { ...run, code: 0, stdout: "Today is Monday\n" }, "x");
 * if (context.context !== "Today is Monday" || context.block !== undefined) throw new Error();
 * ```
 */
export function readHookRun(event: HookEvent, run: HookRun, label: string): HookOutcome {
  const outcome: HookOutcome = { notices: [] };
  if (run.startError !== undefined) {
    outcome.notices.push(`${event} hook "${label}" could not start: ${run.startError}`);
    return outcome;
  }
  if (run.timedOut) {
    outcome.notices.push(`${event} hook "${label}" timed out and was stopped`);
    return outcome;
  }
  if (run.code === null) return outcome; // interrupted with the turn
  const stderr = run.stderr.trim();
  if (run.code === 2) {
    const reason = stderr || `blocked by the ${event} hook "${label}"`;
    if (event === "SessionStart") {
      outcome.notices.push(`${event} hook "${label}": ${stderrExcerpt(reason)}`);
    } else {
      outcome.block = reason; // the runner cuts it to its budget
    }
    return outcome;
  }
  if (run.code !== 0) {
    // A few short lines: a failing hook may print megabytes.
    outcome.notices.push(
      `${event} hook "${label}" failed (exit ${run.code})${
        stderr ? `: ${stderrExcerpt(stderr)}` : ""
      }`,
    );
    return outcome;
  }
  const json = parseObject(run.stdout);
  if (json === undefined) {
    const text = run.stdout.trim();
    if (text !== "" && STDOUT_IS_CONTEXT.includes(event)) outcome.context = text;
    return outcome;
  }
  readJson(event, json, outcome);
  return outcome;
}

/** The stdout as a JSON object, when it is one. */
function parseObject(stdout: string): Record<string, unknown> | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** Claude Code's JSON output: the common fields, then the event's own. */
function readJson(event: HookEvent, json: Record<string, unknown>, outcome: HookOutcome): void {
  const message = text(json.systemMessage);
  if (message) outcome.notices.push(message);
  if (json.continue === false) outcome.stop = text(json.stopReason) ?? `stopped by a ${event} hook`;
  const specific = isRecord(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const context = text(specific.additionalContext);
  if (context) outcome.context = context;
  const reason = text(json.reason);
  switch (event) {
    case "PreToolUse": {
      // hookSpecificOutput wins over the older top-level "approve" / "block".
      const legacy = json.decision === "approve"
        ? "allow"
        : json.decision === "block"
        ? "deny"
        : undefined;
      const decision = specific.permissionDecision ?? legacy;
      const why = text(specific.permissionDecisionReason) ?? reason;
      if (decision === "deny") outcome.block = why ?? "denied by a PreToolUse hook";
      if (decision === "allow" || decision === "ask") {
        outcome.permission = decision;
        if (why) outcome.notices.push(why);
      }
      if (isRecord(specific.updatedInput)) outcome.updatedInput = specific.updatedInput;
      break;
    }
    case "PostToolUse":
    case "UserPromptSubmit":
    case "Stop":
      if (json.decision === "block") outcome.block = reason ?? `blocked by a ${event} hook`;
      break;
    case "SessionStart":
      break;
    default: {
      const never: never = event;
      throw new Error(`unknown hook event ${String(never)}`);
    }
  }
}

/**
 * Combines the outcomes of the hooks one event ran (in parallel): a block or a stop from any
 * wins, "ask" wins over "allow", contexts and notices are all kept in order.
 *
 * @param outcomes Each hook's outcome, in config order.
 * @returns One outcome.
 *
 * @example
 * ```ts
 * import { combineOutcomes } from "./hook_outcome.ts";
 * const both = combineOutcomes([{ permission: "allow", notices: [] }, { permission: "ask", notices: ["x"] }]);
 * if (both.permission !== "ask" || both.notices.length !== 1) throw new Error();
 * ```
 */
export function combineOutcomes(outcomes: readonly HookOutcome[]): HookOutcome {
  const out: HookOutcome = { notices: [] };
  const texts = { block: [] as string[], context: [] as string[], stop: [] as string[] };
  for (const outcome of outcomes) {
    for (const key of ["block", "context", "stop"] as const) {
      const value = outcome[key];
      if (value !== undefined) texts[key].push(value);
    }
    if (outcome.permission === "ask" || (outcome.permission === "allow" && !out.permission)) {
      out.permission = outcome.permission;
    }
    if (outcome.updatedInput) out.updatedInput = outcome.updatedInput;
    out.notices.push(...outcome.notices);
  }
  for (const key of ["block", "context", "stop"] as const) {
    if (texts[key].length > 0) out[key] = texts[key].join("\n");
  }
  return out;
}
