// Compaction: the conversation so far is replaced by the model's own summary of it, so a long
// session goes on within the window. The summary request repeats the conversation as last sent
// (the server reuses its cache) and adds the instruction. The full history stays in the session
// log; replay rebuilds the compacted conversation from the `conversation_compacted` event with
// the same messages as here, so --resume continues from the compacted point.

import type { Message, ToolSchema } from "../messages.ts";
import type { AssistantTurn, Provider } from "../providers/provider.ts";
import { MESSAGE_OVERHEAD, type TokenCounter } from "../providers/token_counter.ts";
import type { PromptWindow } from "./prompt_window.ts";

/** What the model is asked to write. */
export const COMPACT_INSTRUCTION =
  "Summarize our conversation so far for yourself, to continue the work from the summary " +
  "alone: the user's goals and requests, decisions made, files read or changed (with paths), " +
  "commands run and their outcomes, open questions and the next steps. Be concise and " +
  "specific; keep exact names, paths and numbers. Do not call tools; answer with the summary " +
  "only.";

/** Characters of a /compact focus kept in the instruction (it is the user's own words). */
const MAX_FOCUS_CHARS = 2000;

/**
 * The summary instruction, with the user's focus when /compact was given one: what to keep in
 * full beside the rest.
 *
 * @param focus What the user asked to keep (`/compact the failing test`), if anything.
 * @returns The instruction sent as the summary request's last user message.
 *
 * @example
 * ```ts
 * import { COMPACT_INSTRUCTION, compactInstruction } from "./compaction.ts";
 * if (compactInstruction() !== COMPACT_INSTRUCTION) throw new Error();
 * if (!compactInstruction("the parser bug").includes("Focus on: the parser bug")) throw new Error();
 * ```
 */
export function compactInstruction(focus?: string): string {
  const wanted = focus?.trim().slice(0, MAX_FOCUS_CHARS) ?? "";
  if (wanted === "") return COMPACT_INSTRUCTION;
  return `${COMPACT_INSTRUCTION} Focus on: ${wanted}. Keep everything about it in full detail ` +
    "(exact code, paths, errors and decisions); summarize the rest briefly.";
}

/** The user message that stands for the compacted part of the conversation. */
export const COMPACTED_MARKER =
  "[The conversation so far was compacted to save context. Your summary of it follows.]";

/**
 * The messages a compacted conversation continues from: the system prompt, a marker, and the
 * summary as the assistant's answer.
 *
 * @param messages The conversation before compaction (its system messages are kept).
 * @param summary The model's summary.
 * @returns The new message list.
 *
 * @example
 * ```ts
 * import { compactedMessages } from "./compaction.ts";
 * const out = compactedMessages(
 *   [{ kind: "system", content: "s" }, { kind: "user", content: "long" }],
 *   "We fixed the bug.",
 * );
 * if (out.length !== 3 || out[2]?.content !== "We fixed the bug.") throw new Error();
 * ```
 */
export function compactedMessages(messages: readonly Message[], summary: string): Message[] {
  return [
    ...messages.filter((message) => message.kind === "system"),
    { kind: "user", content: COMPACTED_MARKER },
    { kind: "assistant", content: summary, data: {} },
  ];
}

/**
 * Asks the model for the summary: the conversation as its next request would send it, then the
 * instruction; fitted to the window first when the whole would not fit, and asked once more,
 * shortened by the server's count, when the server refuses it.
 *
 * @param messages The conversation.
 * @param context The provider, the tools sent with every request, the conversation's window
 *   (which counts the usage), the abort signal and the user's focus.
 * @returns The model's turn.
 */
export async function requestSummary(
  messages: readonly Message[],
  context: {
    provider: Provider;
    tools: readonly ToolSchema[];
    window: PromptWindow;
    signal: AbortSignal;
    /** What the user asked to keep (`/compact FOCUS`). */
    focus?: string;
  },
): Promise<AssistantTurn> {
  const { provider, tools, window, signal } = context;
  const instruction: Message = { kind: "user", content: compactInstruction(context.focus) };
  let request = [...window.view(messages), instruction];
  const limit = window.limit();
  const extra = window.counter.text(instruction.content) + MESSAGE_OVERHEAD;
  if (limit !== undefined && window.counter.request(request, tools) > limit) {
    request = [...window.plan(messages, tools, limit - extra).messages, instruction];
  }
  const ask = (sent: Message[]) => {
    window.sending(sent, tools);
    return provider.complete({ messages: sent, tools, signal });
  };
  let turn = await ask(request);
  if (turn.contextExceeded && !turn.text) {
    const refit = window.refused(messages, tools, turn.contextExceeded);
    if (refit) turn = await ask([...refit.fitted.messages, instruction]);
  }
  if (turn.usage) window.observe(turn.usage);
  return turn;
}

/** The most room {@linkcode roomForTurn} keeps for a turn: this share of the limit. */
const MAX_TURN_SHARE = 0.5;
/** A conversation is compacted for a turn only when a summary can free this share of the limit. */
const MIN_COMPACTABLE_SHARE = 0.25;

/**
 * The room the next turn's newest results need: the largest batch of results one model turn
 * added so far (as they were, before any shortening), capped at half the limit. Fitting never
 * shortens the latest model turn's results, so a conversation must leave them this much room or
 * they are cut to head and tail (issue 40, item 10).
 *
 * @param messages The conversation (originals, not the window's stand-ins).
 * @param options The model's token count and the window's limit for a prompt.
 * @returns Tokens to keep free for the turn (0 for a conversation without tool results).
 *
 * @example
 * ```ts
 * import { roomForTurn } from "./compaction.ts";
 * import { TokenCounter } from "../providers/token_counter.ts";
 * if (roomForTurn([{ kind: "user", content: "hi" }], { counter: new TokenCounter(), limit: 6000 }) !== 0) {
 *   throw new Error();
 * }
 * ```
 */
export function roomForTurn(
  messages: readonly Message[],
  options: { counter: TokenCounter; limit: number },
): number {
  let largest = 0;
  let batch = 0;
  for (const message of messages) {
    if (message.kind === "tool_result") {
      batch += options.counter.text(message.content) + MESSAGE_OVERHEAD;
      largest = Math.max(largest, batch);
    } else if (message.kind !== "tool_call") batch = 0;
  }
  return Math.min(largest, Math.floor(options.limit * MAX_TURN_SHARE));
}

/**
 * Whether a conversation must be compacted before the next user message although it is under
 * the threshold: with every old result shortened (what fitting can do on its own), the
 * conversation and the new message leave less than {@linkcode roomForTurn} under the limit, and
 * what a summary would replace is at least a quarter of the limit. The check runs only at a compaction point (a user message), so a summary never rewrites
 * the middle of a turn.
 *
 * @param window The conversation's window (its limit, count and stand-ins).
 * @param input The conversation, the tool schemas and the tokens of the new message.
 * @returns True when the turn's newest results would not fit whole.
 */
export function compactForTurn(
  window: PromptWindow,
  input: { messages: readonly Message[]; tools: readonly ToolSchema[]; extra: number },
): boolean {
  const limit = window.limit();
  if (limit === undefined) return false;
  const room = roomForTurn(input.messages, { counter: window.counter, limit });
  if (room === 0) return false;
  // As the turn sends it: after the new user message, every result before it is old.
  const next: Message[] = [...input.messages, { kind: "user", content: "" }];
  const shortened = window.plan(next, input.tools, 0);
  if (shortened.tokens + input.extra + room <= limit) return false;
  // A summary pays only when it removes much: what the system prompt and tools do not take.
  const kept = input.messages.filter((message) => message.kind === "system");
  const compactable = shortened.tokens - window.counter.request(kept, input.tools);
  return compactable >= limit * MIN_COMPACTABLE_SHARE;
}
