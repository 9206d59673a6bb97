// Compaction: the conversation so far is replaced by the model's own summary of it, so a long
// session goes on within the window. The full history stays in the session log; replay
// rebuilds the compacted conversation from the `conversation_compacted` event with the same
// messages as here, so --resume continues from the compacted point.

import type { Message } from "../messages.ts";

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
