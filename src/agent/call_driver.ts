// Drives one tool call through its state machine (src/tools/tool_call.ts): parse and
// validate the arguments, ask the approver, run it in the sandbox, and produce exactly one
// ToolResult. Called by the agent loop for each call of a model turn, in order.

import type { ImagePart, ToolCall, ToolResult, Usage } from "../messages.ts";
import { makeToolResult, type ToolErrorType } from "../messages.ts";
import type { ApprovalDecision, Approver } from "../permissions/approver.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import {
  advance,
  requestToolCall,
  type ToolCallEvent,
  type ToolCallState,
} from "../tools/tool_call.ts";
import type { LoopEventSink } from "./loop_events.ts";
import { argumentsTextProblem, argumentsValueProblem } from "../tools/argument_limits.ts";
import type { LoopGuard } from "./loop_guard.ts";
import {
  type BeforeCallVerdict,
  type CallHooks,
  type HookedCall,
  withHookText,
} from "./turn_hooks.ts";
import { canonicalArguments } from "./repair_arguments.ts";
import { argumentChanges, editNote, withEditNote } from "./argument_edit.ts";

/** Turns the model's raw argument text into a value to validate (argument repair hooks in here). */
export type ArgumentParser = (
  raw: string,
  schema: Record<string, unknown>,
) => { value: unknown; repairs?: string[] } | { error: string };

export interface CallDriverOptions {
  tools: ToolRunner;
  approver: Approver;
  sink: LoopEventSink;
  state: Record<string, unknown>;
  parseArguments?: ArgumentParser;
  /** Answers a call that repeats identical calls with the same result, without running it. */
  guard?: LoopGuard;
  /** Hooks before and after each call, and the checkpoint before a change (turn_hooks.ts). */
  hooks?: CallHooks;
  clock?: () => number;
}

export interface DrivenCall {
  state: ToolCallState;
  args: unknown;
  result: ToolResult;
  final: boolean;
  /** The user aborted (Ctrl-C at the prompt or during the run): the turn must stop. */
  abortTurn: boolean;
  /** Conversation state after the call. */
  conversationState: Record<string, unknown>;
  /** The tool's own terminal line, if it gave one. */
  display: string;
  /** Tokens of the tool's model side requests. */
  usage?: Usage;
  /** Images the tool showed the model (read_file of an image). */
  images?: ImagePart[];
  /** A hook said to stop the turn after this call; said to the user. */
  hookStop?: string;
  /** The user changed the call at the prompt: `args` are theirs, these the model's. */
  editedFrom?: unknown;
}

/**
 * Parses JSON argument text; an empty string means no arguments.
 *
 * @example
 * ```ts
 * import { parseJsonArguments } from "./call_driver.ts";
 * const r = parseJsonArguments('{"a":1}', {});
 * if (!("value" in r)) throw new Error();
 * ```
 */
export function parseJsonArguments(
  raw: string,
  _schema: Record<string, unknown>,
): { value: unknown } | { error: string } {
  if (raw.trim() === "") return { value: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { error: `Arguments must be a JSON object, got ${JSON.stringify(value)}` };
    }
    return { value };
  } catch (error) {
    return {
      error: `Arguments are not valid JSON: ${(error as Error).message}. Send one JSON object`,
    };
  }
}

function failure(type: ToolErrorType, message: string): ToolResult {
  return makeToolResult({ errorType: type, errorMessage: message });
}

/** A call that passed validation and approval and may run now. */
export interface ApprovedCall {
  call: ToolCall;
  args: unknown;
  /** What the hooks said before approval that still applies (context, a stop). */
  hooked?: { call: HookedCall; context?: string; stop?: string };
  /** The model's arguments, when the user changed them at the prompt (`args` are the user's). */
  editedFrom?: unknown;
  /** Moves the call's state machine; throws on an illegal transition (a harness bug). */
  step(event: ToolCallEvent): void;
  state(): ToolCallState;
}

/**
 * Runs one tool call from `requested` to a terminal state.
 *
 * @param call The call as the model made it.
 * @param options Runner, approver, sink and conversation state.
 * @param signal Aborts validation, the prompt or the running tool.
 * @returns The final state and its one ToolResult.
 */
export async function driveToolCall(
  call: ToolCall,
  options: CallDriverOptions,
  signal: AbortSignal,
): Promise<DrivenCall> {
  const prepared = await prepareToolCall(call, options, signal);
  return "done" in prepared ? prepared.done : await runApprovedCall(prepared, options, signal);
}

/**
 * The first half of a call: parse and validate the arguments and ask the approver. The loop
 * prepares the calls of a turn one by one (prompts never overlap) and may then run the
 * approved read-only ones together.
 *
 * @param call The call as the model made it.
 * @param options Runner, approver, sink and conversation state.
 * @param signal Aborts validation or the prompt.
 * @returns The finished call (repeated, invalid, denied, cancelled), or the approved call to run.
 */
export async function prepareToolCall(
  call: ToolCall,
  options: CallDriverOptions,
  signal: AbortSignal,
): Promise<{ done: DrivenCall } | ApprovedCall> {
  let state = requestToolCall(call);
  const step = (event: ToolCallEvent) => {
    const next = advance(state, event);
    if (!next.ok) {
      throw new Error(`tool call ${call.id}: ${next.error.from} -/-> ${next.error.event}`);
    }
    state = next.value;
  };
  const done = (result: ToolResult, extra: Partial<DrivenCall> = {}): { done: DrivenCall } => ({
    done: {
      state,
      args,
      result,
      final: false,
      abortTurn: false,
      conversationState: options.state,
      display: "",
      ...extra,
    },
  });
  let args: unknown = undefined;
  const repeated = options.guard?.check(call);
  if (repeated) {
    step({ type: "limit_reached" });
    return done(repeated);
  }
  const info = options.tools.list().find((tool) => tool.name === call.name);
  const missingFlag = info ? undefined : options.tools.unavailableReason?.(call.name);
  if (missingFlag !== undefined) {
    const message = `Tool "${call.name}" is not available: the sandbox was started without ` +
      `${missingFlag}. Do the task with the tools you have, or tell the user to restart ` +
      `harness with ${missingFlag}`;
    step({ type: "validation_failed", issues: [message] });
    return done(failure("permission_denied", message));
  }
  if (!info) {
    const names = options.tools.list().map((tool) => tool.name).join(", ");
    const message = `Unknown tool "${call.name}": call one of ${names}`;
    step({ type: "validation_failed", issues: [message] });
    return done(failure("validation_failed", message));
  }
  // Limits first: the parser, repair, validation and postMessage all recurse over the value.
  const overLimit = (problem: string) => {
    step({ type: "validation_failed", issues: [problem] });
    return done(failure("validation_failed", `${problem}. Call "${call.name}" again`));
  };
  const textProblem = argumentsTextProblem(call.arguments);
  if (textProblem !== undefined) return overLimit(textProblem);
  const parsed = (options.parseArguments ?? parseJsonArguments)(call.arguments, info.parameters);
  if ("error" in parsed) {
    step({ type: "validation_failed", issues: [parsed.error] });
    return done(failure("parse_error", `${parsed.error}. Call "${call.name}" again`));
  }
  const valueProblem = argumentsValueProblem(parsed.value);
  if (valueProblem !== undefined) return overLimit(valueProblem);
  const validated = await options.tools.validate(call.name, parsed.value);
  if (!validated.ok) {
    step({ type: "validation_failed", issues: validated.error });
    const message = `Invalid arguments for "${call.name}": ${validated.error.join("; ")}. ` +
      `Call "${call.name}" again with corrected arguments`;
    return done(failure("validation_failed", message));
  }
  args = validated.value;
  step({ type: "validation_passed", args });
  if (signal.aborted) {
    step({ type: "cancelled" });
    return done(failure("cancelled", "Cancelled by the user before it ran"), { abortTurn: true });
  }

  // A PreToolUse hook blocked the call: the model reads why (and the hook's context).
  const hookDenied = (reason: string, verdict: BeforeCallVerdict) => {
    step({ type: "denied", by: "policy", reason });
    const result = verdict.context === undefined
      ? failure("permission_denied", reason)
      : withHookText(failure("permission_denied", reason), "Hook context", verdict.context);
    return done(result, verdict.stop === undefined ? {} : { hookStop: verdict.stop });
  };

  // PreToolUse hooks look at the call before the approver, as in Claude Code.
  let hooked: ApprovedCall["hooked"];
  let approval: "allow" | "ask" | undefined;
  if (options.hooks) {
    const verdict = await options.hooks.beforeCall(
      { id: call.id, name: call.name, args, info },
      signal,
    );
    for (const message of verdict.notices) options.sink({ type: "warning", message });
    let deny = verdict.deny;
    if (deny === undefined && verdict.args !== undefined) {
      const again = await options.tools.validate(call.name, verdict.args);
      if (again.ok) args = again.value;
      else {deny = `a PreToolUse hook changed the arguments into invalid ones: ${
          again.error.join("; ")
        }`;}
    }
    if (deny !== undefined) {
      const reason = `Blocked by a PreToolUse hook: ${deny}`;
      const decision: ApprovalDecision = {
        decision: "deny",
        by: "policy",
        rule: "PreToolUse hook",
        reason,
      };
      options.sink({
        type: "permission_decided",
        callId: call.id,
        name: call.name,
        decision,
        args,
      });
      return hookDenied(reason, verdict);
    }
    approval = verdict.approval;
    hooked = {
      call: { id: call.id, name: call.name, args, info },
      ...(verdict.context === undefined ? {} : { context: verdict.context }),
      ...(verdict.stop === undefined ? {} : { stop: verdict.stop }),
    };
  }

  // Every call passes the approver, safe ones too: a policy rule may deny a safe tool.
  step({ type: "permission_needed" });
  const tools = options.tools;
  const validateEdited = editedArgumentsValidator(call.name, options);
  const decision: ApprovalDecision = await options.approver.approve(
    {
      callId: call.id,
      tool: call.name,
      args,
      risk: info.risk,
      ...(approval === undefined ? {} : { hook: approval }),
      edit: {
        sent: parsed.value,
        validate: validateEdited,
        ...(tools.preview
          ? { preview: (edited: unknown) => tools.preview!(call.name, edited, options.state) }
          : {}),
      },
      ...(tools.preview ? { preview: () => tools.preview!(call.name, args, options.state) } : {}),
    },
    signal,
  );
  options.sink({ type: "permission_decided", callId: call.id, name: call.name, decision, args });
  if (decision.decision === "deny") {
    step({
      type: "denied",
      by: decision.by,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    });
    const who = decision.by === "user"
      ? "the user"
      : decision.by === "policy"
      ? "a policy rule"
      : "the run mode";
    // The approver's reason already says who denied it and what would allow it.
    const message = decision.reason ?? `Permission denied by ${who}`;
    return done(failure("permission_denied", message), {
      abortTurn: decision.abortTurn === true,
    });
  }
  if ("editedArgs" in decision) {
    // The user changed the call: it runs with their arguments, validated here as any call's
    // are (whichever approver allowed it).
    const edited = await validateEdited(decision.editedArgs);
    if (!edited.ok) {
      const message = `The user changed this call into invalid arguments: ${
        edited.issues.join("; ")
      }`;
      step({ type: "denied", by: "user", reason: message });
      return done(failure("permission_denied", message));
    }
    // The hooks screen what runs, so they see the changed call too. They may block it, not
    // change it: the user approved these arguments and no others.
    let screened = hooked;
    if (options.hooks) {
      const changed = { id: call.id, name: call.name, args: edited.value, info };
      const verdict = await options.hooks.beforeCall(changed, signal);
      for (const message of verdict.notices) options.sink({ type: "warning", message });
      const rewritten = verdict.args !== undefined &&
        canonicalArguments(verdict.args) !== canonicalArguments(edited.value);
      const deny = verdict.deny ??
        (rewritten
          ? "it changed the arguments the user approved, so the call did not run"
          : undefined);
      if (deny !== undefined) {
        // The user's allow is already logged: the block is said to them and to the model.
        const reason = `Blocked by a PreToolUse hook: ${deny}`;
        options.sink({ type: "warning", message: reason });
        return hookDenied(reason, verdict);
      }
      screened = {
        call: changed,
        ...(verdict.context === undefined ? {} : { context: verdict.context }),
        ...(verdict.stop === undefined ? {} : { stop: verdict.stop }),
      };
    }
    return {
      call,
      args: edited.value,
      editedFrom: args,
      step,
      state: () => state,
      ...(screened ? { hooked: screened } : {}),
    };
  }

  return { call, args, step, state: () => state, ...(hooked ? { hooked } : {}) };
}

/** Validates arguments the user wrote at the prompt: the argument limits, then the schema. */
function editedArgumentsValidator(name: string, options: CallDriverOptions) {
  return async (
    args: unknown,
  ): Promise<{ ok: true; value: unknown } | { ok: false; issues: string[] }> => {
    const problem = argumentsValueProblem(args);
    if (problem !== undefined) return { ok: false, issues: [problem] };
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return { ok: false, issues: ["the arguments must be one JSON object"] };
    }
    const validated = await options.tools.validate(name, args);
    return validated.ok
      ? { ok: true, value: validated.value }
      : { ok: false, issues: validated.error };
  };
}

/**
 * The second half of a call: run an approved call in the sandbox.
 *
 * @param approved What {@linkcode prepareToolCall} returned for it.
 * @param options Runner, sink and conversation state.
 * @param signal Aborts the running tool.
 * @returns The final state and its one ToolResult.
 */
export async function runApprovedCall(
  approved: ApprovedCall,
  options: CallDriverOptions,
  signal: AbortSignal,
): Promise<DrivenCall> {
  const { call, args, step } = approved;
  const clock = options.clock ?? (() => performance.now());
  const done = (result: ToolResult, extra: Partial<DrivenCall> = {}): DrivenCall => ({
    state: approved.state(),
    args,
    result,
    final: false,
    abortTurn: false,
    conversationState: options.state,
    display: "",
    ...(approved.editedFrom === undefined ? {} : { editedFrom: approved.editedFrom }),
    ...extra,
  });
  const info = options.tools.list().find((tool) => tool.name === call.name);
  // The hooks see the arguments the call runs with (the user's, when they changed them).
  const hookedCall = approved.hooked
    ? { ...approved.hooked.call, args }
    : (info ? { id: call.id, name: call.name, args, info } : undefined);
  // A call that may change files waits for the turn's checkpoint.
  if (options.hooks && hookedCall) await options.hooks.beforeRun(hookedCall);
  step({ type: "allowed", at: clock() });
  options.sink({ type: "tool_started", callId: call.id, name: call.name, args });
  const run = await options.tools.run(call.name, args, {
    signal,
    state: options.state,
    onOutput: (text) =>
      options.sink({ type: "tool_output", callId: call.id, name: call.name, text }),
  });
  if (run.result.error_type === "cancelled") {
    step({ type: "cancelled" });
    return done(run.result, { abortTurn: true, conversationState: run.state });
  }
  step({ type: "finished", output: run.result });
  // The model reads first that the user changed its call, and how, so it does not repeat it.
  let result = approved.editedFrom === undefined
    ? run.result
    : withEditNote(run.result, editNote(await argumentChanges(approved.editedFrom, args)));
  let hookStop = approved.hooked?.stop;
  if (approved.hooked?.context !== undefined) {
    result = withHookText(result, "Hook context", approved.hooked.context);
  }
  if (options.hooks && hookedCall && !signal.aborted) {
    const after = await options.hooks.afterCall(hookedCall, run.result, signal);
    for (const message of after.notices) options.sink({ type: "warning", message });
    if (after.feedback !== undefined) {
      result = withHookText(result, "Hook feedback", after.feedback);
    }
    if (after.context !== undefined) result = withHookText(result, "Hook context", after.context);
    hookStop ??= after.stop;
  }
  return done(result, {
    ...(run.usage ? { usage: run.usage } : {}),
    ...(run.images?.length ? { images: run.images } : {}),
    ...(hookStop === undefined ? {} : { hookStop }),
    display: run.display ?? "",
    final: run.final === true && run.result.success,
    abortTurn: signal.aborted,
    conversationState: run.state,
  });
}
