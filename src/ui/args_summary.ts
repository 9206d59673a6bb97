// How the permission prompts show a call's arguments: one line of JSON, cut at a limit. The
// one-call prompt (prompter.ts) and the several-calls prompt (batch_prompt.ts) share it.

import { compactJson } from "../permissions/compact_json.ts";

/** Longer argument summaries are cut (ending in `…`). */
export const MAX_ARGS_LENGTH = 200;

/**
 * A call's arguments as the prompts show them: one-line JSON, cut at {@link MAX_ARGS_LENGTH}.
 *
 * @param args The validated arguments.
 * @returns The summary.
 *
 * @example
 * ```ts
 * import { argsSummary } from "./args_summary.ts";
 * if (argsSummary({ path: "a" }) !== '{"path": "a"}') throw new Error();
 * ```
 */
export function argsSummary(args: unknown): string {
  return compactJson(args ?? {}, MAX_ARGS_LENGTH);
}

/** Whether {@link argsSummary} shows the arguments whole (nothing cut). */
export function summaryIsWhole(args: unknown): boolean {
  return compactJson(args ?? {}).length <= MAX_ARGS_LENGTH;
}
