// Canonical messages -> Messages API request parts: the system prompt goes to the top-level
// `system`; text, signed thinking blocks and tool calls become one assistant message's content
// blocks; the results of one turn become `tool_result` blocks of one user message.

import type { Message, ThinkingBlock, ToolSchema } from "../../messages.ts";
import { parseShallowJson } from "../../platform/json_depth.ts";
import { isRecord } from "../../platform/json_values.ts";

/** A content block of a request message. */
export type WireBlock =
  | { type: "text"; text: string }
  | ThinkingBlock
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: true };

/** One message of a request. */
export interface WireMessage {
  role: "user" | "assistant";
  content: WireBlock[];
}

/** One tool as the Messages API takes it. */
export interface WireTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * A tool-use id the API accepts (`^[a-zA-Z0-9_-]+$`): ids from other providers or recovered
 * from text keep their allowed characters, the rest become `_`. The same id always maps to
 * the same wire id, so a call and its result still pair.
 *
 * @example
 * ```ts
 * import { wireToolId } from "./wire_messages.ts";
 * if (wireToolId("call:1.a") !== "call_1_a" || wireToolId("") !== "call") throw new Error();
 * ```
 */
export function wireToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_") || "call";
}

function inputObject(text: string): Record<string, unknown> {
  // Arguments nested past the limit were refused; sending them back would overflow the stack.
  const value = parseShallowJson(text)?.value;
  return isRecord(value) ? value : {};
}

/**
 * Converts the canonical history. System messages are joined into `system`; consecutive
 * messages of one role are merged (the API wants turns to alternate), with tool results
 * first in a user message; empty text is left out (the API rejects empty text blocks).
 *
 * @param messages The canonical history.
 * @returns The system prompt and the wire messages.
 *
 * @example
 * ```ts
 * import { toAnthropicMessages } from "./wire_messages.ts";
 * import { makeToolResult, toolResultMessage } from "../../messages.ts";
 * const { system, messages } = toAnthropicMessages([
 *   { kind: "system", content: "Be brief" },
 *   { kind: "user", content: "hi" },
 *   { kind: "assistant", content: "", data: {} },
 *   { kind: "tool_call", content: "ls {}", data: { id: "a", name: "ls", arguments: "{}" } },
 *   { kind: "tool_call", content: "ls {}", data: { id: "b", name: "ls", arguments: "{}" } },
 *   toolResultMessage("a", "ls", makeToolResult({ data: "x" })),
 *   toolResultMessage("b", "ls", makeToolResult({ errorType: "not_found" })),
 * ]);
 * if (system !== "Be brief" || messages.length !== 3) throw new Error();
 * const results = messages[2]!.content;
 * if (results.length !== 2 || results[1]?.type !== "tool_result" || !results[1].is_error) {
 *   throw new Error(JSON.stringify(results));
 * }
 * ```
 */
export function toAnthropicMessages(
  messages: readonly Message[],
): { system: string; messages: WireMessage[] } {
  const system: string[] = [];
  const wire: WireMessage[] = [];
  const add = (role: WireMessage["role"], block: WireBlock, first = false) => {
    const last = wire.at(-1);
    if (last?.role !== role) {
      wire.push({ role, content: [block] });
    } else if (first) {
      // Tool results go before any text in a user message.
      const at = last.content.findIndex((b) => b.type !== "tool_result");
      last.content.splice(at < 0 ? last.content.length : at, 0, block);
    } else {
      last.content.push(block);
    }
  };
  for (const message of messages) {
    switch (message.kind) {
      case "system":
        if (message.content !== "") system.push(message.content);
        break;
      case "user":
        if (message.content !== "") add("user", { type: "text", text: message.content });
        break;
      case "assistant": {
        // A new model turn: never merge it into the previous assistant message.
        const blocks: WireBlock[] = [...(message.data.thinkingBlocks ?? [])];
        if (message.content.trim() !== "") blocks.push({ type: "text", text: message.content });
        if (blocks.length === 0) break;
        wire.push({ role: "assistant", content: blocks });
        break;
      }
      case "tool_call":
        add("assistant", {
          type: "tool_use",
          id: wireToolId(message.data.id),
          name: message.data.name,
          input: inputObject(message.data.arguments),
        });
        break;
      case "tool_result":
        add("user", {
          type: "tool_result",
          tool_use_id: wireToolId(message.data.callId),
          content: message.content,
          ...(message.data.result.success ? {} : { is_error: true as const }),
        }, true);
        break;
      default: {
        const never: never = message;
        throw new Error(`unhandled message ${JSON.stringify(never)}`);
      }
    }
  }
  return { system: system.join("\n\n"), messages: wire };
}

/**
 * Converts a tool schema to the Messages API's tool shape.
 *
 * @example
 * ```ts
 * import { toAnthropicTool } from "./wire_messages.ts";
 * const t = toAnthropicTool({ name: "ls", description: "List", parameters: { type: "object" } });
 * if (t.input_schema.type !== "object") throw new Error();
 * ```
 */
export function toAnthropicTool(tool: ToolSchema): WireTool {
  // The JSON Schema dialect line of z.toJSONSchema says nothing the API needs.
  const { $schema: _dialect, ...schema } = tool.parameters;
  return { name: tool.name, description: tool.description, input_schema: schema };
}
