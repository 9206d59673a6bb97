// Bounds what one model turn may stream: a server (or an in-process model) whose answer never
// ends would otherwise grow memory, the terminal and the session log without limit. A wrapper
// around any provider counts the streamed pieces of text (about one token each) and the bytes
// received, and past either limit stops the request and ends the turn with an error that names
// the setting to raise. Providers report bytes with `received` events.

import type { AgentError } from "../errors.ts";
import type { AssistantTurn, ModelRequest, Provider, ProviderEvent } from "./provider.ts";

/** The two limits of one turn. */
export interface TurnOutputLimits {
  /** Streamed pieces of text or reasoning (`max_turn_tokens`). */
  maxTokens: number;
  /** Bytes received, or characters of text from an in-process model (`max_turn_bytes`). */
  maxBytes: number;
}

/** 65,536 pieces (a long reasoning answer fits) and 16 MiB. */
export const DEFAULT_TURN_OUTPUT_LIMITS: TurnOutputLimits = {
  maxTokens: 65_536,
  maxBytes: 16 * 1024 * 1024,
};

/** Where the answer comes from, for the error message. */
export interface TurnSource {
  baseUrl: string;
  /** The in-process model (`baseUrl` is then its file). */
  inProcess?: boolean;
}

/**
 * Wraps a provider so that each turn stops at the limits. A stopped turn keeps the text that
 * streamed (as after an interrupt), drops unfinished tool calls, and ends with stop reason
 * "error" and a `provider_stream` error naming the limit and its setting.
 *
 * @param provider The provider to bound.
 * @param limits The limits of one turn.
 * @param source The server, for the error message.
 * @returns A provider with the same name and model.
 *
 * @example
 * ```ts
 * import { withTurnOutputCap } from "./turn_output_cap.ts";
 * const endless = {
 *   name: "endless",
 *   model: "m",
 *   async complete(request: { signal?: AbortSignal }, onEvent?: (e: { type: "text_delta"; text: string }) => void) {
 *     let text = "";
 *     while (!request.signal?.aborted) {
 *       text += "x";
 *       onEvent?.({ type: "text_delta", text: "x" });
 *       await Promise.resolve();
 *     }
 *     return { text, reasoning: "", toolCalls: [], stopReason: "aborted" as const };
 *   },
 * };
 * const turn = await withTurnOutputCap(endless, { maxTokens: 10, maxBytes: 1000 }, { baseUrl: "u" })
 *   .complete({ messages: [], tools: [] });
 * if (turn.stopReason !== "error" || turn.text.length > 12) throw new Error(JSON.stringify(turn));
 * ```
 */
export function withTurnOutputCap(
  provider: Provider,
  limits: TurnOutputLimits,
  source: TurnSource,
): Provider {
  return {
    name: provider.name,
    model: provider.model,
    // The server's own token count is a short request of its own, not a turn.
    ...(provider.countTokens ? { countTokens: provider.countTokens.bind(provider) } : {}),
    async complete(request: ModelRequest, onEvent?: (event: ProviderEvent) => void) {
      const stop = new AbortController();
      const signal = request.signal ? AbortSignal.any([request.signal, stop.signal]) : stop.signal;
      const count = { tokens: 0, received: 0, characters: 0 };
      let passed: "tokens" | "bytes" | undefined;
      const turn = await provider.complete({ ...request, signal }, (event) => {
        if (passed !== undefined) return;
        if (event.type === "received") count.received += event.bytes;
        if (event.type === "text_delta" || event.type === "reasoning_delta") {
          count.tokens++;
          count.characters += event.text.length;
        }
        if (count.tokens > limits.maxTokens) passed = "tokens";
        else if (Math.max(count.received, count.characters) > limits.maxBytes) passed = "bytes";
        if (passed === undefined) onEvent?.(event);
        else stop.abort(new DOMException("the turn passed its output limit", "AbortError"));
      });
      if (passed === undefined || request.signal?.aborted) return turn;
      return stoppedTurn(turn, passed, { limits, source });
    },
  };
}

function stoppedTurn(
  turn: AssistantTurn,
  passed: "tokens" | "bytes",
  { limits, source }: { limits: TurnOutputLimits; source: TurnSource },
): AssistantTurn {
  const limit = passed === "tokens"
    ? `${limits.maxTokens.toLocaleString("en-US")} streamed pieces of text (about one token ` +
      `each): raise max_turn_tokens in the config`
    : `${limits.maxBytes.toLocaleString("en-US")} bytes: raise max_turn_bytes in the config`;
  const error: AgentError = {
    kind: "provider_stream",
    baseUrl: source.baseUrl,
    message: `the answer did not end, so harness stopped it after ${limit} if answers ` +
      "are that long, or check the model and its server",
    ...(source.inProcess ? { inProcess: true } : {}),
  };
  return {
    text: turn.text,
    reasoning: turn.reasoning,
    toolCalls: [],
    stopReason: "error",
    error,
    ...(turn.usage ? { usage: turn.usage } : {}),
  };
}
