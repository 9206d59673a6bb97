// The seam through which a conversation is recorded: the conversation hands each loop event to
// a SessionRecorder. The session log (src/sessions/log_writer.ts) implements it; a null recorder
// is used with --no-session. It lives here so that the agent never imports sessions/.

import type { LoopEvent } from "./loop_events.ts";

export interface SessionRecorder {
  /** Session id, or null when nothing is recorded. */
  readonly id: string | null;
  record(event: LoopEvent): void;
  end(): void;
}
