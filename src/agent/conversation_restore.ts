// /undo and /rewind on a conversation: the user messages with the files changed from each on
// (the turn checkpoints' records), and putting files back as planned, with, for /rewind, the
// conversation taken back to before the chosen message. Both are logged; after /undo the model
// is told with the next message. conversation.ts hands its part of the work in as a host.

import type { Message } from "../messages.ts";
import type { RestorePlan, TurnCheckpoints } from "../checkpoints/turn_checkpoints.ts";
import type { CheckpointEvent } from "../checkpoints/turn_record.ts";
import type { LoopEventSink } from "./loop_events.ts";
import type { SessionRecorder } from "./session_recorder.ts";
import type { ConversationTurn } from "./conversation_parts.ts";
import { STOP_HOOK_PREFIX } from "./turn_stage.ts";

/** What a restore did: paths put back (removed ones too), the user's kept, the rest left. */
export type RestoredFiles = Pick<
  Extract<CheckpointEvent, { type: "files_restored" }>,
  "restored" | "kept" | "removed" | "left"
>;

/** What a restore does to the conversation. */
export interface RestoreHost {
  messages: readonly Message[];
  checkpoints: TurnCheckpoints | undefined;
  recorder: SessionRecorder;
  /** A turn is running: nothing is put back meanwhile. */
  running: boolean;
  /** Keeps the first `keep` messages (the window and the last stop forget the rest). */
  rewind(keep: number): void;
  /** A note for the model with the next message. */
  addNote(text: string): void;
}

/**
 * The user messages of a conversation with the files changed from each on and not undone yet.
 *
 * @param messages The conversation.
 * @param checkpoints Its checkpoints, if any.
 * @returns One turn per user message (not a Stop hook's).
 */
export function conversationTurns(
  messages: readonly Message[],
  checkpoints: TurnCheckpoints | undefined,
): ConversationTurn[] {
  const records = checkpoints?.records().filter((record) => !record.undone) ?? [];
  const turns: ConversationTurn[] = [];
  messages.forEach((message, index) => {
    if (message.kind !== "user" || message.content.startsWith(STOP_HOOK_PREFIX)) return;
    const files = new Set(
      records.filter((record) => record.messageCount >= index).flatMap((record) => record.files),
    );
    turns.push({
      messageCount: index,
      prompt: message.content.trim().split("\n")[0] ?? "",
      files: [...files].sort(),
    });
  });
  return turns;
}

/**
 * Puts files back as planned and, with `rewindTo`, takes the conversation back.
 *
 * @param host The conversation's part.
 * @param plan The plan, or undefined when no file needs restoring (a rewind only).
 * @param options `overwrite`: the user's own changes too; `rewindTo`: the messages to keep.
 * @param display Receives the logged events.
 * @returns The paths restored, removed, kept and left, or why nothing changed.
 */
export async function restoreConversation(
  host: RestoreHost,
  plan: RestorePlan | undefined,
  options: { overwrite: boolean; rewindTo?: number; display: LoopEventSink },
): Promise<RestoredFiles | { error: string }> {
  if (host.running) return { error: "Wait for the turn to end (or press Ctrl-C), then retry" };
  const { display } = options;
  let done: RestoredFiles = { restored: [], kept: [] };
  if (plan && host.checkpoints) {
    const outcome = await host.checkpoints.apply(plan, options.overwrite);
    if ("error" in outcome) return outcome;
    host.recorder.record(outcome.event);
    display(outcome.event);
    const { restored, kept, removed, left } = outcome.event;
    done = { restored, kept, ...(removed ? { removed } : {}), ...(left ? { left } : {}) };
  }
  const { restored, kept } = done;
  if (options.rewindTo !== undefined) {
    const keep = Math.max(1, Math.min(options.rewindTo, host.messages.length));
    host.rewind(keep);
    const event = { type: "rewound" as const, messageCount: keep };
    host.recorder.record(event);
    display(event);
  } else if (plan && restored.length > 0) {
    const prompts = plan.turns.map((turn) => JSON.stringify(turn.prompt)).join(", ");
    const yours = kept.length > 0 ? `; ${kept.join(", ")} keep the user's own later edits` : "";
    host.addNote(
      `[The user undid the file changes of the turn ${prompts}: ${restored.join(", ")} are ` +
        `back as they were before it${yours}. Read files again before editing them.]`,
    );
  }
  return done;
}
