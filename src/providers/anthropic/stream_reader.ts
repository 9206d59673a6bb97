// Wire -> canonical for the Messages API: folds the streamed events (message_start, content
// blocks of text, thinking and tool_use with their deltas, message_delta, message_stop, ping,
// error) into one AssistantTurn, emitting provider events as text arrives.

import type { ThinkingBlock, ToolCall, Usage } from "../../messages.ts";
import type { AssistantTurn, ProviderEvent } from "../provider.ts";
import { readServerSentEvents } from "../sse_stream.ts";
import type { ResponseBody } from "../response_body.ts";

/** How a stream ended: with the server's stop reason (if it sent one), or an error event. */
export type MessageStreamEnd =
  | { kind: "ended"; stopReason: string | undefined; stopped: boolean; usage: Usage | undefined }
  | { kind: "stream_error"; errorType: string; message: string };

type OpenBlock =
  | { type: "text" }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; json: string; input: unknown }
  | { type: "other" };

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function newId(): string {
  return `toolu_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/**
 * Reads a Messages API stream into `turn`: text, reasoning, signed thinking blocks (in
 * `turn.thinkingBlocks`) and tool calls (when their block ends). Rejects when the connection
 * breaks or is aborted; the provider turns that into an error or aborted turn.
 *
 * @param body The response body.
 * @param turn The turn to fill in place.
 * @param onEvent Receives text, reasoning and tool-call events.
 * @returns The stop reason and usage, or the error event's type and message.
 *
 * @example
 * ```ts
 * import { readMessageStream } from "./stream_reader.ts";
 * const frames = [
 *   'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5}}}',
 *   'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
 *   'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
 *   'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
 *   'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}',
 *   'event: message_stop\ndata: {"type":"message_stop"}',
 * ];
 * const turn = { text: "", reasoning: "", toolCalls: [], stopReason: "stop" as const };
 * const end = await readMessageStream(new Response(frames.join("\n\n") + "\n\n").body!, turn);
 * if (end.kind !== "ended" || end.stopReason !== "end_turn" || turn.text !== "Hi") throw new Error();
 * if (end.usage?.promptTokens !== 5 || end.usage.completionTokens !== 1) throw new Error();
 * ```
 */
export async function readMessageStream(
  body: ResponseBody,
  turn: AssistantTurn,
  onEvent?: (event: ProviderEvent) => void,
): Promise<MessageStreamEnd> {
  const blocks = new Map<number, OpenBlock>();
  const thinking: ThinkingBlock[] = [];
  const calls: ToolCall[] = [];
  let stopReason: string | undefined;
  let stopped = false;
  let usage: Usage | undefined;
  const addUsage = (raw: unknown, replaceOutput: boolean) => {
    const u = record(raw);
    if (Object.keys(u).length === 0) return;
    usage ??= { promptTokens: 0, completionTokens: 0 };
    const input = count(u.input_tokens) + count(u.cache_read_input_tokens) +
      count(u.cache_creation_input_tokens);
    if (input > 0) {
      usage.promptTokens = input;
      // Tokens read from the prompt cache were not processed again.
      if ("cache_read_input_tokens" in u) usage.reusedTokens = count(u.cache_read_input_tokens);
    }
    if (replaceOutput || count(u.output_tokens) > 0) {
      usage.completionTokens = count(u.output_tokens);
    }
  };
  for await (const sse of readServerSentEvents(body)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(sse.data);
    } catch {
      await body.cancel().catch(() => {});
      return {
        kind: "stream_error",
        errorType: "",
        message: `an event is not JSON: ${sse.data.slice(0, 80)}`,
      };
    }
    const event = record(parsed);
    const type = text(event.type) || sse.event;
    const index = count(event.index);
    switch (type) {
      case "message_start":
        addUsage(record(event.message).usage, false);
        break;
      case "content_block_start": {
        const block = record(event.content_block);
        if (block.type === "text") {
          blocks.set(index, { type: "text" });
          appendText(turn, text(block.text), onEvent);
        } else if (block.type === "thinking") {
          blocks.set(index, { type: "thinking", thinking: "", signature: text(block.signature) });
          const open = blocks.get(index);
          if (open?.type === "thinking") appendThinking(turn, open, text(block.thinking), onEvent);
        } else if (block.type === "redacted_thinking") {
          blocks.set(index, { type: "redacted_thinking", data: text(block.data) });
        } else if (block.type === "tool_use") {
          const name = text(block.name);
          const id = text(block.id) || newId();
          blocks.set(index, { type: "tool_use", id, name, json: "", input: block.input });
          onEvent?.({ type: "tool_call_started", index: calls.length, name });
        } else {
          blocks.set(index, { type: "other" });
        }
        break;
      }
      case "content_block_delta": {
        const delta = record(event.delta);
        const open = blocks.get(index);
        if (delta.type === "text_delta") appendText(turn, text(delta.text), onEvent);
        else if (delta.type === "thinking_delta" && open?.type === "thinking") {
          appendThinking(turn, open, text(delta.thinking), onEvent);
        } else if (delta.type === "signature_delta" && open?.type === "thinking") {
          open.signature += text(delta.signature);
        } else if (delta.type === "input_json_delta" && open?.type === "tool_use") {
          open.json += text(delta.partial_json);
        }
        break;
      }
      case "content_block_stop": {
        const open = blocks.get(index);
        blocks.delete(index);
        if (open?.type === "thinking") {
          // Without a signature the server would refuse the block later: keep the text only.
          if (open.signature !== "") {
            thinking.push({ type: "thinking", thinking: open.thinking, signature: open.signature });
          }
        } else if (open?.type === "redacted_thinking") {
          thinking.push({ type: "redacted_thinking", data: open.data });
        } else if (open?.type === "tool_use" && open.name !== "") {
          calls.push({ id: open.id, name: open.name, arguments: argumentsText(open) });
        }
        break;
      }
      case "message_delta": {
        const delta = record(event.delta);
        if (typeof delta.stop_reason === "string") stopReason = delta.stop_reason;
        addUsage(event.usage, true);
        break;
      }
      case "message_stop":
        stopped = true;
        break;
      case "error": {
        const error = record(event.error);
        return {
          kind: "stream_error",
          errorType: text(error.type),
          message: text(error.message) || text(error.type) || "unknown error",
        };
      }
      default:
        break; // ping, and event types added later
    }
  }
  turn.toolCalls.push(...calls);
  if (thinking.length > 0) turn.thinkingBlocks = thinking;
  return { kind: "ended", stopReason, stopped, usage };
}

function appendText(
  turn: AssistantTurn,
  piece: string,
  onEvent?: (event: ProviderEvent) => void,
): void {
  if (piece === "") return;
  turn.text += piece;
  onEvent?.({ type: "text_delta", text: piece });
}

function appendThinking(
  turn: AssistantTurn,
  block: { thinking: string },
  piece: string,
  onEvent?: (event: ProviderEvent) => void,
): void {
  if (piece === "") return;
  block.thinking += piece;
  turn.reasoning += piece;
  onEvent?.({ type: "reasoning_delta", text: piece });
}

/** The call's arguments: the streamed JSON, else the start block's input, else `{}`. */
function argumentsText(block: { json: string; input: unknown }): string {
  if (block.json.trim() !== "") return block.json;
  const input = record(block.input);
  return JSON.stringify(input);
}
