// The speed check of `harness doctor`: one short request (a prompt of about 500 tokens that
// starts with a nonce, so no cached prefix is reused; at most 64 tokens of answer), timed on
// the wall clock as the user waits. Prompt speed is the server's prompt token count over the
// time to the first streamed token; generation speed is the answer's tokens after the first
// over the time from the first to the end.

import { type AgentError, err, ok, type Result } from "../../errors.ts";
import type { Provider, ProviderEvent } from "../provider.ts";
import { stopped } from "./tool_call_canary.ts";

/** Tokens the speed request may generate. */
export const SPEED_MAX_TOKENS = 64;

/** What the speed request measured; null where the server gave no token counts. */
export interface SpeedResult {
  promptTokensPerS: number | null;
  generatedTokensPerS: number | null;
  /** The server's counts for the request, when it sent them. */
  promptTokens?: number;
  completionTokens?: number;
}

/** Sixty numbered lines: about 500 tokens with common tokenizers. */
function speedPrompt(nonce: string): string {
  const lines = Array.from({ length: 60 }, (_, i) => `Line ${i + 1}: the value is ${i + 1}.`);
  return `Check ${nonce}.\n${lines.join("\n")}\nContinue the list with the next lines.`;
}

/**
 * Speeds from a request's timings and counts.
 *
 * @param times Milliseconds: request sent, first token streamed, answer complete.
 * @param usage The server's token counts, if it sent them.
 * @returns Tokens per second, rounded to one decimal; null when unknown.
 *
 * @example
 * ```ts
 * import { speedsFrom } from "./speed_probe.ts";
 * const s = speedsFrom({ sent: 0, first: 500, end: 2500 }, { promptTokens: 500, completionTokens: 41 });
 * if (s.promptTokensPerS !== 1000 || s.generatedTokensPerS !== 20) throw new Error(JSON.stringify(s));
 * ```
 */
export function speedsFrom(
  times: { sent: number; first: number | undefined; end: number },
  usage: { promptTokens: number; completionTokens: number } | undefined,
): SpeedResult {
  const rate = (tokens: number, ms: number) =>
    tokens > 0 && ms > 0 ? Math.round((tokens / (ms / 1000)) * 10) / 10 : null;
  if (usage === undefined) return { promptTokensPerS: null, generatedTokensPerS: null };
  const { promptTokens, completionTokens } = usage;
  const first = times.first;
  return {
    promptTokensPerS: first === undefined ? null : rate(promptTokens, first - times.sent),
    generatedTokensPerS: first === undefined ? null : rate(completionTokens - 1, times.end - first),
    promptTokens,
    completionTokens,
  };
}

/**
 * Sends the speed request and times it.
 *
 * @param provider The provider as opened.
 * @param options The nonce, the server (for errors), an abort signal (a deadline) and a clock
 *   in milliseconds (default performance.now).
 * @returns The speeds, or the server's error.
 */
export async function measureSpeed(
  provider: Provider,
  options: { nonce: string; baseUrl: string; signal?: AbortSignal; now?: () => number },
): Promise<Result<SpeedResult, AgentError>> {
  const now = options.now ?? (() => performance.now());
  let first: number | undefined;
  const onEvent = (event: ProviderEvent) => {
    if (
      first === undefined &&
      (event.type === "text_delta" || event.type === "reasoning_delta" ||
        event.type === "tool_call_started")
    ) {
      first = now();
    }
  };
  const sent = now();
  const turn = await provider.complete({
    messages: [{ kind: "user", content: speedPrompt(options.nonce) }],
    tools: [],
    maxTokens: SPEED_MAX_TOKENS,
    ...(options.signal ? { signal: options.signal } : {}),
  }, onEvent);
  const end = now();
  if (turn.stopReason === "error" || turn.stopReason === "aborted") {
    return err(turn.error ?? stopped(options.baseUrl));
  }
  return ok(speedsFrom({ sent, first, end }, turn.usage));
}
