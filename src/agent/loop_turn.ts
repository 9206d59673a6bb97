// What the agent loop (agent_loop.ts) and its calls (loop_calls.ts) share: the loop's options
// and limits, a turn in progress, how a turn ends early, and the outcome a turn returns to the
// conversation and the front ends.

import type { AgentError } from "../errors.ts";
import type { ImagePart, Message, ToolResult, Usage } from "../messages.ts";
import type { Provider } from "../providers/provider.ts";
import type { Approver } from "../permissions/approver.ts";
import type { ToolCallStatus } from "../tools/tool_call.ts";
import type { LoopEventSink, StopReasonOut } from "./loop_events.ts";
import type { ArgumentParser } from "./call_flight.ts";
import type { CallPath } from "./call_driver.ts";
import type { ToolOffer, ToolScope } from "../sandbox/grants/tool_offer.ts";
import type { TurnContext, TurnStage } from "./turn_stage.ts";

export interface LoopLimits {
  /** Model turns per user message (default 10). */
  maxIterations: number;
  /** Tool calls executed per model turn (default 15); the rest get limit_reached. */
  maxToolCalls: number;
}

export interface AgentLoopOptions {
  provider: Provider;
  /** The tool set and what narrows it (the grants, the mode). */
  tools: ToolScope;
  approver: Approver;
  sink: LoopEventSink;
  limits: LoopLimits;
  /** Conversation state shared with tools (tasks); replaced after each call. */
  state: Record<string, unknown>;
  /** The calls' path: the kernel's stages with the features' (call_driver.ts). */
  path?: CallPath;
  parseArguments?: ArgumentParser;
  /** The turn's stages, in order (the conversation's own, then the features'). */
  stages?: readonly TurnStage[];
  /** The conversation's window: below a size the tools are offered in compact form. */
  window?: () => number | undefined;
  /** Images sent with the user's message. */
  userImages?: readonly ImagePart[];
  clock?: () => number;
}

export interface CallRecord {
  id: string;
  name: string;
  arguments: unknown;
  result: ToolResult;
  /** The final state of the call (e.g. "denied" when the policy or the user refused it). */
  status: ToolCallStatus;
}

export interface TurnOutcome {
  stopReason: StopReasonOut;
  /** The final answer (or task_complete summary). */
  text: string;
  /** `text` is what streamed before the turn failed or was interrupted, not a whole answer. */
  partial?: boolean;
  iterations: number;
  toolCalls: CallRecord[];
  usage: Usage;
  error?: AgentError;
  errorMessage?: string;
}

/** How a turn ends early: its stop reason and what the outcome says besides. */
export interface Stop {
  reason: StopReasonOut;
  extra: Partial<TurnOutcome>;
}

/** One user message's loop in progress: what its steps share. */
export interface LoopTurn {
  options: AgentLoopOptions;
  signal: AbortSignal;
  context: TurnContext;
  conversation: Message[];
  outcome: TurnOutcome;
  /** The tools the latest request offered (its calls are looked up there). */
  offer: ToolOffer;
  append(message: Message): void;
}

/**
 * A turn that ended with an error before the model was asked (a refused message, a run that
 * could not start): nothing was sent, nothing ran.
 *
 * @param errorMessage What the user is told.
 * @returns The outcome.
 *
 * @example
 * ```ts
 * import { unsentTurn } from "./loop_turn.ts";
 * const outcome = unsentTurn("No server");
 * if (outcome.stopReason !== "error" || outcome.iterations !== 0) throw new Error();
 * ```
 */
export function unsentTurn(errorMessage: string): TurnOutcome {
  return {
    stopReason: "error",
    text: "",
    iterations: 0,
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    errorMessage,
  };
}
