// How much of what hooks print reaches the model and the user. Context a hook adds (a
// UserPromptSubmit or SessionStart hook's stdout, additionalContext, a block reason the model
// reads) is part of every later request and no compaction removes it, so it is capped at a
// share of the model's window, with a note where it was cut; a failing hook's stderr is shown
// to the user as a few short lines.

/** The share of the window one event's hooks may add for the model. */
export const HOOK_CONTEXT_SHARE = 0.1;

/** The window assumed when the server does not state one (as the provider assumes). */
const DEFAULT_WINDOW_TOKENS = 8192;

/** A rough count of characters per token, for a budget given in tokens. */
const CHARS_PER_TOKEN = 4;

/** Lines of a failing hook's stderr shown, and characters of each. */
const STDERR_LINES = 3;
const STDERR_LINE_CHARS = 200;

/** Text for the model within its budget, and what to tell the user when it was cut. */
export interface BudgetedText {
  text: string;
  /** Set when the text was cut: one line for the user. */
  notice?: string;
}

/**
 * Cuts hook text for the model to `HOOK_CONTEXT_SHARE` of the window, keeping its start and
 * saying where and why it was cut.
 *
 * @param text What the hooks gave.
 * @param options `event`: the hook event (for the notice); `windowTokens`: the model's
 *   window, when known.
 * @returns The text to send, and a notice when it was cut.
 *
 * @example
 * ```ts
 * import { budgetHookText } from "./hook_text_budget.ts";
 * const cut = budgetHookText("x".repeat(100_000), { event: "SessionStart", windowTokens: 8192 });
 * if (cut.text.length > 4000 || cut.notice === undefined) throw new Error();
 * if (budgetHookText("short", { event: "SessionStart" }).notice !== undefined) throw new Error();
 * ```
 */
export function budgetHookText(
  text: string,
  options: { event: string; windowTokens?: number | undefined },
): BudgetedText {
  const window = options.windowTokens ?? DEFAULT_WINDOW_TOKENS;
  const tokens = Math.max(1, Math.floor(window * HOOK_CONTEXT_SHARE));
  const limit = tokens * CHARS_PER_TOKEN;
  if (text.length <= limit) return { text };
  const share = `${Math.round(HOOK_CONTEXT_SHARE * 100)}% of the ${
    window.toLocaleString("en-US")
  }-token window`;
  const kept = text.slice(0, limit);
  return {
    text: `${kept}\n[Hook output cut here: ${
      (text.length - limit).toLocaleString("en-US")
    } more characters were left out (hooks may add about ${share})]`,
    notice: `${options.event} hook output cut for the model: ${
      text.length.toLocaleString("en-US")
    } characters, the first ${limit.toLocaleString("en-US")} kept (about ${share})`,
  };
}

/**
 * A hook's stderr as the user sees it in a notice: its first lines, each shortened, and how
 * many more there were.
 *
 * @param stderr The hook's stderr.
 * @returns A short excerpt on one or a few lines.
 *
 * @example
 * ```ts
 * import { stderrExcerpt } from "./hook_text_budget.ts";
 * const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n");
 * if (stderrExcerpt(lines) !== "line 0\nline 1\nline 2\n(47 more lines)") throw new Error();
 * ```
 */
export function stderrExcerpt(stderr: string): string {
  const lines = stderr.trim().split("\n").filter((line) => line.trim() !== "");
  const shown = lines.slice(0, STDERR_LINES).map((line) =>
    line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS - 1)}…` : line
  );
  const more = lines.length - shown.length;
  return more > 0
    ? [...shown, `(${more} more line${more === 1 ? "" : "s"})`].join("\n")
    : shown.join("\n");
}
