// The calls of one model turn: every call id gets exactly one result, appended in call order.
// Before any runs, the approver may ask about all the calls that need approval in one prompt
// (approve_together.ts). A run of consecutive read-only calls (tools that declare only `read`)
// or subagents (`task`) is approved one by one, then run together: each shows as it finishes. A turn stage may
// answer a call without running it (the loop guard) and end the turn after a failure
// (repeated failures).

import { makeToolResult, sumUsage, type ToolCall, type ToolResult } from "../messages.ts";
import { toolResultMessage } from "../messages.ts";
import { readsOnly } from "../tools/tool_entry.ts";
import { callSeat } from "../sandbox/grants/tool_offer.ts";
import type { ToolCallStatus } from "../tools/tool_call.ts";
import type { CallFlight, CallScope } from "./call_flight.ts";
import { type CallPath, callPath, ended, prepareCall, runCall, scopeOf } from "./call_driver.ts";
import { parseJsonArguments } from "./call_stages.ts";
import { approverForTurn } from "./approve_together.ts";
import type { LoopTurn, Stop } from "./loop_turn.ts";

/** A call's flight, and whether it was shown as it finished (run together with others). */
type Driven = { flight: CallFlight; shown: boolean } | undefined;

const KERNEL_PATH = callPath([]);

/**
 * Runs one turn's calls, appending each result in call order.
 *
 * @param calls The model's calls.
 * @param turn The loop's turn.
 * @returns The stop that ends the turn, if a call ended it.
 */
export async function runCalls(calls: ToolCall[], turn: LoopTurn): Promise<Stop | undefined> {
  const { options, signal } = turn;
  const path = withRepeats(options.path ?? KERNEL_PATH, turn);
  const max = options.limits.maxToolCalls;
  // Calls that need the user's approval are asked about together, before any runs (not the
  // ones a stage answers or screens first).
  const asked = calls.slice(0, max).filter((call) =>
    !repeatOf(turn, call) && !path.screens(call.name)
  );
  const scope = scopeOf({
    offer: turn.offer,
    approver: await approverForTurn(asked, {
      ...options,
      offer: turn.offer,
      ...(options.tools.files ? { files: options.tools.files } : {}),
    }, signal),
    sink: options.sink,
    state: () => options.state,
    parse: options.parseArguments ?? parseJsonArguments,
    signal,
    clock: options.clock ?? (() => performance.now()),
    ...callSeat(options.tools),
  }, path);
  let stop: Stop | undefined;
  for (let index = 0; index < calls.length;) {
    const size = groupSize(calls, index, { turn, max, stopped: stop !== undefined });
    const group = calls.slice(index, index + size);
    const driven = stop || index >= max
      ? group.map(() => undefined)
      : await driveGroup(group, scope, path);
    for (const [offset, call] of group.entries()) {
      stop = finishCall(call, index + offset, driven[offset], { turn, stop });
    }
    index += size;
  }
  return stop;
}

/**
 * How many calls from `index` on run together: consecutive ones that each only read or are of
 * a tool whose calls run together (`task`).
 */
function groupSize(
  calls: ToolCall[],
  index: number,
  at: { turn: LoopTurn; max: number; stopped: boolean },
): number {
  const together = (call: ToolCall) => {
    const info = at.turn.offer.find(call.name)?.info;
    return readsOnly(info) || info?.concurrent === true;
  };
  let size = 1;
  while (
    !at.stopped && index + size < Math.min(calls.length, at.max) &&
    together(calls[index]!) && together(calls[index + size]!)
  ) {
    size++;
  }
  return size;
}

/** The result a turn stage gives a call without running it (a repeat), if any. */
function repeatOf(turn: LoopTurn, call: ToolCall): ToolResult | undefined {
  for (const stage of turn.options.stages ?? []) {
    const result = stage.repeat?.(call);
    if (result) return result;
  }
  return undefined;
}

/** The path with the turn's repeat check first. */
function withRepeats(path: CallPath, turn: LoopTurn): CallPath {
  const repeat = {
    name: "repeat",
    run: (flight: CallFlight) => {
      const result = repeatOf(turn, flight.call);
      return result && { event: { type: "limit_reached" as const }, result };
    },
  };
  return { ...path, prepare: [repeat, ...path.prepare] };
}

/**
 * Drives a group: one call through its whole path, or read-only calls approved in order
 * (prompts never overlap) and then run at once, each shown as it finishes.
 */
async function driveGroup(group: ToolCall[], scope: CallScope, path: CallPath): Promise<Driven[]> {
  const prepared: CallFlight[] = [];
  for (const call of group) prepared.push(await prepareCall(call, scope, path));
  if (group.length === 1) {
    const flight = prepared[0]!;
    return [{ flight: ended(flight) ? flight : await runCall(flight, scope, path), shown: false }];
  }
  return await Promise.all(prepared.map(async (flight) => {
    if (ended(flight)) return { flight, shown: false };
    await runCall(flight, scope, path);
    const { call } = flight;
    scope.sink({
      type: "tool_finished",
      callId: call.id,
      name: call.name,
      args: flight.args,
      result: flight.result!,
      display: flight.run?.display ?? "",
    });
    return { flight, shown: true };
  }));
}

/** Turns one call's flight (or its absence: not run) into its result; returns the stop. */
function finishCall(
  call: ToolCall,
  index: number,
  driven: Driven,
  at: { turn: LoopTurn; stop: Stop | undefined },
): Stop | undefined {
  const { turn } = at;
  const { options } = turn;
  const flight = driven?.flight;
  const done = flight ? ranCall(flight, turn, at.stop) : notRun(index, turn, at.stop);
  const args = flight?.args ?? call.arguments;
  if (!driven?.shown) {
    const display = flight?.run?.display ?? "";
    options.sink({
      type: "tool_finished",
      callId: call.id,
      name: call.name,
      args,
      result: done.result,
      display,
    });
  }
  const message = toolResultMessage(call.id, call.name, done.result, flight?.run?.images);
  if (flight?.editedFrom !== undefined) message.data.changedArguments = JSON.stringify(flight.args);
  turn.append(message);
  turn.outcome.toolCalls.push({
    id: call.id,
    name: call.name,
    arguments: args,
    result: done.result,
    status: done.status,
  });
  return done.stop;
}

/** A call that did not run: the turn stopped before it, or it is over the per-turn limit. */
function notRun(
  index: number,
  turn: LoopTurn,
  stop: Stop | undefined,
): { result: ToolResult; status: ToolCallStatus; stop: Stop | undefined } {
  if (stop) {
    const errorMessage = stop.reason === "task_complete"
      ? "Not run: task_complete ended the run"
      : "Not run: the turn was stopped before this call";
    return {
      result: makeToolResult({ errorType: "cancelled", errorMessage }),
      status: "cancelled",
      stop,
    };
  }
  const max = turn.options.limits.maxToolCalls;
  if (index === max) turn.options.sink({ type: "limit_reached", limit: "tool_calls", max });
  const errorMessage = `Not run: at most ${max} tool calls run per model turn. ` +
    `Call it again in your next turn if you still need it`;
  return {
    result: makeToolResult({ errorType: "limit_reached", errorMessage }),
    status: "limit_reached",
    stop,
  };
}

/** A call that went through its path: the state it leaves, the stages told, and the stop. */
function ranCall(
  flight: CallFlight,
  turn: LoopTurn,
  stop: Stop | undefined,
): { result: ToolResult; status: ToolCallStatus; stop: Stop | undefined } {
  const { options, signal } = turn;
  const { call } = flight;
  let result = flight.result!;
  // The worker always returns a copy: only a real change is an event (and a log row).
  const after = flight.run?.state ?? options.state;
  const changed = JSON.stringify(after) !== JSON.stringify(options.state);
  if (changed) {
    options.state = after;
    options.sink({ type: "state_changed", state: options.state });
  }
  if ("startedAt" in flight.state) {
    // A call the user changed ran with their arguments: remember it under those.
    const ran = flight.editedFrom === undefined
      ? call
      : { ...call, arguments: JSON.stringify(flight.args) };
    const mayChange = changed || !readsOnly(turn.offer.find(call.name)?.info);
    for (const stage of options.stages ?? []) stage.ran?.(ran, result, mayChange);
  }
  if (flight.run?.final === true && flight.run.result.success) {
    stop ??= { reason: "task_complete", extra: { text: result.data ?? "" } };
  } else if (flight.stop !== undefined) {
    stop ??= { reason: "error", extra: { errorMessage: `Stopped by a hook: ${flight.stop}` } };
  } else if (flight.abortTurn || signal.aborted) {
    stop ??= { reason: "interrupted", extra: {} };
  } else if (!result.success) {
    const failed = (options.stages ?? []).map((stage) => stage.failed?.(call, result)).find((s) =>
      s !== undefined
    );
    if (failed) {
      result = { ...result, error_message: `${result.error_message}. ${failed.model}` };
      stop ??= { reason: "error", extra: { errorMessage: failed.user } };
    }
  }
  // Side requests of a tool (the read_file curator) count in the run's usage.
  if (flight.run?.usage) {
    sumUsage(turn.outcome.usage, flight.run.usage);
    options.sink({ type: "usage", usage: flight.run.usage, side: call.name });
  }
  return { result, status: flight.state.status, stop };
}
