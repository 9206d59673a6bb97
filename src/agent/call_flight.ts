// A tool call on its way from the model to the tool and back: what the stages of the call
// path have learned of it so far, the one signature every stage has, and where a feature's
// stage goes. The kernel's stages (call_stages.ts) are resolve, limits, parse, validate,
// approve and run; features place theirs before or after one of them (app/ registers the
// PreToolUse hooks and the checkpoint gate before, the edit note, PostToolUse hooks, image
// gate, curator and index update after). call_driver.ts drives a flight through the path,
// moving the call's state machine (src/tools/tool_call.ts).
//
// Registering a stage after the run of file edits, say, is a few lines:
//   { name: "diagnostics", after: "run", run: async (flight, scope) => { ...; return undefined; } }
// A stage returns undefined to let the call go on, or a CallExit to end it before it runs.

import type { ToolCall, ToolResult } from "../messages.ts";
import type { Approver } from "../permissions/approver.ts";
import type { FilePort } from "../tools/file_port.ts";
import type { ToolEntry, ToolRun } from "../tools/tool_entry.ts";
import { advance, type ToolCallEvent, type ToolCallState } from "../tools/tool_call.ts";
import type { LoopEventSink } from "./loop_events.ts";
import type { ToolOffer } from "../sandbox/grants/tool_offer.ts";

/** Turns the model's raw argument text into a value to validate (argument repair hooks in here). */
export type ArgumentParser = (
  raw: string,
  schema: Record<string, unknown>,
) => { value: unknown; repairs?: string[] } | { error: string };

/** What the stages of one call know of it. */
export interface CallFlight {
  readonly call: ToolCall;
  /** The call's state machine; a terminal state ends the flight. */
  state: ToolCallState;
  /** The tool, once resolved. */
  entry?: ToolEntry;
  /** The model's arguments as a value, once parsed. */
  parsed?: unknown;
  /** The arguments the call runs with, once validated (the user's, when they changed them). */
  args?: unknown;
  /** The model's arguments, when the user changed the call at the prompt. */
  editedFrom?: unknown;
  /** Set before approval: "allow" runs without asking (a policy deny still wins), "ask" asks. */
  approval?: "allow" | "ask";
  /** Stop the turn after this call (a hook said so); said to the user. */
  stop?: string;
  /** What the tool returned, as the stages after the run shaped it. */
  run?: ToolRun;
  /** What the model reads. */
  result?: ToolResult;
  /** The user aborted (Ctrl-C at the prompt or during the run): the turn stops. */
  abortTurn?: boolean;
}

/** How a stage ends a call: the state machine's event and the result the model reads. */
export interface CallExit {
  event: Extract<
    ToolCallEvent,
    { type: "validation_failed" | "denied" | "cancelled" | "limit_reached" }
  >;
  result: ToolResult;
  abortTurn?: boolean;
}

/** What every stage of a turn's calls shares. */
export interface CallScope {
  /** The tools offered this turn. */
  offer: ToolOffer;
  approver: Approver;
  sink: LoopEventSink;
  /** The conversation's state (tasks) as it is now: a preview gets a copy. */
  state(): Record<string, unknown>;
  parse: ArgumentParser;
  signal: AbortSignal;
  clock: () => number;
  /** Where the built-in file tools read and write (the editor's, under ACP). */
  files?: FilePort;
  /** Whose background jobs the calls start and see (one of an editor's sessions). */
  jobOwner?: string;
  /** Runs the stages placed before "approve" again, for a call the user changed. */
  rescreen(flight: CallFlight): Promise<CallExit | undefined>;
}

/** The one signature of a stage: undefined lets the call go on, a CallExit ends it. */
export type CallStage = (
  flight: CallFlight,
  scope: CallScope,
) => Promise<CallExit | undefined> | CallExit | undefined;

/** The kernel's stages, in order. */
export const KERNEL_STAGES = ["resolve", "limits", "parse", "validate", "approve", "run"] as const;
export type KernelStage = typeof KERNEL_STAGES[number];

/**
 * A feature's stage and where it goes: before or after a kernel stage. A stage before
 * "approve" that decides about some tools' calls says which (`screens`): those calls are then
 * asked about one by one, not with the turn's other calls.
 */
export type PlacedStage =
  & { name: string; run: CallStage; screens?(tool: string): boolean }
  & ({ before: KernelStage; after?: never } | { after: KernelStage; before?: never });

/**
 * Moves a flight's state machine; an illegal transition is a harness bug and throws.
 *
 * @param flight The call.
 * @param event What happened.
 */
export function step(flight: CallFlight, event: ToolCallEvent): void {
  const next = advance(flight.state, event);
  if (!next.ok) {
    throw new Error(`tool call ${flight.call.id}: ${next.error.from} -/-> ${next.error.event}`);
  }
  flight.state = next.value;
}
