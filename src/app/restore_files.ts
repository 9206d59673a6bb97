// /undo and /rewind for every front end: plan from the conversation's checkpoints, ask (the
// front end's way) when the user changed a file the turns also changed, then restore, and
// say in lines which files came back, which kept the user's edits, and where the
// conversation now stands. Nothing the user changed is overwritten unless they say so.

import type { Conversation } from "../agent/conversation.ts";
import type { ConversationTurn } from "../agent/conversation_parts.ts";
import type { LoopEventSink } from "../agent/loop_events.ts";

/** What the user says about files they changed after the turns: overwrite, keep, or stop. */
export type ConflictAnswer = "overwrite" | "keep" | "cancel";

/** How a front end asks about conflicts (the paths the user changed meanwhile). */
export type AskConflicts = (conflicts: readonly string[]) => Promise<ConflictAnswer>;

/** What /undo or /rewind did, in lines for the user. */
export interface RestoreReport {
  /** False when nothing changed (nothing to do, cancelled, or an error). */
  done: boolean;
  lines: string[];
}

/**
 * /undo: puts back the files the last turn that changed files changed (the conversation
 * stays; the model is told with the next message).
 *
 * @param conversation The conversation.
 * @param ask How to settle files the user changed since.
 * @param display Receives the logged event.
 * @returns What happened, in lines.
 */
export async function undoLastTurn(
  conversation: Conversation,
  ask: AskConflicts,
  display: LoopEventSink,
): Promise<RestoreReport> {
  const plan = await conversation.planRestore("last");
  if ("error" in plan) return { done: false, lines: [plan.error] };
  const answer = plan.conflicts.length > 0 ? await ask(plan.conflicts) : "keep";
  if (answer === "cancel") return { done: false, lines: ["Nothing was changed"] };
  const done = await conversation.restore(plan, { overwrite: answer === "overwrite" }, display);
  if ("error" in done) return { done: false, lines: [done.error] };
  const turn = plan.turns[0];
  return {
    done: true,
    lines: [
      `Undid the file changes of ${turn ? JSON.stringify(turn.prompt) : "the last turn"}`,
      ...outcomeLines(done),
    ],
  };
}

/**
 * /rewind: takes the conversation back to before a user message and puts back every file
 * changed from that turn on.
 *
 * @param conversation The conversation.
 * @param turn The turn to go back before (from `conversation.turns()`).
 * @param ask How to settle files the user changed since.
 * @param display Receives the logged events.
 * @returns What happened, in lines.
 */
export async function rewindTo(
  conversation: Conversation,
  turn: ConversationTurn,
  ask: AskConflicts,
  display: LoopEventSink,
): Promise<RestoreReport> {
  let plan = undefined;
  if (turn.files.length > 0) {
    const planned = await conversation.planRestore(turn.messageCount);
    if ("error" in planned) return { done: false, lines: [planned.error] };
    plan = planned;
  }
  const answer = plan && plan.conflicts.length > 0 ? await ask(plan.conflicts) : "keep";
  if (answer === "cancel") return { done: false, lines: ["Nothing was changed"] };
  const done = await conversation.restore(plan, {
    overwrite: answer === "overwrite",
    rewindTo: turn.messageCount,
  }, display);
  if ("error" in done) return { done: false, lines: [done.error] };
  return {
    done: true,
    lines: [
      `Rewound to before ${JSON.stringify(turn.prompt)}: the conversation goes on from there`,
      ...(plan ? outcomeLines(done) : ["No file had changed since"]),
    ],
  };
}

/**
 * The turns /rewind offers, numbered, newest last.
 *
 * @param turns The conversation's turns.
 * @returns One line each: number, prompt, files changed from it on.
 *
 * @example
 * ```ts
 * import { formatTurns } from "./restore_files.ts";
 * const lines = formatTurns([{ messageCount: 1, prompt: "fix it", files: ["a.ts"] }]);
 * if (lines[0] !== '  1  "fix it" (1 file changed since)') throw new Error(lines[0]);
 * ```
 */
export function formatTurns(turns: readonly ConversationTurn[]): string[] {
  return turns.map((turn, index) => {
    const prompt = turn.prompt.length > 60 ? `${turn.prompt.slice(0, 59)}…` : turn.prompt;
    const files = turn.files.length === 0
      ? "no file changed since"
      : `${turn.files.length} file${turn.files.length === 1 ? "" : "s"} changed since`;
    return `${String(index + 1).padStart(3)}  ${JSON.stringify(prompt)} (${files})`;
  });
}

/**
 * The question about conflicts, for a front end that asks on the spot.
 *
 * @example
 * ```ts
 * import { conflictQuestion } from "./restore_files.ts";
 * if (!conflictQuestion(["a.ts"]).includes("a.ts")) throw new Error();
 * ```
 */
export function conflictQuestion(conflicts: readonly string[]): string {
  return `You changed ${conflicts.join(", ")} after the model did. [o]verwrite your ` +
    "changes, [k]eep yours and restore the rest, or [c]ancel? ";
}

function outcomeLines(done: { restored: string[]; kept: string[] }): string[] {
  const lines: string[] = [];
  if (done.restored.length > 0) lines.push(`Restored: ${done.restored.join(", ")}`);
  if (done.kept.length > 0) lines.push(`Kept your changes to: ${done.kept.join(", ")}`);
  return lines;
}
