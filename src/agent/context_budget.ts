// Context awareness: compares what the model server reports (prompt and completion tokens)
// with what was sent and with the context length, and warns once when the server silently cut
// the prompt or the conversation nears the limit. Pure; the conversation calls it after each
// model turn (fit_request.ts makes room, prompt_window.ts keeps the count).

import type { Message, Usage } from "../messages.ts";
import { TokenCounter } from "../providers/token_counter.ts";

const DEFAULT_COUNTER = new TokenCounter();

/**
 * Estimates the tokens of a text or a message list at four characters per token, plus a little
 * per message for the chat template (a conversation uses its model's calibrated TokenCounter).
 *
 * @example
 * ```ts
 * import { estimateTokens } from "./context_budget.ts";
 * if (estimateTokens("abcdefgh") !== 2) throw new Error();
 * ```
 */
export function estimateTokens(input: string | readonly Message[]): number {
  return typeof input === "string" ? DEFAULT_COUNTER.text(input) : DEFAULT_COUNTER.messages(input);
}

/** A warning for the terminal; each kind is given at most once per budget. */
export interface BudgetWarning {
  kind: "prompt_truncated" | "near_limit";
  message: string;
}

/**
 * Tracks token use against a context length and warns once about silent truncation and
 * about nearing the limit.
 *
 * @example
 * ```ts
 * import { ContextBudget } from "./context_budget.ts";
 * const budget = new ContextBudget(8192);
 * const warnings = budget.observe({ promptTokens: 900, completionTokens: 10 }, 4000);
 * if (warnings[0]?.kind !== "prompt_truncated") throw new Error();
 * ```
 */
export class ContextBudget {
  /** Prompt tokens of the last turn, as the server reported them. */
  promptTokens = 0;
  /** Completion tokens of the last turn. */
  completionTokens = 0;
  #given = new Set<BudgetWarning["kind"]>();

  /**
   * @param contextLength The context length in use (e.g. the num_ctx sent to Ollama).
   * @param options nearFraction: share of the context that counts as near (default 0.8);
   * raise: how the user raises the window, e.g. "--num-ctx" (default: the server's setting).
   */
  constructor(
    readonly contextLength: number,
    readonly options: { nearFraction?: number; raise?: string } = {},
  ) {}

  /** Tokens the conversation holds after the last turn. */
  get usedTokens(): number {
    return this.promptTokens + this.completionTokens;
  }

  /**
   * Records one turn's usage.
   *
   * @param usage What the server reported (nothing to do when undefined).
   * @param sentEstimateTokens The estimated tokens of the request that was sent.
   * @returns New warnings, each kind at most once per budget.
   */
  observe(usage: Usage | undefined, sentEstimateTokens: number): BudgetWarning[] {
    if (!usage) return [];
    this.promptTokens = usage.promptTokens;
    this.completionTokens = usage.completionTokens;
    const warnings: BudgetWarning[] = [];
    const give = (kind: BudgetWarning["kind"], message: string) => {
      if (this.#given.has(kind)) return;
      this.#given.add(kind);
      warnings.push({ kind, message });
    };
    // Only when clearly lower: estimates are rough, and servers cache prompt prefixes.
    if (
      sentEstimateTokens > 1000 && usage.promptTokens > 0 &&
      usage.promptTokens < sentEstimateTokens * 0.5
    ) {
      give(
        "prompt_truncated",
        `The model server read ${usage.promptTokens} prompt tokens but about ` +
          `${sentEstimateTokens} were sent: it probably cut the conversation to fit its ` +
          `context. Raise ${
            this.options.raise ?? "the server's context size"
          } or start a new session`,
      );
    }
    const near = this.options.nearFraction ?? 0.8;
    if (this.usedTokens > this.contextLength * near) {
      const percent = Math.round((this.usedTokens / this.contextLength) * 100);
      give(
        "near_limit",
        `The conversation uses ${this.usedTokens} of ${this.contextLength} context tokens ` +
          `(${percent}%): old tool output will be shortened to make room. Type /compact to ` +
          `continue from a summary, or start a new session`,
      );
    }
    return warnings;
  }
}
