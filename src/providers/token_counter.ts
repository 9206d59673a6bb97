// Token counts of a request as one model's server counts them, without its tokenizer: the
// characters sent divided by a characters-per-token ratio learned from the server's own
// `usage.prompt_tokens` (and corrected by the count in a refusal or /tokenize). Starts at four
// characters per token; code and non-English text are often nearer two.

import type { Message, ToolSchema } from "../messages.ts";

/** Characters per token before the server has said anything. */
export const DEFAULT_CHARS_PER_TOKEN = 4;
/** Per-message overhead of chat templates, in tokens. */
export const MESSAGE_OVERHEAD = 4;
/** Prompts smaller than this teach nothing (the template's fixed text dominates). */
const MIN_LEARN_TOKENS = 256;

/** Where the ratio in use came from, for /context. */
export type CalibrationSource = "default" | "usage" | "refusal" | "tokenize";

/** What one request sends, in characters: message contents and tool schemas. */
export interface RequestSize {
  chars: number;
  messages: number;
}

/**
 * The characters a request sends: every message's content and the tool schemas' JSON.
 *
 * @param messages The request's messages.
 * @param tools The tool schemas sent with it.
 * @returns Characters and message count.
 *
 * @example
 * ```ts
 * import { requestSize } from "./token_counter.ts";
 * const size = requestSize([{ kind: "user", content: "hello" }], []);
 * if (size.chars !== 7 || size.messages !== 1) throw new Error(JSON.stringify(size));
 * ```
 */
export function requestSize(
  messages: readonly Message[],
  tools: readonly ToolSchema[],
): RequestSize {
  const chars = messages.reduce((sum, m) => sum + m.content.length, 0) + schemaChars(tools);
  return { chars, messages: messages.length };
}

/**
 * The characters of the tool schemas as sent (the JSON of `{type, function}` entries); two for
 * no tools.
 *
 * @example
 * ```ts
 * import { schemaChars } from "./token_counter.ts";
 * if (schemaChars([]) !== 2) throw new Error();
 * ```
 */
export function schemaChars(tools: readonly ToolSchema[]): number {
  return JSON.stringify(
    tools.map(({ name, description, parameters }) => ({
      type: "function",
      function: { name, description, parameters },
    })),
  ).length;
}

/**
 * Counts tokens for one model. `observe` learns from what the server counted for a request
 * that was sent; the latest whole-prompt count wins, since each request holds the conversation
 * so far.
 *
 * @example
 * ```ts
 * import { TokenCounter } from "./token_counter.ts";
 * const counter = new TokenCounter();
 * const request = { chars: 20_000, messages: 5 };
 * counter.observe(request, 10_020, "usage"); // the server counted 10,020 tokens: 2 chars each
 * if (counter.charsPerToken !== 2 || counter.text("abcd") !== 2) throw new Error();
 * ```
 */
export class TokenCounter {
  /** The ratio in use. */
  charsPerToken = DEFAULT_CHARS_PER_TOKEN;
  /** Where it came from. */
  source: CalibrationSource = "default";

  /** Tokens of a text. */
  text(text: string): number {
    return Math.ceil(text.length / this.charsPerToken);
  }

  /** Tokens of messages: their contents and a little per message for the template. */
  messages(messages: readonly Message[]): number {
    return messages.reduce((sum, m) => sum + this.text(m.content) + MESSAGE_OVERHEAD, 0);
  }

  /** Tokens of tool schemas as sent. */
  schemas(tools: readonly ToolSchema[]): number {
    return Math.ceil(schemaChars(tools) / this.charsPerToken);
  }

  /** Tokens of a whole request. */
  request(messages: readonly Message[], tools: readonly ToolSchema[]): number {
    return this.messages(messages) + this.schemas(tools);
  }

  /** Tokens of a request described by its size. */
  size(size: RequestSize): number {
    return Math.ceil(size.chars / this.charsPerToken) + size.messages * MESSAGE_OVERHEAD;
  }

  /**
   * Learns the ratio from the server's count of a request that was sent.
   *
   * @param sent The request's characters and messages.
   * @param promptTokens What the server counted for it.
   * @param source Where the count came from.
   * @returns Whether the ratio changed.
   */
  observe(sent: RequestSize, promptTokens: number, source: Exclude<CalibrationSource, "default">) {
    const contentTokens = promptTokens - sent.messages * MESSAGE_OVERHEAD;
    if (promptTokens < MIN_LEARN_TOKENS || contentTokens <= 0 || sent.chars <= 0) return false;
    // Bounded: a server that cut the prompt, or a template that adds a lot, says little.
    const ratio = Math.min(8, Math.max(0.5, sent.chars / contentTokens));
    const rounded = Math.round(ratio * 1000) / 1000;
    if (rounded === this.charsPerToken) return false;
    this.charsPerToken = rounded;
    this.source = source;
    return true;
  }
}
