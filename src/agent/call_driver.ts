// Drives one tool call through its path: the kernel's stages (call_stages.ts) with the
// features' stages placed before and after them (call_flight.ts), moving the call's state
// machine (src/tools/tool_call.ts) and producing exactly one ToolResult. The loop prepares
// the calls of a model turn one by one (through approval: prompts never overlap) and may then
// run the approved read-only ones together.

import type { ToolCall } from "../messages.ts";
import type { Approver } from "../permissions/approver.ts";
import { requestToolCall, TERMINAL_STATUSES } from "../tools/tool_call.ts";
import {
  type ArgumentParser,
  type CallExit,
  type CallFlight,
  type CallScope,
  KERNEL_STAGES,
  type PlacedStage,
  step,
} from "./call_flight.ts";
import { KERNEL, parseJsonArguments } from "./call_stages.ts";
import type { LoopEventSink } from "./loop_events.ts";
import { callSeat, offerTools, type ToolScope } from "../sandbox/grants/tool_offer.ts";

/** A stage of the path, by name. */
export type NamedStage = Pick<PlacedStage, "name" | "run">;

/** The stages of every call of a conversation, in order. */
export interface CallPath {
  /** Through approval: what the loop does for each call before any runs. */
  prepare: readonly NamedStage[];
  /** The stages placed before approval, run again for a call the user changed. */
  screen: readonly NamedStage[];
  /** From the gate before the run on. */
  run: readonly NamedStage[];
  /** Whether a stage decides about calls of this tool before approval (asked one by one). */
  screens(tool: string): boolean;
}

/**
 * The path of a call: each kernel stage with the placed stages before and after it, in the
 * order they were placed.
 *
 * @param placed The features' stages.
 * @returns The path.
 *
 * @example
 * ```ts
 * import { callPath } from "./call_driver.ts";
 * const path = callPath([{ name: "gate", before: "run", run: () => undefined }]);
 * if (path.run[0]?.name !== "gate" || path.prepare.at(-1)?.name !== "approve") throw new Error();
 * ```
 */
export function callPath(placed: readonly PlacedStage[]): CallPath {
  const stages: NamedStage[] = [];
  for (const kernel of KERNEL_STAGES) {
    stages.push(...placed.filter((stage) => stage.before === kernel));
    stages.push({ name: kernel, run: KERNEL[kernel] });
    stages.push(...placed.filter((stage) => stage.after === kernel));
  }
  const approve = stages.findIndex((stage) => stage.name === "approve");
  return {
    prepare: stages.slice(0, approve + 1),
    screen: placed.filter((stage) => stage.before === "approve"),
    run: stages.slice(approve + 1),
    screens: (tool: string) => placed.some((stage) => stage.screens?.(tool) === true),
  };
}

/** Runs stages in order until one ends the call. */
async function through(
  flight: CallFlight,
  scope: CallScope,
  stages: readonly NamedStage[],
): Promise<CallExit | undefined> {
  for (const stage of stages) {
    const exit = await stage.run(flight, scope);
    if (exit) return exit;
  }
  return undefined;
}

function end(flight: CallFlight, exit: CallExit): CallFlight {
  step(flight, exit.event);
  flight.result = exit.result;
  if (exit.abortTurn) flight.abortTurn = true;
  return flight;
}

/** Whether the call has ended (it has its result). */
export function ended(flight: CallFlight): boolean {
  return TERMINAL_STATUSES.has(flight.state.status);
}

/**
 * The first half of a call: resolve, check, parse, validate and approve it.
 *
 * @param call The call as the model made it.
 * @param scope What the turn's calls share.
 * @param path The conversation's call path.
 * @returns The flight: ended (repeated, invalid, denied, cancelled) or approved to run.
 */
export async function prepareCall(
  call: ToolCall,
  scope: CallScope,
  path: CallPath,
): Promise<CallFlight> {
  const flight: CallFlight = { call, state: requestToolCall(call) };
  const exit = await through(flight, scope, path.prepare);
  return exit ? end(flight, exit) : flight;
}

/**
 * The second half: the stages before the run, the run, and the stages after it; then the
 * result the model reads.
 *
 * @param flight An approved flight ({@linkcode prepareCall}).
 * @param scope What the turn's calls share.
 * @param path The conversation's call path.
 * @returns The ended flight.
 */
export async function runCall(
  flight: CallFlight,
  scope: CallScope,
  path: CallPath,
): Promise<CallFlight> {
  const exit = await through(flight, scope, path.run);
  if (exit) return end(flight, exit);
  if (scope.signal.aborted) flight.abortTurn = true;
  return flight;
}

/**
 * Runs one call from `requested` to a terminal state.
 *
 * @param call The call as the model made it.
 * @param scope What the turn's calls share.
 * @param path The conversation's call path.
 * @returns The ended flight, with its one result.
 */
export async function driveCall(
  call: ToolCall,
  scope: CallScope,
  path: CallPath,
): Promise<CallFlight> {
  const flight = await prepareCall(call, scope, path);
  return ended(flight) ? flight : await runCall(flight, scope, path);
}

/**
 * A call's scope with the path's screening stages for a changed call.
 *
 * @param scope Everything but `rescreen`.
 * @param path The conversation's call path.
 */
export function scopeOf(scope: Omit<CallScope, "rescreen">, path: CallPath): CallScope {
  const full: CallScope = {
    ...scope,
    rescreen: (flight) => through(flight, full, path.screen),
  };
  return full;
}

/** What one call needs outside a turn: tests, or a front end driving a single call. */
export interface CallDriverOptions {
  tools: ToolScope;
  approver: Approver;
  sink: LoopEventSink;
  state: Record<string, unknown>;
  parseArguments?: ArgumentParser;
  /** Features' stages on the call's path; `window`: the one the tools are offered for. */
  stages?: readonly PlacedStage[];
  window?: number;
  clock?: () => number;
}

/**
 * Runs one call from `requested` to a terminal state, outside a turn.
 *
 * @param call The call as the model made it.
 * @param options The tools, approver, sink, state and stages.
 * @param signal Aborts validation, the prompt or the running tool.
 * @returns The ended flight, with its one result.
 */
export function driveToolCall(
  call: ToolCall,
  options: CallDriverOptions,
  signal: AbortSignal,
): Promise<CallFlight> {
  const path = callPath(options.stages ?? []);
  const scope = scopeOf({
    offer: offerTools(options.tools, options.window),
    approver: options.approver,
    sink: options.sink,
    state: () => options.state,
    parse: options.parseArguments ?? parseJsonArguments,
    signal,
    clock: options.clock ?? (() => performance.now()),
    ...callSeat(options.tools),
  }, path);
  return driveCall(call, scope, path);
}
