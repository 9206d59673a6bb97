// How the REPL and -p get conversations from the workspace: a fresh one with a new session
// (the id the banner showed, for the first), or one resumed from the session log with a recap
// in the REPL and notes about interrupted calls. The REPL's /clear and /resume use the same.

import type { RunSessions } from "../app/run_sessions.ts";
import type { Conversation } from "../agent/conversation.ts";
import type { Approver } from "../permissions/approver.ts";
import type { Prompter } from "../permissions/prompt_types.ts";
import { formatAgentError } from "../errors.ts";
import { turnCount } from "../sessions/turn_count.ts";
import type { Message } from "../messages.ts";
import type { Style } from "../ui/style.ts";
import type { CommandIO } from "./command_io.ts";

/** Makes the conversations of a terminal run. */
export interface TerminalSessions {
  fresh(): Conversation;
  resume(id: string): { conversation: Conversation; note: string } | { error: string };
}

/**
 * The two ways a terminal run gets a conversation, sharing the workspace's approver.
 *
 * @param sessions The workspace's conversations.
 * @param options The approver, the id the banner showed, the recap of a resumed conversation
 *   (the REPL shows one), the style and where a session log error goes.
 */
export function terminalSessions(
  sessions: RunSessions,
  options: {
    /** The workspace's approver, and the prompt it asks through (a subagent's too). */
    approver: Approver & { readonly prompter?: Prompter };
    shownSessionId: string | undefined;
    recap?(messages: readonly Message[]): string;
    style: Style;
    io: CommandIO;
  },
): TerminalSessions {
  const { style } = options;
  let shownSessionId = options.shownSessionId;
  const { prompter } = options.approver;
  const seat = { approver: options.approver, ...(prompter ? { prompter } : {}) };
  return {
    fresh() {
      const started = sessions.start(seat, shownSessionId);
      shownSessionId = undefined;
      if (started.error) options.io.printError(formatAgentError(started.error));
      return started.conversation;
    },
    resume(id) {
      const opened = sessions.load(id, seat);
      if (!opened.ok) return { error: formatAgentError(opened.error) };
      const { conversation, loaded } = opened.value;
      const { info, interrupted, forkedFrom, messages } = loaded;
      const notes = forkedFrom === undefined
        ? [`Resumed session ${info.id} (${turnCount(info.userTurns)}, started ${info.startedAt})`]
        : [
          `Session ${forkedFrom} is open in another harness process: continuing in a copy, ` +
          `new session ${info.id} (${turnCount(info.userTurns)})`,
        ];
      for (const call of forkedFrom === undefined ? interrupted : []) {
        notes.push(
          `Tool call ${call.name} (${call.callId}) was interrupted: recorded as interrupted`,
        );
      }
      // The REPL shows where the conversation left off; -p goes straight on.
      const recap = options.recap?.(messages) ?? "";
      return {
        conversation,
        note: recap ? `${recap}\n${style.dim(notes.join("\n"))}` : style.dim(notes.join("\n")),
      };
    },
  };
}
