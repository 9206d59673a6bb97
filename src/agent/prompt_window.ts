// The window of one conversation as its server sees it: the effective size (lowered for the
// rest of the session after a refusal), the model's calibrated token count, the tool results
// shortened so far (kept, so every request repeats the previous one's prefix until the next
// step), and the prompt tokens the server processed or reused. conversation.ts asks it what
// to send; fit_request.ts decides what to shorten.

import type { Message, ToolSchema, Usage } from "../messages.ts";
import type { RefusalNumbers } from "../providers/context_refusal.ts";
import type { Provider } from "../providers/provider.ts";
import { type RequestSize, requestSize, TokenCounter } from "../providers/token_counter.ts";
import {
  addUsage,
  answerRoom,
  type ContextReport,
  emptyTotals,
  measureContext,
  type UsageTotals,
} from "./context_report.ts";
import { fit, type FitResult } from "./fit_request.ts";

/** Options of {@linkcode PromptWindow}. */
export interface PromptWindowOptions {
  /** Compact at this percentage of the window (default 85). */
  compactAt?: number;
  /** The model's token count, shared by the conversations of a run. */
  counter?: TokenCounter;
}

/** Margin below the window after a refusal: small when the server gave its count, else more. */
const COUNTED_MARGIN = 0.97;
const BLIND_MARGIN = 0.85;

/** A request's size within this share of the limit is checked with the server's tokenizer. */
const TOKENIZE_NEAR = 0.9;

/**
 * The window state of one conversation.
 *
 * @example
 * ```ts
 * import { PromptWindow } from "./prompt_window.ts";
 * const window = new PromptWindow(8192);
 * if (window.threshold() !== 6144) throw new Error(String(window.threshold()));
 * ```
 */
export class PromptWindow {
  readonly counter: TokenCounter;
  /** Prompt tokens over the current user turn and over the whole conversation. */
  turn: UsageTotals = emptyTotals();
  session: UsageTotals = emptyTotals();
  #tokens: number | undefined;
  #compactAt: number;
  #lowered = false;
  #replaced = new Map<Message, Message>();
  #lastSent: RequestSize | undefined;

  /**
   * @param tokens The window the server stated or the user set; undefined when unknown.
   * @param options compactAt and the shared token counter.
   */
  constructor(tokens: number | undefined, options: PromptWindowOptions = {}) {
    this.#tokens = tokens;
    this.#compactAt = options.compactAt ?? 85;
    this.counter = options.counter ?? new TokenCounter();
  }

  /** The window in use; a refusal may have lowered it. */
  get tokens(): number | undefined {
    return this.#tokens;
  }

  /** Whether a refusal lowered the window. */
  get lowered(): boolean {
    return this.#lowered;
  }

  /** Requests stay under this many tokens between steps: compact_at, and room for the answer. */
  threshold(): number | undefined {
    const tokens = this.#tokens;
    if (tokens === undefined) return undefined;
    return Math.min(Math.floor((tokens * this.#compactAt) / 100), tokens - answerRoom(tokens));
  }

  /** The most a prompt may take: the window minus the room kept for the answer. */
  limit(): number | undefined {
    const tokens = this.#tokens;
    return tokens === undefined ? undefined : tokens - answerRoom(tokens);
  }

  /** The messages as the next request sends them: earlier steps' stand-ins in place. */
  view(messages: readonly Message[]): Message[] {
    return messages.map((message) => this.#replaced.get(message) ?? message);
  }

  /** Drops the stand-ins (the conversation was compacted or cleared). */
  forget(): void {
    this.#replaced.clear();
  }

  /**
   * What fitting would send, without keeping it: unchanged under the threshold.
   *
   * @param messages The conversation.
   * @param tools The tool schemas sent with it.
   * @param threshold Act above this many tokens instead of the compaction threshold.
   */
  plan(messages: readonly Message[], tools: readonly ToolSchema[], threshold?: number): FitResult {
    const view = this.view(messages);
    const tokens = this.#tokens;
    if (tokens === undefined) {
      return { messages: view, overflow: false, tokens: this.counter.request(view, tools) };
    }
    return fit(view, tokens, {
      threshold: threshold ?? this.threshold()!,
      fixedTokens: this.counter.schemas(tools),
      counter: this.counter,
    });
  }

  /** Keeps what a plan shortened, so the next requests send the same. */
  commit(messages: readonly Message[], planned: FitResult): void {
    const view = this.view(messages);
    planned.messages.forEach((message, i) => {
      if (message !== view[i] && i < messages.length) this.#replaced.set(messages[i]!, message);
    });
  }

  /** Plans and keeps: the messages to send now. */
  fitted(messages: readonly Message[], tools: readonly ToolSchema[]): FitResult {
    const planned = this.plan(messages, tools);
    this.commit(messages, planned);
    return planned;
  }

  /** Notes what is being sent, to learn the token count from the server's answer. */
  sending(messages: readonly Message[], tools: readonly ToolSchema[]): void {
    this.#lastSent = requestSize(messages, tools);
  }

  /**
   * Counts one request's usage; a request of the conversation (not a side request) also
   * teaches the token count.
   */
  observe(usage: Usage, options: { side?: boolean } = {}): void {
    addUsage(this.turn, usage);
    addUsage(this.session, usage);
    if (!options.side && this.#lastSent) {
      this.counter.observe(this.#lastSent, usage.promptTokens, "usage");
    }
  }

  /**
   * Near the limit, asks the server's own tokenizer (when it has one) and fits again by its
   * count: an estimate off by a few percent there is a refused request.
   *
   * @param messages The conversation.
   * @param fitted What fitting chose to send.
   * @param context The provider, the tool schemas and the abort signal.
   * @returns What to send: `fitted`, or fitted again by the server's count.
   */
  async checkCount(
    messages: readonly Message[],
    fitted: FitResult,
    context: { provider: Provider; tools: readonly ToolSchema[]; signal: AbortSignal },
  ): Promise<FitResult> {
    const limit = this.limit();
    const { provider, tools, signal } = context;
    if (limit === undefined || !provider.countTokens || fitted.tokens < limit * TOKENIZE_NEAR) {
      return fitted;
    }
    this.sending(fitted.messages, tools);
    const counted = await provider.countTokens({ messages: fitted.messages, tools, signal });
    if (counted === undefined) return fitted;
    if (this.#lastSent) this.counter.observe(this.#lastSent, counted, "tokenize");
    return counted > limit ? this.fitted(messages, tools) : fitted;
  }

  /**
   * What the next request would hold against the window, and what the server processed or
   * reused over the last turn and the session (/context).
   *
   * @param messages The conversation.
   * @param tools The tool schemas.
   * @param stated The window as stated and where it came from.
   * @returns The report, or undefined when the window is unknown.
   */
  report(
    messages: readonly Message[],
    tools: readonly ToolSchema[],
    stated: { source: string; stated?: number },
  ): ContextReport | undefined {
    const tokens = this.#tokens;
    if (tokens === undefined) return undefined;
    const source = this.#lowered
      ? `${stated.source}; lowered from ${stated.stated} after the server refused a request`
      : stated.source;
    const counter = this.counter;
    return {
      ...measureContext(this.view(messages), tools, { tokens, source }, counter),
      threshold: this.threshold()!,
      calibration: { charsPerToken: counter.charsPerToken, source: counter.source },
      lastTurn: this.turn,
      session: this.session,
    };
  }

  /** Starts counting a new user turn. */
  startTurn(): void {
    this.turn = emptyTotals();
  }

  /**
   * After the server refused the last request as too long: learns its count, lowers the
   * window for the rest of the session, and fits again.
   *
   * @param messages The conversation.
   * @param tools The tool schemas.
   * @param numbers What the server said (its window, its count of the request).
   * @returns The messages to ask with once more, and what was done; undefined when nothing
   *   could be shortened.
   */
  refused(
    messages: readonly Message[],
    tools: readonly ToolSchema[],
    numbers: RefusalNumbers,
  ): { fitted: FitResult; note: string } | undefined {
    const tokens = this.#tokens;
    if (tokens === undefined) return undefined;
    const before = this.counter.charsPerToken;
    if (numbers.promptTokens !== undefined && this.#lastSent) {
      this.counter.observe(this.#lastSent, numbers.promptTokens, "refusal");
    }
    const counted = numbers.promptTokens !== undefined;
    const named = Math.min(tokens, numbers.limit ?? tokens);
    this.#tokens = Math.floor(named * (counted ? COUNTED_MARGIN : BLIND_MARGIN));
    this.#lowered = true;
    const planned = this.plan(messages, tools);
    const view = this.view(messages);
    const changed = planned.messages.some((message, i) => message !== view[i]);
    if (!changed) return undefined;
    this.commit(messages, planned);
    const parts = [
      numbers.limit !== undefined ? `its window is ${numbers.limit} tokens` : "",
      counted ? `it counted ${numbers.promptTokens} tokens` : "",
    ].filter(Boolean);
    const recount = this.counter.charsPerToken !== before
      ? `; counting ${this.counter.charsPerToken} characters per token from now on`
      : "";
    return {
      fitted: planned,
      note: `The server refused the request as too long${
        parts.length ? ` (${parts.join(", ")})` : ""
      }: asking again with old tool output shortened${recount}${
        planned.note ? `. ${planned.note}` : ""
      }`,
    };
  }
}
