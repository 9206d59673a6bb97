// The kernel's stages of a tool call, in order: resolve the tool among those offered, check
// the argument text's limits, parse (and repair) the arguments, validate them against the
// tool's schema, ask the approver (whose user may change the call: the change is validated
// again and screened by the stages before approval once more), and run it. Each has the one
// signature of call_flight.ts; call_driver.ts drives a call through them and the features'.

import type { ApprovalDecision, ApprovalRequest } from "../permissions/approver.ts";
import { makeToolResult, type ToolErrorType, type ToolResult } from "../messages.ts";
import type { ToolEntry } from "../tools/tool_entry.ts";
import { argumentsTextProblem, argumentsValueProblem } from "../tools/argument_limits.ts";
import {
  type CallExit,
  type CallFlight,
  type CallScope,
  type CallStage,
  type KernelStage,
  step,
} from "./call_flight.ts";

/**
 * Parses JSON argument text; an empty string means no arguments.
 *
 * @example
 * ```ts
 * import { parseJsonArguments } from "./call_stages.ts";
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

/** Ends a call as invalid: the model reads `message` (or `said`). */
function invalid(issues: string[], type: ToolErrorType, said = issues.join("; ")): CallExit {
  return { event: { type: "validation_failed", issues }, result: failure(type, said) };
}

/** The call's tool among those offered; a tool the grants leave out says which flag it needs. */
const resolve: CallStage = (flight, scope) => {
  const { name } = flight.call;
  const entry = scope.offer.find(name);
  if (entry) {
    flight.entry = entry;
    return undefined;
  }
  const flag = scope.offer.missingFlag(name);
  if (flag !== undefined) {
    const message = `Tool "${name}" is not available: the sandbox was started without ${flag}. ` +
      `Do the task with the tools you have, or tell the user to restart harness with ${flag}`;
    return invalid([message], "permission_denied");
  }
  const names = scope.offer.entries.map((entry) => entry.info.name).join(", ");
  return invalid([`Unknown tool "${name}": call one of ${names}`], "validation_failed");
};

/** A limit on arguments: the parser, repair, validation and postMessage all recurse over them. */
function overLimit(flight: CallFlight, problem: string): CallExit {
  return invalid([problem], "validation_failed", `${problem}. Call "${flight.call.name}" again`);
}

const limits: CallStage = (flight) => {
  const problem = argumentsTextProblem(flight.call.arguments);
  return problem === undefined ? undefined : overLimit(flight, problem);
};

const parse: CallStage = (flight, scope) => {
  const { call } = flight;
  const parsed = scope.parse(call.arguments, flight.entry!.info.parameters);
  if ("error" in parsed) {
    return invalid([parsed.error], "parse_error", `${parsed.error}. Call "${call.name}" again`);
  }
  const problem = argumentsValueProblem(parsed.value);
  if (problem !== undefined) return overLimit(flight, problem);
  flight.parsed = parsed.value;
  return undefined;
};

const validate: CallStage = async (flight, scope) => {
  const { name } = flight.call;
  const validated = await flight.entry!.validate(flight.parsed);
  if (!validated.ok) {
    const message = `Invalid arguments for "${name}": ${validated.error.join("; ")}. ` +
      `Call "${name}" again with corrected arguments`;
    return invalid(validated.error, "validation_failed", message);
  }
  flight.args = validated.value;
  step(flight, { type: "validation_passed", args: flight.args });
  if (!scope.signal.aborted) return undefined;
  const cancelled = failure("cancelled", "Cancelled by the user before it ran");
  return { event: { type: "cancelled" }, result: cancelled, abortTurn: true };
};

/** Every call passes the approver, safe ones too: a policy rule may deny a safe tool. */
const approve: CallStage = async (flight, scope) => {
  const { call } = flight;
  step(flight, { type: "permission_needed" });
  const decision = await scope.approver.approve(approvalRequest(flight, scope), scope.signal);
  scope.sink({
    type: "permission_decided",
    callId: call.id,
    name: call.name,
    decision,
    args: flight.args,
  });
  if (decision.decision === "deny") return denied(decision);
  return "editedArgs" in decision ? await edited(flight, scope, decision.editedArgs) : undefined;
};

/** What the approver is asked: the call, its risk, its diff, and how the user may change it. */
function approvalRequest(flight: CallFlight, scope: CallScope): ApprovalRequest {
  const entry = flight.entry!;
  const preview = entry.preview &&
    ((args: unknown) => entry.preview!(args, scope.state(), scope.files));
  return {
    callId: flight.call.id,
    tool: flight.call.name,
    args: flight.args,
    risk: entry.info.risk,
    ...(flight.approval === undefined ? {} : { hook: flight.approval }),
    edit: {
      sent: flight.parsed,
      validate: (args) => validateEdited(entry, args),
      ...(preview ? { preview } : {}),
    },
    ...(preview ? { preview: () => preview(flight.args) } : {}),
  };
}

function denied(decision: ApprovalDecision): CallExit {
  const who = decision.by === "user"
    ? "the user"
    : decision.by === "policy"
    ? "a policy rule"
    : "the run mode";
  // The approver's reason already says who denied it and what would allow it.
  const message = decision.reason ?? `Permission denied by ${who}`;
  return {
    event: {
      type: "denied",
      by: decision.by,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    },
    result: failure("permission_denied", message),
    abortTurn: decision.abortTurn === true,
  };
}

/**
 * The user changed the call: it runs with their arguments, validated here as any call's are
 * (whichever approver allowed it), once the stages before approval screened it again.
 */
async function edited(flight: CallFlight, scope: CallScope, args: unknown) {
  const checked = await validateEdited(flight.entry!, args);
  if (!checked.ok) {
    const message = `The user changed this call into invalid arguments: ${
      checked.issues.join("; ")
    }`;
    return {
      event: { type: "denied", by: "user", reason: message },
      result: failure("permission_denied", message),
    } satisfies CallExit;
  }
  flight.editedFrom = flight.args;
  flight.args = checked.value;
  return await scope.rescreen(flight);
}

/** Validates arguments the user wrote at the prompt: the argument limits, then the schema. */
async function validateEdited(
  entry: ToolEntry,
  args: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; issues: string[] }> {
  const problem = argumentsValueProblem(args);
  if (problem !== undefined) return { ok: false, issues: [problem] };
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, issues: ["the arguments must be one JSON object"] };
  }
  const validated = await entry.validate(args);
  return validated.ok
    ? { ok: true, value: validated.value }
    : { ok: false, issues: validated.error };
}

const run: CallStage = async (flight, scope) => {
  const { call } = flight;
  step(flight, { type: "allowed", at: scope.clock() });
  scope.sink({ type: "tool_started", callId: call.id, name: call.name, args: flight.args });
  const ran = await flight.entry!.run(flight.args, {
    callId: call.id,
    signal: scope.signal,
    state: scope.state(),
    onOutput: (text) => scope.sink({ type: "tool_output", callId: call.id, name: call.name, text }),
    ...(scope.files ? { files: scope.files } : {}),
    ...(scope.jobOwner ? { jobOwner: scope.jobOwner } : {}),
  });
  if (ran.result.error_type === "cancelled") {
    flight.run = { result: ran.result, state: ran.state };
    return { event: { type: "cancelled" }, result: ran.result, abortTurn: true };
  }
  step(flight, { type: "finished", output: ran.result });
  flight.run = ran;
  flight.result = ran.result;
  return undefined;
};

/** The kernel's stages by name. */
export const KERNEL: Readonly<Record<KernelStage, CallStage>> = {
  resolve,
  limits,
  parse,
  validate,
  approve,
  run,
};
