// The /api/chat message shapes in both directions: canonical messages become Ollama's wire
// messages (tool-call arguments as objects, results as role "tool"), and wire tool calls
// become canonical ones. The provider converts the history before each request and reads
// each streamed tool call through here.

import type { Message, ToolCall } from "../../messages.ts";
import { isRecord } from "../../platform/json_values.ts";
import { parseShallowJson } from "../../platform/json_depth.ts";

/** One tool call inside a wire assistant message. */
export interface WireToolCall {
  id?: string;
  function: { name: string; arguments: Record<string, unknown> };
}

/** One message in an /api/chat request. */
export interface WireMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  tool_calls?: WireToolCall[];
  tool_name?: string;
  tool_call_id?: string;
}

function argumentsObject(text: string): Record<string, unknown> {
  // Arguments nested past the limit were refused; sending them back would overflow the stack.
  const value = parseShallowJson(text)?.value;
  return isRecord(value) ? value : {};
}

/**
 * Converts canonical messages to /api/chat messages: tool calls join the assistant message
 * before them (arguments as objects); results become role "tool" with `tool_name`.
 *
 * @param messages The canonical history.
 * @returns The wire messages, in order.
 *
 * @example
 * ```ts
 * import { toOllamaMessages } from "./wire_messages.ts";
 * const wire = toOllamaMessages([
 *   { kind: "assistant", content: "", data: {} },
 *   { kind: "tool_call", content: "ls {}", data: { id: "c1", name: "ls", arguments: '{"a":1}' } },
 * ]);
 * if (wire[0]?.tool_calls?.[0]?.function.arguments.a !== 1) throw new Error();
 * ```
 */
export function toOllamaMessages(messages: readonly Message[]): WireMessage[] {
  const wire: WireMessage[] = [];
  for (const message of messages) {
    switch (message.kind) {
      case "system":
      case "user":
        wire.push({ role: message.kind, content: message.content });
        break;
      case "assistant":
        wire.push({ role: "assistant", content: message.content });
        break;
      case "tool_call": {
        let last = wire.at(-1);
        if (last?.role !== "assistant") {
          last = { role: "assistant", content: "" };
          wire.push(last);
        }
        (last.tool_calls ??= []).push({
          id: message.data.id,
          function: { name: message.data.name, arguments: argumentsObject(message.data.arguments) },
        });
        break;
      }
      case "tool_result":
        wire.push({
          role: "tool",
          content: message.content,
          tool_name: message.data.name,
          tool_call_id: message.data.callId,
        });
        break;
      default: {
        const never: never = message;
        throw new Error(`unhandled message ${JSON.stringify(never)}`);
      }
    }
  }
  return wire;
}

function randomId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/**
 * Reads one wire tool call as a canonical one: the arguments object is stringified and an
 * id is generated when the server sent none.
 *
 * @param raw One element of a streamed message's `tool_calls`.
 * @returns The call, or `undefined` when it has no function name.
 *
 * @example
 * ```ts
 * import { readToolCall } from "./wire_messages.ts";
 * const call = readToolCall({ function: { name: "ls", arguments: { path: "." } } });
 * if (call?.arguments !== '{"path":"."}' || !call.id.startsWith("call_")) throw new Error();
 * if (readToolCall({ function: {} }) !== undefined) throw new Error();
 * ```
 */
export function readToolCall(raw: unknown): ToolCall | undefined {
  if (!isRecord(raw) || !isRecord(raw.function)) return undefined;
  const name = raw.function.name;
  if (typeof name !== "string" || name === "") return undefined;
  const args = raw.function.arguments;
  const text = typeof args === "string" ? (args.trim() || "{}") : JSON.stringify(args ?? {});
  const id = typeof raw.id === "string" && raw.id !== "" ? raw.id : randomId();
  return { id, name, arguments: text };
}
