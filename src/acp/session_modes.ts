// Plan mode as an editor sees it: ACP's session modes. A session offers two, "default" and
// "plan" (app/plan_mode.ts: reads, searches and commands in a throwaway copy; only the plan is
// written), says which is on when it opens, and switches on `session/set_mode`, telling the
// editor with a `current_mode_update`. Leaving plan mode asks, as the REPL's /plan does, with
// the plan shown in a `switch_mode` tool call: implement it now (the model is told with the
// next prompt), keep planning (the mode stays "plan"), or start fresh with only the plan (the
// conversation goes back to its system prompt and the next prompt carries the plan).

import {
  type AgentContext,
  methods,
  type PermissionOption,
  type SessionMode,
  type SessionModeState,
  type SessionUpdate,
  type ToolCallContent,
} from "@agentclientprotocol/sdk";
import type { Conversation } from "../agent/conversation.ts";
import { type PlanExit, planModeOf } from "../app/plan_mode.ts";

/** The modes every session offers. */
export const SESSION_MODES: readonly SessionMode[] = [
  {
    id: "default",
    name: "Default",
    description: "Change files and run commands as the sandbox and your approvals allow",
  },
  {
    id: "plan",
    name: "Plan",
    description: "Read, search and run commands (what they write is thrown away); write only " +
      "the plan",
  },
];

/** The answers offered when plan mode is left (ACP has four option kinds; these borrow three). */
export const LEAVE_OPTIONS: readonly PermissionOption[] = [
  { optionId: "implement", name: "Implement the plan now", kind: "allow_once" },
  { optionId: "fresh", name: "Start fresh with only the plan", kind: "allow_always" },
  { optionId: "keep", name: "Keep planning", kind: "reject_once" },
];

/** Asks the user how to leave plan mode, showing the plan (undefined: none written yet). */
export type LeaveQuestion = (plan: string | undefined, file: string) => Promise<PlanExit>;

/**
 * The modes of a session and the one on now.
 *
 * @example
 * ```ts
 * import { sessionModes } from "./session_modes.ts";
 * const modes = sessionModes({ parts: {} } as never);
 * if (modes.currentModeId !== "default" || modes.availableModes.length !== 2) throw new Error();
 * ```
 */
export function sessionModes(conversation: Pick<Conversation, "parts">): SessionModeState {
  return {
    currentModeId: planModeOf(conversation)?.active ? "plan" : "default",
    availableModes: [...SESSION_MODES],
  };
}

/**
 * Switches a session's mode; leaving plan mode asks first.
 *
 * @param conversation The session's conversation.
 * @param modeId The mode the editor asked for.
 * @param ask Asks how to leave plan mode.
 * @returns The update to send (the mode now on), or why the mode cannot be set.
 */
export async function setSessionMode(
  conversation: Pick<Conversation, "parts" | "restore" | "addNote">,
  modeId: string,
  ask: LeaveQuestion,
): Promise<{ update: SessionUpdate } | { error: string }> {
  const mode = planModeOf(conversation);
  if (!SESSION_MODES.some((known) => known.id === modeId)) {
    return { error: `Unknown mode "${modeId}": use "default" or "plan"` };
  }
  if (mode === undefined) return { error: "This session has no plan mode" };
  const now = (id: string) => ({
    update: { sessionUpdate: "current_mode_update" as const, currentModeId: id },
  });
  if (modeId === "plan") {
    const entered = mode.active ? undefined : await mode.enter();
    return entered !== undefined && "error" in entered ? entered : now("plan");
  }
  if (!mode.active) return now("default");
  const plan = await mode.plan();
  const exit = await ask(plan, mode.file);
  if (exit === "keep") return now("plan");
  if (exit === "fresh") {
    // Back to the system prompt (logged as a rewind, so a loaded session agrees).
    const cleared = await conversation.restore(
      undefined,
      { overwrite: false, rewindTo: 1 },
      () => {},
    );
    if ("error" in cleared) return { error: `Cannot start fresh: ${cleared.error}` };
    if (plan !== undefined) conversation.addNote(`Implement this plan:\n\n${plan.trimEnd()}`);
  }
  mode.leave(exit);
  return now("default");
}

/**
 * The editor's question on leaving plan mode: a `switch_mode` tool call showing the plan, and
 * a permission request offering {@linkcode LEAVE_OPTIONS}; a cancelled request keeps planning.
 *
 * @param client The connection to the editor.
 * @param sessionId The session.
 * @returns The question.
 */
export function editorLeaveQuestion(client: AgentContext, sessionId: string): LeaveQuestion {
  return async (plan, file) => {
    const toolCallId = `plan_exit_${crypto.randomUUID().slice(0, 8)}`;
    const content: ToolCallContent[] = [{
      type: "content",
      content: { type: "text", text: plan ?? `No plan written yet (${file})` },
    }];
    const send = (update: SessionUpdate) =>
      client.notify(methods.client.session.update, { sessionId, update }).catch(() => {});
    const title = "Leave plan mode";
    await send({ sessionUpdate: "tool_call", toolCallId, title, kind: "switch_mode", content });
    const answer = await client.request(methods.client.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId, title, kind: "switch_mode", rawInput: { plan_file: file } },
      options: [...LEAVE_OPTIONS],
    }).catch(() => undefined);
    const chosen = answer?.outcome.outcome === "selected" ? answer.outcome.optionId : "keep";
    const exit: PlanExit = chosen === "implement" || chosen === "fresh" ? chosen : "keep";
    await send({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
    return exit;
  };
}
