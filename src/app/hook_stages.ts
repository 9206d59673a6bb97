// The hooks' stages (Claude Code's protocol, src/hooks/): PreToolUse placed before the
// approval of each call (it may block it, change its arguments, or say allow or ask; a call the
// user changed at the prompt is screened again, and may be blocked but not changed),
// PostToolUse after the run, and the turn's UserPromptSubmit, SessionStart and Stop hooks.
// Claude Code's field names are read back into harness's.

import { isAbsolute, join } from "../platform/paths.ts";
import type { HookRunner } from "../hooks/hook_runner.ts";
import type { HookOutcome } from "../hooks/hook_outcome.ts";
import { claudeCodeToolName, harnessArguments } from "../hooks/hook_tool_names.ts";
import { makeToolResult, type ToolResult } from "../messages.ts";
import type { CallExit, CallFlight, CallScope, PlacedStage } from "../agent/call_flight.ts";
import { canonicalArguments } from "../agent/repair_arguments.ts";
import type { TurnContext, TurnStage } from "../agent/turn_stage.ts";
import { FILE_TOOLS, isTool } from "../tools/builtin_tools.ts";

/** What the PreToolUse hooks said of a call that still applies after it ran. */
interface Said {
  context?: string;
  stop?: string;
}

/**
 * The call stages of a run's hooks: PreToolUse before approval, PostToolUse after the run.
 *
 * @param runner The run's hooks.
 * @param workspace The workspace (Claude Code's paths are absolute).
 * @returns The two stages, to place on each call's path.
 */
export function hookCallStages(runner: HookRunner, workspace: string): PlacedStage[] {
  const said = new WeakMap<CallFlight, Said>();
  const pre: PlacedStage = {
    name: "pre_tool_use",
    before: "approve",
    screens: (tool) =>
      runner.has("PreToolUse", [tool, claudeCodeToolName(tool), claudeCodeToolName(tool, "mcp")]),
    run: (flight, scope) =>
      flight.editedFrom === undefined
        ? screen(flight, scope, { runner, workspace, said })
        : rescreen(flight, scope, { runner, workspace, said }),
  };
  const post: PlacedStage = {
    name: "post_tool_use",
    after: "run",
    run: (flight, scope) => afterRun(flight, scope, { runner, workspace, said }),
  };
  return [pre, post];
}

interface HookScope {
  runner: HookRunner;
  workspace: string;
  said: WeakMap<CallFlight, Said>;
}

/** The call as the hooks see it: the arguments it would run with, an MCP tool's server. */
function hookCall(flight: CallFlight) {
  const { call, entry } = flight;
  const server = entry?.info.server;
  return { id: call.id, name: call.name, args: flight.args, ...(server ? { server } : {}) };
}

function warn(scope: { sink: TurnContext["sink"] }, outcome: HookOutcome): void {
  for (const message of outcome.notices) scope.sink({ type: "warning", message });
}

/** PreToolUse before approval, as in Claude Code: block, change the arguments, allow or ask. */
async function screen(flight: CallFlight, scope: CallScope, hooks: HookScope) {
  const outcome = await hooks.runner.preToolUse(hookCall(flight), scope.signal);
  warn(scope, outcome);
  let deny = outcome.block;
  if (deny === undefined && outcome.updatedInput !== undefined) {
    const args = harnessArguments(flight.call.name, outcome.updatedInput, hooks.workspace);
    const again = await flight.entry!.validate(args);
    if (again.ok) flight.args = again.value;
    else {deny = `a PreToolUse hook changed the arguments into invalid ones: ${
        again.error.join("; ")
      }`;}
  }
  if (deny !== undefined) {
    const reason = `Blocked by a PreToolUse hook: ${deny}`;
    scope.sink({
      type: "permission_decided",
      callId: flight.call.id,
      name: flight.call.name,
      decision: { decision: "deny", by: "policy", rule: "PreToolUse hook", reason },
      args: flight.args,
    });
    return blocked(flight, reason, outcome);
  }
  if (outcome.permission !== undefined) flight.approval = outcome.permission;
  hooks.said.set(flight, said(outcome));
  return undefined;
}

/**
 * The call the user changed at the prompt: the hooks screen what runs, so they see it too.
 * They may block it, not change it: the user approved these arguments and no others.
 */
async function rescreen(flight: CallFlight, scope: CallScope, hooks: HookScope) {
  const outcome = await hooks.runner.preToolUse(hookCall(flight), scope.signal);
  warn(scope, outcome);
  const rewritten = outcome.updatedInput !== undefined &&
    canonicalArguments(
        harnessArguments(flight.call.name, outcome.updatedInput, hooks.workspace),
      ) !==
      canonicalArguments(flight.args);
  const deny = outcome.block ??
    (rewritten ? "it changed the arguments the user approved, so the call did not run" : undefined);
  if (deny !== undefined) {
    // The user's allow is already logged: the block is said to them and to the model.
    const reason = `Blocked by a PreToolUse hook: ${deny}`;
    scope.sink({ type: "warning", message: reason });
    return blocked(flight, reason, outcome);
  }
  hooks.said.set(flight, said(outcome));
  return undefined;
}

function said(outcome: HookOutcome): Said {
  return {
    ...(outcome.context === undefined ? {} : { context: outcome.context }),
    ...(outcome.stop === undefined ? {} : { stop: outcome.stop }),
  };
}

/** A blocked call: the model reads why (and the hook's context); a stop ends the turn. */
function blocked(flight: CallFlight, reason: string, outcome: HookOutcome): CallExit {
  if (outcome.stop !== undefined) flight.stop = outcome.stop;
  const denied = makeToolResult({ errorType: "permission_denied", errorMessage: reason });
  return {
    event: { type: "denied", by: "policy", reason },
    result: outcome.context === undefined
      ? denied
      : withHookText(denied, "Hook context", outcome.context),
  };
}

/** After the run: the PreToolUse context, then PostToolUse's feedback and context. */
async function afterRun(flight: CallFlight, scope: CallScope, hooks: HookScope) {
  const before = hooks.said.get(flight);
  let result = flight.result!;
  if (before?.context !== undefined) result = withHookText(result, "Hook context", before.context);
  if (before?.stop !== undefined) flight.stop ??= before.stop;
  if (!scope.signal.aborted) {
    const response = toolResponse(flight, flight.run!.result, hooks.workspace);
    const after = await hooks.runner.postToolUse(hookCall(flight), response, scope.signal);
    warn(scope, after);
    if (after.block !== undefined) result = withHookText(result, "Hook feedback", after.block);
    if (after.context !== undefined) result = withHookText(result, "Hook context", after.context);
    if (after.stop !== undefined) flight.stop ??= after.stop;
  }
  flight.result = result;
  return undefined;
}

/** `tool_response`: harness's result, with Claude Code's `filePath` for a file tool. */
function toolResponse(flight: CallFlight, result: ToolResult, workspace: string): unknown {
  const args = flight.args as Record<string, unknown> | undefined;
  const path = typeof args?.path === "string" ? args.path : undefined;
  if (path === undefined || !isTool(flight.entry?.info, FILE_TOOLS)) return result;
  return { ...result, filePath: isAbsolute(path) ? path : join(workspace, path) };
}

/**
 * The turn's hooks: SessionStart (before the first message, and after /clear, a resume or a
 * compaction), UserPromptSubmit (may stop the message or add context) and Stop (may send the
 * model back to work).
 *
 * @param runner The run's hooks.
 * @returns The turn stage.
 */
export function hookTurnStage(runner: HookRunner): TurnStage {
  const started = async (source: Parameters<HookRunner["sessionStart"]>[0], turn: TurnContext) => {
    const outcome = await runner.sessionStart(source, turn.signal);
    warn(turn, outcome);
    return outcome.context;
  };
  return {
    name: "hooks",
    started,
    async send(message, turn) {
      if (message.text === null) return undefined;
      const outcome = await runner.userPromptSubmit(message.text, turn.signal);
      warn(turn, outcome);
      const block = outcome.block ?? outcome.stop;
      if (block !== undefined) return { refused: `Blocked by a UserPromptSubmit hook: ${block}` };
      if (outcome.context !== undefined) message.notes.push(outcome.context);
      return undefined;
    },
    async answered(answer, active, turn) {
      const outcome = await runner.stop(active, answer, turn.signal);
      warn(turn, outcome);
      // `continue: false` lets the model stop, whatever a block said.
      return outcome.stop === undefined ? outcome.block : undefined;
    },
  };
}

/**
 * Adds a hook's text to a tool result for the model: after the data of a success, after the
 * error message of a failure.
 *
 * @param result The tool's result.
 * @param label What the text is ("Hook feedback", "Hook context").
 * @param text The hook's text.
 * @returns The result with the text.
 *
 * @example
 * ```ts
 * import { withHookText } from "./hook_stages.ts";
 * import { makeToolResult } from "../messages.ts";
 * const r = withHookText(makeToolResult({ data: "ok" }), "Hook feedback", "run the tests");
 * if (r.data !== "ok\n\n[Hook feedback] run the tests") throw new Error(r.data ?? "");
 * ```
 */
export function withHookText(result: ToolResult, label: string, text: string): ToolResult {
  const note = `[${label}] ${text}`;
  if (result.success) {
    const data = result.data ? `${result.data}\n\n${note}` : note;
    return {
      ...result,
      data,
      metadata: { ...result.metadata, data_size_bytes: new TextEncoder().encode(data).length },
    };
  }
  return { ...result, error_message: `${result.error_message ?? ""}\n\n${note}`.trim() };
}
