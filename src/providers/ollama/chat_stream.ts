// Wire -> canonical for /api/chat: folds the streamed NDJSON lines (thinking, content, tool
// calls, the final `done` line with its counts) into one AssistantTurn, emitting provider
// events as text arrives. The provider hands it the response body and judges the outcome.

import type { Usage } from "../../messages.ts";
import type { AssistantTurn, ProviderEvent } from "../provider.ts";
import { readNdjson } from "./ndjson_stream.ts";
import { readToolCall } from "./wire_messages.ts";
import { isRecord } from "../../platform/json_values.ts";
import type { ResponseBody } from "../response_body.ts";

/** How a chat stream ended: normally (maybe without a `done` line) or with a bad line. */
export type ChatStreamEnd =
  | { kind: "ended"; doneReason: string | undefined; usage: Usage | undefined }
  | { kind: "stream_error"; message: string };

/**
 * Reads an /api/chat stream into `turn`: appends reasoning, text and tool calls as they
 * arrive. A line that is not a JSON object cancels the body. Rejects when the connection
 * breaks or is aborted; the provider turns that into an error or aborted turn.
 *
 * @param body The response body.
 * @param turn The turn to fill in place.
 * @param onEvent Receives text, reasoning and tool-call events.
 * @returns `doneReason` (undefined when no `done` line came) and usage, or a stream error.
 *
 * @example
 * ```ts
 * import { readChatStream } from "./chat_stream.ts";
 * const body = new Response(
 *   '{"message":{"content":"Hi"}}\n{"done":true,"done_reason":"stop","eval_count":1}\n',
 * ).body!;
 * const turn = { text: "", reasoning: "", toolCalls: [], stopReason: "stop" as const };
 * const end = await readChatStream(body, turn);
 * if (end.kind !== "ended" || end.doneReason !== "stop" || turn.text !== "Hi") throw new Error();
 * ```
 */
export async function readChatStream(
  body: ResponseBody,
  turn: AssistantTurn,
  onEvent?: (event: ProviderEvent) => void,
): Promise<ChatStreamEnd> {
  let doneReason: string | undefined;
  let usage: Usage | undefined;
  for await (const line of readNdjson(body)) {
    if (line instanceof SyntaxError || !isRecord(line)) {
      await body.cancel().catch(() => {});
      return { kind: "stream_error", message: "a line is not JSON" };
    }
    if (typeof line.error === "string") return { kind: "stream_error", message: line.error };
    const message = isRecord(line.message) ? line.message : {};
    if (typeof message.thinking === "string" && message.thinking !== "") {
      turn.reasoning += message.thinking;
      onEvent?.({ type: "reasoning_delta", text: message.thinking });
    }
    if (typeof message.content === "string" && message.content !== "") {
      turn.text += message.content;
      onEvent?.({ type: "text_delta", text: message.content });
    }
    if (Array.isArray(message.tool_calls)) {
      for (const raw of message.tool_calls) {
        const call = readToolCall(raw);
        if (!call) continue;
        turn.toolCalls.push(call);
        onEvent?.({ type: "tool_call_started", index: turn.toolCalls.length - 1, name: call.name });
      }
    }
    if (line.done === true) {
      doneReason = typeof line.done_reason === "string" ? line.done_reason : "stop";
      // prompt_eval_count is the whole prompt; newer Ollama releases say how much of it
      // came from the cache (prompt_eval_cached_count).
      const prompt = line.prompt_eval_count;
      const completion = line.eval_count;
      const cached = line.prompt_eval_cached_count;
      if (typeof prompt === "number" || typeof completion === "number") {
        const promptTokens = typeof prompt === "number" ? prompt : 0;
        usage = {
          promptTokens,
          completionTokens: typeof completion === "number" ? completion : 0,
          ...(typeof cached === "number" ? { reusedTokens: Math.min(cached, promptTokens) } : {}),
        };
      }
    }
  }
  return { kind: "ended", doneReason, usage };
}
