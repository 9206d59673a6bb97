// Compaction: the conversation so far is replaced by the model's own summary of it, so a long
// session goes on within the window. The summary request repeats the conversation as last sent
// (the server reuses its cache) and adds the instruction. The full history stays in the session
// log; replay rebuilds the compacted conversation from the `conversation_compacted` event with
// the same messages as here, so --resume continues from the compacted point.

import type { Message, ToolSchema } from "../messages.ts";
import type { AssistantTurn, Provider } from "../providers/provider.ts";
import { MESSAGE_OVERHEAD } from "../providers/token_counter.ts";
import type { PromptWindow } from "./prompt_window.ts";

/** What the model is asked to write. */
export const COMPACT_INSTRUCTION =
  "Summarize our conversation so far for yourself, to continue the work from the summary " +
  "alone: the user's goals and requests, decisions made, files read or changed (with paths), " +
  "commands run and their outcomes, open questions and the next steps. Be concise and " +
  "specific; keep exact names, paths and numbers. Do not call tools; answer with the summary " +
  "only.";

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
 *   (which counts the usage) and the abort signal.
 * @returns The model's turn.
 */
export async function requestSummary(
  messages: readonly Message[],
  context: {
    provider: Provider;
    tools: readonly ToolSchema[];
    window: PromptWindow;
    signal: AbortSignal;
  },
): Promise<AssistantTurn> {
  const { provider, tools, window, signal } = context;
  const instruction: Message = { kind: "user", content: COMPACT_INSTRUCTION };
  let request = [...window.view(messages), instruction];
  const limit = window.limit();
  const extra = window.counter.text(COMPACT_INSTRUCTION) + MESSAGE_OVERHEAD;
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
