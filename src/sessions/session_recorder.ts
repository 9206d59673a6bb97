// The seam between the REPL/-p runner and the session log (src/sessions/open_session_store.ts): the
// writer consumes loop events. A null writer is used with --no-session.

import type { LoopEvent } from "../agent/loop_events.ts";

export interface SessionRecorder {
  /** Session id, or null when nothing is recorded. */
  readonly id: string | null;
  record(event: LoopEvent): void;
  end(): void;
}
