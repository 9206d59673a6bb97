// A model server's prompt cache, imitated deterministically for tests and bench/: each chat
// request is rendered to one prompt text (a ChatML-like template, tool schemas after the system
// prompt as Qwen's template puts them), tokens are a fixed number of characters each, and one
// slot keeps the previous request, so a request processes only what follows the prefix it
// shares with it (llama-server's `cache_n` and `prompt_n`). A request at or over the window is
// refused with llama-server's own error body.

/** One chat request as the server received it (messages and tools in wire form). */
export interface ChatBody {
  messages?: unknown[];
  tools?: unknown[];
  [key: string]: unknown;
}

/** What the server did with one request. */
export interface PromptCount {
  /** 1-based number of the chat request. */
  request: number;
  /** Tokens of the whole prompt. */
  prompt: number;
  /** Tokens taken from the previous request's cache. */
  reused: number;
  /** Tokens processed (prompt minus reused); 0 for a refused request. */
  processed: number;
  /** The request was refused as longer than the window (nothing was processed). */
  refused: boolean;
}

/** The error body llama-server answers a request longer than its window with (HTTP 400). */
export function exceedContextBody(promptTokens: number, window: number): Record<string, unknown> {
  return {
    error: {
      code: 400,
      message: `request (${promptTokens} tokens) exceeds the available context size ` +
        `(${window} tokens), try increasing it`,
      type: "exceed_context_size_error",
      n_prompt_tokens: promptTokens,
      n_ctx: window,
    },
  };
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  return JSON.stringify(value);
}

/**
 * Renders a chat request to the prompt text a server would process: one block per message,
 * the tools' JSON in the system block, an open assistant block at the end.
 *
 * @example
 * ```ts
 * import { renderPrompt } from "./prompt_cache.ts";
 * const prompt = renderPrompt({ messages: [{ role: "user", content: "hi" }] });
 * if (!prompt.startsWith("<|im_start|>user\nhi<|im_end|>")) throw new Error(prompt);
 * ```
 */
export function renderPrompt(body: ChatBody): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const tools = Array.isArray(body.tools) && body.tools.length > 0
    ? `\n\n# Tools\n${body.tools.map((tool) => JSON.stringify(tool)).join("\n")}`
    : "";
  const blocks: string[] = [];
  let toolsPlaced = tools === "";
  for (const raw of messages) {
    const message = (typeof raw === "object" && raw !== null ? raw : {}) as Record<
      string,
      unknown
    >;
    const role = text(message.role);
    let content = text(message.content);
    if (role === "system" && !toolsPlaced) {
      content += tools;
      toolsPlaced = true;
    }
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls) {
        content += `\n<tool_call>${JSON.stringify(call)}</tool_call>`;
      }
    }
    blocks.push(`<|im_start|>${role}\n${content}<|im_end|>\n`);
  }
  const head = toolsPlaced ? "" : `<|im_start|>system${tools}<|im_end|>\n`;
  return `${head}${blocks.join("")}<|im_start|>assistant\n`;
}

/** The length of the common prefix of two strings. */
function commonPrefix(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * One server slot with its cache. Tokens are `charsPerToken` characters each, so two prompts
 * share as many tokens as whole tokens fit in their common prefix; as llama-server does, at
 * least one token is processed even when the whole prompt is cached.
 *
 * @example
 * ```ts
 * import { PromptCache } from "./prompt_cache.ts";
 * const cache = new PromptCache({ charsPerToken: 2, window: 100 });
 * cache.take("abcdefgh");
 * const second = cache.take("abcdefghij");
 * if (second.reused !== 4 || second.processed !== 1) throw new Error(JSON.stringify(second));
 * if (!cache.take("x".repeat(200)).refused) throw new Error();
 * ```
 */
export class PromptCache {
  readonly charsPerToken: number;
  readonly window: number;
  /** Every request, in order. */
  readonly log: PromptCount[] = [];
  /** Calls of /tokenize. */
  tokenizeCalls = 0;
  #slot = "";

  constructor(options: { charsPerToken: number; window: number }) {
    this.charsPerToken = options.charsPerToken;
    this.window = options.window;
  }

  /** Tokens of a text. */
  tokens(text: string): number {
    return Math.ceil(text.length / this.charsPerToken);
  }

  /** Accounts one request's prompt; a refused one leaves the cache as it was. */
  take(prompt: string): PromptCount {
    const request = this.log.length + 1;
    const tokens = this.tokens(prompt);
    if (tokens >= this.window) {
      const count = { request, prompt: tokens, reused: 0, processed: 0, refused: true };
      this.log.push(count);
      return count;
    }
    const shared = Math.floor(commonPrefix(this.#slot, prompt) / this.charsPerToken);
    const reused = Math.min(shared, tokens - 1);
    this.#slot = prompt;
    const count = { request, prompt: tokens, reused, processed: tokens - reused, refused: false };
    this.log.push(count);
    return count;
  }

  /** Sums over the requests so far. */
  totals(): {
    requests: number;
    prompt: number;
    reused: number;
    processed: number;
    refused: number;
  } {
    return this.log.reduce(
      (sum, c) => ({
        requests: sum.requests + 1,
        prompt: sum.prompt + (c.refused ? 0 : c.prompt),
        reused: sum.reused + c.reused,
        processed: sum.processed + c.processed,
        refused: sum.refused + (c.refused ? 1 : 0),
      }),
      { requests: 0, prompt: 0, reused: 0, processed: 0, refused: 0 },
    );
  }
}
