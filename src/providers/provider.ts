// The provider contract: one model turn from canonical messages. Implementations
// (openai_compat.ts, ollama.ts, scripted.ts, llama_cpp.ts) own their wire format and never
// throw for HTTP, network or model failures: they return a turn with stopReason "error".

import type { AgentError, Result } from "../errors.ts";
import type { Message, ThinkingBlock, ToolCall, ToolSchema, Usage } from "../messages.ts";
import type { RefusalNumbers } from "./context_refusal.ts";

/** What the loop asks for: one assistant turn. */
export interface ModelRequest {
  messages: readonly Message[];
  tools: readonly ToolSchema[];
  signal?: AbortSignal;
  /** At most this many tokens are generated (`harness doctor`'s short requests); default: the server's. */
  maxTokens?: number;
  /**
   * The server slot to run on (llama-server's `id_slot`), so a subagent keeps off its parent's
   * cached prompt (slot_scheduler.ts); servers without slots ignore it.
   */
  slot?: number;
}

/** Streamed while a turn is generated, for display only. */
export type ProviderEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  /** A tool call has started arriving (its name is known). */
  | { type: "tool_call_started"; index: number; name: string }
  /** Still waiting for the first chunk (about once a second). */
  | { type: "waiting"; elapsedMs: number }
  /** The server's prompt processing (llama-server `return_progress`), in tokens. */
  | { type: "prompt_progress"; processed: number; total: number; elapsedMs: number }
  /** Bytes of the answer received from the server (turn_output_cap.ts bounds a turn's). */
  | { type: "received"; bytes: number };

export type StopReason = "stop" | "tool_calls" | "length" | "error" | "aborted";

/** One completed model turn. Tool calls are only present when the stream completed. */
export interface AssistantTurn {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage?: Usage;
  /** Signed reasoning blocks to send back with later turns (Anthropic). */
  thinkingBlocks?: ThinkingBlock[];
  /** Set when stopReason is "error". */
  error?: AgentError;
  /**
   * The server refused the request as longer than its context window (or cut it): the loop
   * shortens the conversation and asks once more. `limit` is the window the server named,
   * `promptTokens` the size it counted for the refused request.
   */
  contextExceeded?: RefusalNumbers;
}

export interface Provider {
  /** Short name for display: "openai", "ollama", "scripted", "llama.cpp". */
  readonly name: string;
  /** The model name in use. */
  readonly model: string;
  /** Generates one assistant turn, streaming deltas to `onEvent`. Never throws. */
  complete(request: ModelRequest, onEvent?: (event: ProviderEvent) => void): Promise<AssistantTurn>;
  /**
   * The prompt tokens the server would count for a request, from its own tokenizer
   * (llama-server's /apply-template and /tokenize, vLLM's /tokenize); undefined when it cannot
   * say. Asked only when a request comes near the window. Never throws.
   */
  countTokens?(request: ModelRequest): Promise<number | undefined>;
}

/** Lists the models a server offers (used when --model is not given). */
export interface ModelLister {
  listModels(signal?: AbortSignal): Promise<Result<string[], AgentError>>;
}
