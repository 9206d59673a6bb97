// /undo and /rewind for every front end: plan from the conversation's checkpoints, ask (the
// front end's way) when someone changed a file the turns also changed, say which files the
// turns created will be removed before it happens, then restore, and say in lines which files
// came back, which kept the user's edits, which were left and why, and where the
// conversation now stands. Nothing changed since is overwritten unless the user says so.

import type { Conversation } from "../agent/conversation.ts";
import type { ConversationTurn } from "../agent/conversation_parts.ts";
import type { RestoredFiles } from "../agent/conversation_restore.ts";
import type { LoopEventSink } from "../agent/loop_events.ts";
import type { RestorePlan } from "../checkpoints/turn_checkpoints.ts";

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

/** How a restore talks to its front end. */
export interface RestoreIO {
  /** Settles files the user changed since the turns. */
  ask: AskConflicts;
  /** Receives the logged events. */
  display: LoopEventSink;
  /**
   * Shows a line at once, before the files change (the removals to come); without it, those
   * lines open the report.
   */
  say?: (line: string) => void;
}

/**
 * /undo: puts back the files the last turn that changed files changed (the conversation
 * stays; the model is told with the next message).
 *
 * @param conversation The conversation.
 * @param io How to ask, show events and say what is about to happen.
 * @returns What happened, in lines.
 */
export async function undoLastTurn(
  conversation: Conversation,
  io: RestoreIO,
): Promise<RestoreReport> {
  const plan = await conversation.planRestore("last");
  if ("error" in plan) return { done: false, lines: plan.error.split("\n") };
  const answer = plan.conflicts.length > 0 ? await io.ask(plan.conflicts) : "keep";
  if (answer === "cancel") return { done: false, lines: [...plan.notes, "Nothing was changed"] };
  const said = announce(plan, answer, io);
  const done = await conversation.restore(plan, { overwrite: answer === "overwrite" }, io.display);
  if ("error" in done) return { done: false, lines: [...said, done.error] };
  const turn = plan.turns[0];
  return {
    done: true,
    lines: [
      ...said,
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
 * @param io How to ask, show events and say what is about to happen.
 * @returns What happened, in lines.
 */
export async function rewindTo(
  conversation: Conversation,
  turn: ConversationTurn,
  io: RestoreIO,
): Promise<RestoreReport> {
  let plan = undefined;
  if (turn.files.length > 0) {
    const planned = await conversation.planRestore(turn.messageCount);
    if ("error" in planned) return { done: false, lines: planned.error.split("\n") };
    plan = planned;
  }
  const answer = plan && plan.conflicts.length > 0 ? await io.ask(plan.conflicts) : "keep";
  if (answer === "cancel") {
    return { done: false, lines: [...plan?.notes ?? [], "Nothing was changed"] };
  }
  const said = plan ? announce(plan, answer, io) : [];
  const done = await conversation.restore(plan, {
    overwrite: answer === "overwrite",
    rewindTo: turn.messageCount,
  }, io.display);
  if ("error" in done) return { done: false, lines: [...said, done.error] };
  return {
    done: true,
    lines: [
      ...said,
      `Rewound to before ${JSON.stringify(turn.prompt)}: the conversation goes on from there`,
      ...(plan ? outcomeLines(done) : ["No file had changed since"]),
    ],
  };
}

/**
 * Says what the restore is about to do that the user may not expect: the plan's notes (a
 * command ran, a checkpoint failed) and every file it will remove. Said at once where the
 * front end can; else returned to open the report.
 */
function announce(plan: RestorePlan, answer: ConflictAnswer, io: RestoreIO): string[] {
  const kept = answer === "overwrite" ? [] : plan.conflicts;
  const removals = plan.removals.filter((path) => !kept.includes(path));
  const lines = [...plan.notes];
  if (removals.length > 0) {
    lines.push(
      `Removing ${removals.length === 1 ? "a file" : `${removals.length} files`} the turn ` +
        `created: ${removals.join(", ")}`,
    );
  }
  if (!io.say) return lines;
  for (const line of lines) io.say(line);
  return [];
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

function outcomeLines(done: RestoredFiles): string[] {
  const lines: string[] = [];
  const removed = done.removed ?? [];
  const written = done.restored.filter((path) => !removed.includes(path));
  if (written.length > 0) lines.push(`Restored: ${written.join(", ")}`);
  if (removed.length > 0) lines.push(`Removed (the turn created them): ${removed.join(", ")}`);
  if (done.kept.length > 0) lines.push(`Kept your changes to: ${done.kept.join(", ")}`);
  for (const { path, why } of done.left ?? []) lines.push(`Left as it is: ${path} (${why})`);
  return lines;
}
