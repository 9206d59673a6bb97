// The numbers a server gives when it refuses a request as longer than its window: llama-server
// (and Ollama on it) `n_prompt_tokens` / `n_ctx` or "request (9060 tokens) exceeds the available
// context size (8192 tokens)", vLLM's "maximum context length is 4096 tokens ... 12000 in the
// messages". The conversation cuts by the server's own count instead of its estimate.

import { isRecord } from "../platform/json_values.ts";

/** What a refusal said: the window and the refused request's prompt tokens, when stated. */
export interface RefusalNumbers {
  /** The server's window (`n_ctx`, "maximum context length is N"). */
  limit?: number;
  /** The prompt tokens the server counted in the refused request. */
  promptTokens?: number;
}

const PROMPT_PATTERNS = [
  /request \((\d+) tokens\)/i,
  /\((\d+) in the messages/i,
  /requested (\d+) tokens in the messages/i,
  /request has (\d+) input tokens/i,
  /prompt is too long: (\d+) tokens/i,
];
const LIMIT_PATTERNS = [
  /maximum context length is (\d+)/i,
  /available context size \((\d+) tokens\)/i,
  /tokens? > (\d+) maximum/i,
];

/**
 * Reads the window and the prompt's size out of a context error's body and message.
 *
 * @param body The parsed error body (an object with `error`, or the error object itself).
 * @param message The error's text.
 * @returns The numbers found; empty when the server stated none.
 *
 * @example
 * ```ts
 * import { refusalNumbers } from "./context_refusal.ts";
 * const found = refusalNumbers(undefined,
 *   "request (9060 tokens) exceeds the available context size (8192 tokens), try increasing it");
 * if (found.promptTokens !== 9060 || found.limit !== 8192) throw new Error(JSON.stringify(found));
 * ```
 */
export function refusalNumbers(body: unknown, message: string): RefusalNumbers {
  const inner = isRecord(body) && isRecord(body.error) ? body.error : body;
  const field = (key: string) => {
    const value = isRecord(inner) ? inner[key] : undefined;
    return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
  };
  const first = (patterns: RegExp[]) => {
    for (const pattern of patterns) {
      const found = pattern.exec(message)?.[1];
      if (found !== undefined && Number(found) > 0) return Number(found);
    }
    return undefined;
  };
  const limit = field("n_ctx") ?? first(LIMIT_PATTERNS);
  const promptTokens = field("n_prompt_tokens") ?? first(PROMPT_PATTERNS);
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(promptTokens === undefined ? {} : { promptTokens }),
  };
}
