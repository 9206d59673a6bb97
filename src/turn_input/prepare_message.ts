// What every front end does with a user's message before a turn: `/name args` of a custom
// command or a skill becomes its text, and the @ mentions in it are attached through the sandbox
// (turn_input/mentions.ts), a policy rule that denies the read denying the mention too.

import { type CustomCommand, expandCommand } from "./custom_commands.ts";
import { expandMentions, type MentionSource, parseMentions } from "./mentions.ts";
import { mentionSourceOf } from "./mention_source.ts";
import type { LoadedRule } from "../permissions/policy.ts";
import type { ToolSource } from "../tools/tool_entry.ts";

/** A message ready to send, or why it is not sent. */
export type PreparedMessage =
  /** `images`: what the image hook returned for `@pic.png` mentions (none without a hook). */
  | { send: string; notes: string[]; attached: string[]; images: unknown[] }
  | { refused: string };

/** Where a message's mentions are read. */
export interface MessageWorkspace {
  cwd: string;
  /** The sandboxed tools as the host runs them (read_file and ls are never curated here). */
  host: ToolSource;
  /** The policy rules in force. */
  rules: () => readonly LoadedRule[];
}

/**
 * The text a message sends when it is `/name args` of a custom command or, failing that, of a
 * skill (its text with the arguments put in: app/run_skills.ts); undefined for any other message.
 *
 * @example
 * ```ts
 * import { customCommandCall } from "./prepare_message.ts";
 * const review = { name: "review", description: "", body: "Review $1", file: "r.md", scope: "user" as const };
 * if (customCommandCall("/review a.ts", [review]) !== "Review a.ts") throw new Error();
 * if (customCommandCall("/other", [review]) !== undefined) throw new Error();
 * ```
 */
export function customCommandCall(
  text: string,
  commands: readonly CustomCommand[],
  skills?: { commandCall(text: string): string | undefined },
): string | undefined {
  const match = /^\/([^\s]+)(?:\s+([^]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const command = commands.find((c) => c.name === match[1]);
  if (command) return expandCommand(command, match[2] ?? "");
  return skills?.commandCall(text);
}

/**
 * Attaches the @ mentions of a message.
 *
 * @param text The message (a custom command already expanded).
 * @param workspace The folder, its sandboxed tools and its rules.
 * @param options `signal` stops the reads; `image` is the hook for image mentions.
 * @returns The text to send with lines for the user, or the refusal.
 */
export async function prepareMessage(
  text: string,
  workspace: MessageWorkspace,
  options: { signal?: AbortSignal; image?: MentionSource<unknown>["image"] } = {},
): Promise<PreparedMessage> {
  if (parseMentions(text).length === 0) {
    return { send: text, notes: [], attached: [], images: [] };
  }
  const { evaluatePolicy } = await import("../permissions/policy.ts");
  const source = mentionSourceOf(workspace.host, {
    denies(tool, args) {
      const decision = evaluatePolicy(
        { tool, args, risk: "medium" },
        workspace.rules(),
        { workspace: workspace.cwd },
      );
      return decision.action === "deny"
        ? decision.rule?.reason ?? `denied by the rule ${decision.source}`
        : undefined;
    },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const expanded = await expandMentions<unknown>(text, {
    ...source,
    ...(options.image ? { image: options.image } : {}),
  });
  if ("refused" in expanded) return expanded;
  return {
    send: expanded.text,
    notes: expanded.notes,
    attached: expanded.attached,
    images: expanded.images,
  };
}
