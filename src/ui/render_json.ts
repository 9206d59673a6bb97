// Machine-readable output for `-p`: `json` prints one object on the last line of stdout;
// `stream-json` prints one event per line as it happens, the last being that same object.

import type { TurnOutcome } from "../agent/loop_turn.ts";
import type { LoopEvent } from "../agent/loop_events.ts";
import { parseShallowJson } from "../platform/json_depth.ts";
import { jsonTerminalSafe } from "../platform/terminal_text.ts";
import type { SubagentCalls, SubagentJson } from "./subagent_calls.ts";

export interface FinalJson {
  result: string;
  stop_reason: TurnOutcome["stopReason"];
  iterations: number;
  /** Each call; a `task` call's `subagent` holds its child's calls (subagent_calls.ts). */
  tool_calls: {
    id: string;
    name: string;
    arguments: unknown;
    result: unknown;
    subagent?: SubagentJson;
  }[];
  /**
   * Tokens over every request of the run (side requests included): the whole prompts, the
   * part the server processed and the part it reused from its cache (0 when it did not say).
   */
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_processed: number;
    prompt_tokens_reused: number;
  };
  session_id: string | null;
  /** Calls that needed approval and were denied (e.g. -p without --yes). */
  permission_denials: { id: string; name: string; arguments: unknown; reason: string }[];
  /** Calls the loop guard answered without running (they repeated identical calls). */
  repeated_calls: number;
  error?: string;
  /** `result` is what streamed before the server failed or the run was interrupted. */
  partial?: true;
  /** Why the session log could not be written (the run exits 1); absent when it was saved. */
  session_error?: string;
  /** Why the checkpoint of the turn failed (/undo cannot put its files back); absent when not. */
  checkpoint_error?: string;
}

/**
 * A call's arguments as JSON: calls that never ran (unknown tool, invalid arguments, past
 * --max-tool-calls) keep the model's text, which is parsed here when it is JSON so every
 * call's `arguments` has the same shape; text that is not JSON stays a string.
 */
function argumentsValue(args: unknown): unknown {
  if (typeof args !== "string") return args;
  // Text nested past the limit (refused as such) stays text: JSON.stringify would overflow.
  const parsed = parseShallowJson(args);
  return parsed === undefined ? args : parsed.value;
}

/**
 * Builds the final JSON object of a `-p` run.
 *
 * @example
 * ```ts
 * import { finalJson } from "./render_json.ts";
 * const out = finalJson({
 *   stopReason: "answered", text: "hi", iterations: 1, toolCalls: [],
 *   usage: { promptTokens: 1, completionTokens: 2 },
 * }, null);
 * if (out.result !== "hi") throw new Error();
 * ```
 */
export function finalJson(
  outcome: TurnOutcome,
  sessionId: string | null,
  options: {
    sessionError?: string | undefined;
    checkpointError?: string | undefined;
    subagents?: SubagentCalls;
  } = {},
): FinalJson {
  const out: FinalJson = {
    result: outcome.text,
    stop_reason: outcome.stopReason,
    iterations: outcome.iterations,
    tool_calls: outcome.toolCalls.map((call) => {
      const subagent = options.subagents?.of(call.id);
      return {
        id: call.id,
        name: call.name,
        arguments: argumentsValue(call.arguments),
        result: call.result,
        ...(subagent ? { subagent } : {}),
      };
    }),
    usage: {
      prompt_tokens: outcome.usage.promptTokens,
      completion_tokens: outcome.usage.completionTokens,
      prompt_tokens_processed: outcome.usage.promptTokens - (outcome.usage.reusedTokens ?? 0),
      prompt_tokens_reused: outcome.usage.reusedTokens ?? 0,
    },
    session_id: sessionId,
    permission_denials: outcome.toolCalls
      .filter((call) => call.status === "denied")
      .map((call) => ({
        id: call.id,
        name: call.name,
        arguments: argumentsValue(call.arguments),
        reason: call.result.error_message ?? "",
      })),
    repeated_calls: outcome.toolCalls.filter((call) => call.result.error_type === "repeated_call")
      .length,
  };
  if (outcome.errorMessage) out.error = outcome.errorMessage;
  if (outcome.partial) out.partial = true;
  if (options.sessionError) out.session_error = options.sessionError;
  if (options.checkpointError) out.checkpoint_error = options.checkpointError;
  return out;
}

/**
 * The stream-json writer of one `-p` run. A `tool_call` line waits for the call's
 * validation, so it carries the same arguments as the final object (schema defaults filled
 * in); a call that never validates is written with the arguments the model sent, just before
 * its `tool_result`.
 *
 * @param write Receives each line, without its newline.
 * @returns The loop-event sink, and `flush` for lines still waiting when the run ends.
 *
 * @example
 * ```ts
 * import { createStreamJson } from "./render_json.ts";
 * const lines: string[] = [];
 * const stream = createStreamJson((line) => lines.push(line));
 * stream.sink({ type: "message", message: {
 *   kind: "tool_call", content: "ls {}", data: { id: "c1", name: "ls", arguments: "{}" } } });
 * stream.sink({ type: "permission_decided", callId: "c1", name: "ls",
 *   decision: { decision: "allow", by: "mode" }, args: { path: "." } });
 * if (!lines[0]?.includes('"arguments":{"path":"."}')) throw new Error(lines.join("\n"));
 * ```
 */
export function createStreamJson(
  write: (line: string) => void,
): { sink: (event: LoopEvent) => void; flush: () => void } {
  const print = write;
  // Lines carry model text and tool output: C1 and bidi characters as \u escapes.
  write = (line) => print(jsonTerminalSafe(line));
  const waiting = new Map<string, { id: string; name: string; arguments: string }>();
  const callLine = (call: { id: string; name: string }, args: unknown) =>
    JSON.stringify({ type: "tool_call", id: call.id, name: call.name, arguments: args });
  const release = (id: string, args?: { value: unknown }) => {
    const call = waiting.get(id);
    if (call === undefined) return;
    waiting.delete(id);
    write(callLine(call, args ? args.value : argumentsValue(call.arguments)));
  };
  return {
    sink(event) {
      if (event.type === "message" && event.message.kind === "tool_call") {
        waiting.set(event.message.data.id, event.message.data);
        return;
      }
      if (event.type === "permission_decided") {
        release(event.callId, "args" in event ? { value: event.args } : undefined);
      } else if (event.type === "message" && event.message.kind === "tool_result") {
        release(event.message.data.callId);
      }
      const line = streamJsonLine(event);
      if (line !== undefined) write(line);
    },
    flush() {
      for (const id of [...waiting.keys()]) release(id);
    },
  };
}

/**
 * Converts a loop event to a stream-json line, or undefined for events not streamed.
 *
 * @example
 * ```ts
 * import { streamJsonLine } from "./render_json.ts";
 * if (streamJsonLine({ type: "text_delta", text: "a" }) !== '{"type":"text","text":"a"}') throw new Error();
 * ```
 */
export function streamJsonLine(event: LoopEvent): string | undefined {
  switch (event.type) {
    case "text_delta":
      return JSON.stringify({ type: "text", text: event.text });
    case "reasoning_delta":
      return JSON.stringify({ type: "reasoning", text: event.text });
    case "turn_started":
      return JSON.stringify({ type: "turn_started", iteration: event.iteration });
    case "message":
      if (event.message.kind === "tool_call") {
        return JSON.stringify({
          type: "tool_call",
          id: event.message.data.id,
          name: event.message.data.name,
          arguments: argumentsValue(event.message.data.arguments),
        });
      }
      if (event.message.kind === "tool_result") {
        return JSON.stringify({
          type: "tool_result",
          id: event.message.data.callId,
          name: event.message.data.name,
          result: event.message.data.result,
        });
      }
      return undefined;
    case "permission_decided":
      return JSON.stringify({
        type: "permission",
        id: event.callId,
        name: event.name,
        decision: event.decision.decision,
        by: event.decision.by,
        ...(event.decision.reason ? { reason: event.decision.reason } : {}),
      });
    case "limit_reached":
      return JSON.stringify({ type: "limit_reached", limit: event.limit, max: event.max });
    case "warning":
      return JSON.stringify({ type: "warning", message: event.message });
    case "subagent": {
      // A child's events, each under the task call that started it.
      const inner = streamJsonLine(event.event);
      return inner === undefined ? undefined : JSON.stringify({
        type: "subagent",
        id: event.callId,
        task_id: event.taskId,
        agent: event.agent,
        event: JSON.parse(inner),
      });
    }
    default:
      return undefined;
  }
}
