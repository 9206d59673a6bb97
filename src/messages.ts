// Canonical messages: the one shape the loop, the session log and the REPL share.
// Provider modules convert these to and from their wire formats; nothing else in the
// project knows `choices`, `delta` or `tool_calls`. This module imports nothing.

/**
 * Token counts reported by a model server for one model turn. A server that keeps its KV cache
 * reuses the prefix a request shares with the one before; only the rest is processed.
 */
export interface Usage {
  /** Tokens of the whole prompt as the server counted them (reused or processed). */
  promptTokens: number;
  completionTokens: number;
  /**
   * Prompt tokens the server reused from its cache instead of processing them (llama-server
   * `cache_n`, `cached_tokens`, Ollama `prompt_eval_cached_count`); absent when it did not say.
   */
  reusedTokens?: number;
}

/**
 * Adds one request's usage to a running total (the reused count once any request reported it).
 *
 * @example
 * ```ts
 * import { sumUsage, type Usage } from "./messages.ts";
 * const total: Usage = { promptTokens: 10, completionTokens: 1 };
 * sumUsage(total, { promptTokens: 20, completionTokens: 2, reusedTokens: 10 });
 * if (total.promptTokens !== 30 || total.reusedTokens !== 10) throw new Error();
 * ```
 */
export function sumUsage(total: Usage, usage: Usage): void {
  total.promptTokens += usage.promptTokens;
  total.completionTokens += usage.completionTokens;
  if (usage.reusedTokens !== undefined) {
    total.reusedTokens = (total.reusedTokens ?? 0) + usage.reusedTokens;
  }
}

/** A tool call as the model asked for it. `arguments` is the raw JSON text. */
export interface ToolCall {
  /** Our id for the call (generated when the server sent none). */
  id: string;
  name: string;
  /** JSON text of the arguments exactly as received (an object from the wire is stringified). */
  arguments: string;
}

/** Error categories of a {@linkcode ToolResult}. */
export type ToolErrorType =
  | "none"
  | "not_found"
  | "validation_failed"
  | "permission_denied"
  | "io_error"
  | "parse_error"
  | "timeout"
  | "internal_error"
  /** An MCP server answered the call with `isError` (src/mcp/mcp_result.ts). */
  | "tool_error"
  | "limit_reached"
  /** Not run: it repeats identical calls that returned the same result (src/agent/loop_guard.ts). */
  | "repeated_call"
  | "cancelled"
  | "interrupted";

/** The structured result of every tool call; sent to the model as JSON. */
export interface ToolResult {
  success: boolean;
  data: string | null;
  error_message: string | null;
  error_type: ToolErrorType;
  metadata: {
    execution_time_ms: number;
    data_size_bytes: number;
    /** Unix epoch milliseconds, as in the original design (`"timestamp": 1705680000000`). */
    timestamp: number;
    /**
     * Set when `data` was cut: how many bytes or characters were removed; where the output
     * was saved, how many bytes the file holds (`saved_bytes`) and how many the tool produced
     * (`output_bytes`: for run_command, all the command printed).
     */
    truncated?: {
      cut: number;
      unit: "bytes" | "chars";
      full_output_path?: string;
      saved_bytes?: number;
      output_bytes?: number;
    };
  };
}

/** The image formats harness sends (checked by their first bytes, src/platform/image_file.ts). */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/**
 * An image in a message: the bytes as base64, with their SHA-256 (the session log stores each
 * image once under it). Providers send it in their wire format.
 */
export interface ImagePart {
  mediaType: ImageMediaType;
  /** The image's bytes, base64. */
  data: string;
  /** SHA-256 of the bytes, hex. */
  sha256: string;
  /** Size of the bytes. */
  bytes: number;
  /** Where it came from (a path or a name), for the terminal and the log. */
  name?: string;
}

/** System prompt or user message; a user message may carry images. */
export interface TextMessage {
  kind: "system" | "user";
  content: string;
  data?: { images?: ImagePart[] };
}

/**
 * A reasoning block as a server signed it (Anthropic's `thinking` / `redacted_thinking`):
 * sent back unchanged with later turns, or the server rejects the conversation.
 */
export type ThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/** The assistant's text of one model turn (its tool calls follow as `tool_call` messages). */
export interface AssistantMessage {
  kind: "assistant";
  content: string;
  data: { reasoning?: string; usage?: Usage; thinkingBlocks?: ThinkingBlock[] };
}

/** One tool call the model made; it belongs to the assistant message before it. */
export interface ToolCallMessage {
  kind: "tool_call";
  /** Human-readable: `name {"arg": ...}`. */
  content: string;
  data: ToolCall;
}

/** The result for one tool call; `content` is the JSON sent to the model. */
export interface ToolResultMessage {
  kind: "tool_result";
  content: string;
  /**
   * `images`: what the tool showed the model (read_file of an image), sent with the result;
   * `changedArguments`: the arguments (JSON) the call ran with when the user changed the
   * model's at the prompt.
   */
  data: {
    callId: string;
    name: string;
    result: ToolResult;
    images?: ImagePart[];
    changedArguments?: string;
  };
}

export type Message = TextMessage | AssistantMessage | ToolCallMessage | ToolResultMessage;

/** JSON Schema of one tool, as offered to the model. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * Builds a tool_call message for a call.
 *
 * @example
 * ```ts
 * import { toolCallMessage } from "./messages.ts";
 * const m = toolCallMessage({ id: "c1", name: "ls", arguments: "{}" });
 * if (m.content !== "ls {}") throw new Error(m.content);
 * ```
 */
export function toolCallMessage(call: ToolCall): ToolCallMessage {
  return { kind: "tool_call", content: `${call.name} ${call.arguments}`, data: call };
}

/**
 * Builds a tool_result message whose content is the result as JSON.
 *
 * @example
 * ```ts
 * import { toolResultMessage, makeToolResult } from "./messages.ts";
 * const m = toolResultMessage("c1", "ls", makeToolResult({ data: "ok" }));
 * if (JSON.parse(m.content).data !== "ok") throw new Error();
 * ```
 */
export function toolResultMessage(
  callId: string,
  name: string,
  result: ToolResult,
  images?: readonly ImagePart[],
): ToolResultMessage {
  return {
    kind: "tool_result",
    content: JSON.stringify(result),
    data: { callId, name, result, ...(images?.length ? { images: [...images] } : {}) },
  };
}

/**
 * The images a message carries (a user message's or a tool result's), else none.
 *
 * @example
 * ```ts
 * import { messageImages } from "./messages.ts";
 * if (messageImages({ kind: "user", content: "hi" }).length !== 0) throw new Error();
 * ```
 */
export function messageImages(message: Message): readonly ImagePart[] {
  if (message.kind === "user" || message.kind === "tool_result") {
    return message.data?.images ?? [];
  }
  return [];
}

/**
 * Builds a ToolResult. A result with an `error_type` other than "none" is a failure.
 *
 * @example
 * ```ts
 * import { makeToolResult } from "./messages.ts";
 * const r = makeToolResult({ errorType: "not_found", errorMessage: "No such file" });
 * if (r.success) throw new Error();
 * ```
 */
export function makeToolResult(
  options: {
    data?: string | null;
    errorType?: ToolErrorType;
    errorMessage?: string;
    executionTimeMs?: number;
    now?: Date;
  },
): ToolResult {
  const errorType = options.errorType ?? "none";
  const data = options.data ?? null;
  return {
    success: errorType === "none",
    data,
    error_message: errorType === "none" ? null : (options.errorMessage ?? errorType),
    error_type: errorType,
    metadata: {
      execution_time_ms: Math.round((options.executionTimeMs ?? 0) * 1000) / 1000,
      data_size_bytes: data === null ? 0 : new TextEncoder().encode(data).length,
      timestamp: (options.now ?? new Date()).getTime(),
    },
  };
}
