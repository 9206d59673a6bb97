// One ACP session's view of a running turn: turns the agent loop's events into streamed
// session/update notifications (message and thought chunks, tool calls with their kind,
// locations, status, result and diff, the plan, each request's prompt tokens) and maps how the
// turn ended to a stop reason and its usage.

import type { SessionUpdate, StopReason, ToolCallContent } from "@agentclientprotocol/sdk";
import type { LoopEvent, StopReasonOut } from "../agent/loop_events.ts";
import type { Usage } from "../messages.ts";
import type { FileDiff } from "./editor_files.ts";
import { planUpdate } from "./session_updates.ts";
import { toolCallUpdate, toolLocations, toolResultUpdate } from "./tool_updates.ts";
import { startedJob } from "./job_terminals.ts";
import { subagentUpdate } from "./subagent_updates.ts";

/** Receives the updates of one session, in order. */
export type UpdateSender = (update: SessionUpdate) => void;

/**
 * Creates the loop event sink of one turn.
 *
 * @param options `send` posts an update; `cwd` resolves paths; `takeDiffs` returns (and
 *   forgets) the file changes the finished call made; `window` is the conversation's context
 *   window (usage_update says how full it is).
 * @returns The sink to pass to `Conversation.send`.
 *
 * @example
 * ```ts
 * import { turnSink } from "./session_bridge.ts";
 * const sent: string[] = [];
 * const sink = turnSink({
 *   send: (u) => sent.push(u.sessionUpdate),
 *   cwd: "/w",
 *   takeDiffs: () => [],
 *   window: () => 8192,
 * });
 * sink({ type: "text_delta", text: "Hi" });
 * if (sent[0] !== "agent_message_chunk") throw new Error();
 * ```
 */
export function turnSink(options: {
  send: UpdateSender;
  cwd: string;
  takeDiffs(): FileDiff[];
  window(): number | undefined;
  /** run_command left a background job (the editor may show it in a terminal). */
  jobStarted?(callId: string, id: string): void;
}): (event: LoopEvent) => void {
  const { send, cwd } = options;
  const text = (t: string) => ({ type: "text" as const, text: t });
  return (event) => {
    switch (event.type) {
      case "text_delta":
        send({ sessionUpdate: "agent_message_chunk", content: text(event.text) });
        break;
      case "reasoning_delta":
        send({ sessionUpdate: "agent_thought_chunk", content: text(event.text) });
        break;
      case "message":
        if (event.message.kind === "tool_call") send(toolCallUpdate(event.message.data, cwd));
        break;
      case "tool_started":
        send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: "in_progress",
          rawInput: event.args,
          locations: toolLocations(event.args, cwd),
        });
        break;
      case "tool_finished": {
        const diffs: ToolCallContent[] = event.result.success
          ? options.takeDiffs().map((d) => ({ type: "diff", ...d }))
          : [];
        send(toolResultUpdate(event.callId, event.result, diffs));
        const job = event.name === "run_command" ? startedJob(event.result.data) : undefined;
        if (job !== undefined) options.jobStarted?.(event.callId, job);
        break;
      }
      case "state_changed": {
        const plan = planUpdate(event.state);
        if (plan) send(plan);
        break;
      }
      case "warning":
        send({ sessionUpdate: "agent_thought_chunk", content: text(`\n${event.message}\n`) });
        break;
      case "usage": {
        // A side request (the curator, a summary) is not what the conversation holds.
        const size = options.window();
        if (event.side === undefined && size !== undefined) send(usageUpdate(event.usage, size));
        break;
      }
      case "subagent": {
        const update = subagentUpdate(
          event,
          cwd,
          () => options.takeDiffs().map((d): ToolCallContent => ({ type: "diff", ...d })),
        );
        if (update) send(update);
        break;
      }
      case "limit_reached":
      case "permission_decided":
      case "tool_output":
      case "waiting":
      case "compacted":
      case "turn_started":
      case "done":
      case "checkpoint":
      case "files_restored":
      case "rewound":
        break;
      default: {
        const never: never = event;
        throw new Error(`unhandled event ${JSON.stringify(never)}`);
      }
    }
  };
}

/**
 * The ACP stop reason of a finished turn; errors are reported as JSON-RPC errors instead.
 *
 * @example
 * ```ts
 * import { acpStopReason } from "./session_bridge.ts";
 * if (acpStopReason("interrupted") !== "cancelled") throw new Error();
 * ```
 */
export function acpStopReason(stop: Exclude<StopReasonOut, "error">): StopReason {
  switch (stop) {
    case "answered":
    case "task_complete":
      return "end_turn";
    case "iteration_limit":
      return "max_turn_requests";
    case "interrupted":
      return "cancelled";
    default: {
      const never: never = stop;
      throw new Error(`unhandled stop ${String(never)}`);
    }
  }
}

/** harness's prompt token counts, as -p JSON names them (in `_meta.harness`). */
export interface PromptTokenCounts {
  prompt_tokens_processed: number;
  /** Absent when the server did not say how much of the prompt it reused. */
  prompt_tokens_reused?: number;
}

/**
 * The usage_update for one model request: how much of the window the conversation holds now
 * (that request's prompt and answer), with the prompt tokens processed and reused in `_meta`.
 *
 * @param usage The request's usage.
 * @param size The conversation's context window.
 *
 * @example
 * ```ts
 * import { usageUpdate } from "./session_bridge.ts";
 * const update = usageUpdate({ promptTokens: 1000, completionTokens: 20, reusedTokens: 900 }, 8192);
 * if (update.used !== 1020 || update._meta?.harness?.prompt_tokens_processed !== 100) throw new Error();
 * ```
 */
export function usageUpdate(
  usage: Usage,
  size: number,
): SessionUpdate & { sessionUpdate: "usage_update"; _meta: { harness: PromptTokenCounts } } {
  return {
    sessionUpdate: "usage_update",
    used: usage.promptTokens + usage.completionTokens,
    size,
    _meta: { harness: promptTokenCounts(usage) },
  };
}

/**
 * A turn's usage as ACP's draft `PromptResponse.usage` has it (inputTokens, outputTokens,
 * totalTokens, cachedReadTokens: the prompt tokens the server reused), side requests included
 * as in -p JSON.
 *
 * @example
 * ```ts
 * import { turnUsage } from "./session_bridge.ts";
 * const usage = turnUsage({ promptTokens: 1000, completionTokens: 20, reusedTokens: 900 });
 * if (usage.totalTokens !== 1020 || usage.cachedReadTokens !== 900) throw new Error();
 * ```
 */
export function turnUsage(usage: Usage): TurnUsage {
  return {
    inputTokens: usage.promptTokens,
    outputTokens: usage.completionTokens,
    totalTokens: usage.promptTokens + usage.completionTokens,
    ...(usage.reusedTokens === undefined ? {} : { cachedReadTokens: usage.reusedTokens }),
    _meta: { harness: promptTokenCounts(usage) },
  };
}

/** ACP's draft token usage of a prompt turn (not yet in the stable schema's types). */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedReadTokens?: number;
  _meta: { harness: PromptTokenCounts };
}

function promptTokenCounts(usage: Usage): PromptTokenCounts {
  const reused = usage.reusedTokens;
  return {
    prompt_tokens_processed: usage.promptTokens - (reused ?? 0),
    ...(reused === undefined ? {} : { prompt_tokens_reused: reused }),
  };
}
