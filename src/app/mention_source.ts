// Reads @ mentions through the run's sandboxed tool host: read_file and ls run as the model's
// calls would (the same grants, --deny-* entries and workspace checks), never curated, and a
// policy rule that denies the call denies the mention too. The user typed the mention, so
// nothing asks.

import type { ToolRunner } from "../tools/tool_runner.ts";
import type { MentionSource, MentionToolResult } from "./mentions.ts";

/** Where the mentions of one message are read. */
export interface MentionSourceOptions {
  /** The policy's reason to deny this call, if a rule denies it. */
  denies?(tool: string, args: { path: string }): string | undefined;
  signal?: AbortSignal;
}

/**
 * A mention source over a tool runner (the sandbox host, not the curator's wrapper).
 *
 * @param runner The tools as the sandbox runs them.
 * @param options The policy check and the signal that stops a read.
 * @returns The source expandMentions reads from.
 *
 * @example
 * ```ts
 * import { mentionSourceOf } from "./mention_source.ts";
 * const runner = {
 *   list: () => [],
 *   unavailableReason: () => "--allow-read",
 *   validate: () => Promise.reject(new Error("not reached")),
 *   run: () => Promise.reject(new Error("not reached")),
 *   close: () => Promise.resolve(),
 * };
 * const result = await mentionSourceOf(runner).run("read_file", { path: "a.txt" });
 * if (result.ok || !result.message.includes("--allow-read")) throw new Error(JSON.stringify(result));
 * ```
 */
export function mentionSourceOf(
  runner: ToolRunner,
  options: MentionSourceOptions = {},
): MentionSource {
  return {
    async run(tool, args): Promise<MentionToolResult> {
      // The REPL takes input before the tool list has loaded.
      await runner.ready?.();
      if (!runner.list().some((info) => info.name === tool)) {
        const flag = runner.unavailableReason?.(tool);
        return {
          ok: false,
          errorType: "permission_denied",
          message: flag
            ? `reading files needs ${flag}: restart harness with ${flag}`
            : `the ${tool} tool is not loaded`,
        };
      }
      const denied = options.denies?.(tool, args);
      if (denied !== undefined) {
        return { ok: false, errorType: "permission_denied", message: denied };
      }
      const validated = await runner.validate(tool, args);
      if (!validated.ok) {
        return { ok: false, errorType: "validation_failed", message: validated.error.join("; ") };
      }
      const run = await runner.run(tool, validated.value, {
        state: {},
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const result = run.result;
      if (result.success) return { ok: true, output: result.data ?? "" };
      return {
        ok: false,
        errorType: result.error_type,
        message: result.error_message ?? result.error_type,
      };
    },
  };
}
