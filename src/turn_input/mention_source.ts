// Reads @ mentions through the run's sandboxed tool host: read_file and ls run as the model's
// calls would (the same grants, --deny-* entries and workspace checks), never curated, and a
// policy rule that denies the call denies the mention too. The user typed the mention, so
// nothing asks.

import type { ToolSource } from "../tools/tool_entry.ts";
import { builtinOf } from "../tools/builtin_tools.ts";
import type { MentionSource, MentionToolResult } from "./mentions.ts";

/** Where the mentions of one message are read. */
export interface MentionSourceOptions {
  /** The policy's reason to deny this call, if a rule denies it. */
  denies?(tool: string, args: { path: string }): string | undefined;
  signal?: AbortSignal;
}

/**
 * A mention source over the sandboxed plugins (the host, whose entries no stage gates or
 * curates).
 *
 * @param source The sandboxed plugins.
 * @param options The policy check and the signal that stops a read.
 * @returns The source expandMentions reads from.
 */
export function mentionSourceOf(
  source: ToolSource,
  options: MentionSourceOptions = {},
): MentionSource {
  return {
    async run(tool, args): Promise<MentionToolResult> {
      // The REPL takes input before the tool list has loaded.
      const entry = await builtinOf(source, tool);
      if (!entry) {
        return {
          ok: false,
          errorType: "permission_denied",
          message: `the ${tool.name} tool is not loaded`,
        };
      }
      const denied = options.denies?.(tool.name, args);
      if (denied !== undefined) {
        return { ok: false, errorType: "permission_denied", message: denied };
      }
      const validated = await entry.validate(args);
      if (!validated.ok) {
        return { ok: false, errorType: "validation_failed", message: validated.error.join("; ") };
      }
      const run = await entry.run(validated.value, {
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
