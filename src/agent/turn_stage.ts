// The seams of a turn: a feature is a TurnStage with a step at each point of the turn it
// cares about, run in the order the stages were given. The conversation has its own
// (compaction before a message, fitting each request to the window, the loop guard and the
// repeated-failure stop: turn_kernel.ts); app/ adds the images of a message, the hooks
// (SessionStart, UserPromptSubmit, Stop) and the checkpoints.

import type { ImagePart, Message, ToolCall, ToolResult, Usage } from "../messages.ts";
import type { RefusalNumbers } from "../providers/context_refusal.ts";
import type { LoopEventSink } from "./loop_events.ts";

/** How a Stop hook's reason starts the message that sends the model back to work. */
export const STOP_HOOK_PREFIX = "[Stop hook] ";

/** Why a conversation starts: its SessionStart hooks say so. */
export type StartSource = "startup" | "resume" | "clear" | "compact";

/** What every step of a turn may use. */
export interface TurnContext {
  /** The turn's events (recorded, then shown). */
  sink: LoopEventSink;
  signal: AbortSignal;
}

/** The user's message on its way to the model. */
export interface OutgoingMessage {
  /** The text, or null when the turn goes on without one (/continue). */
  text: string | null;
  /** Images sent with it; a stage may add those the text names. */
  images: ImagePart[];
  /** Said to the model with the text (hook context, what /undo did). */
  notes: string[];
  /**
   * Where the turn's user message will be in the conversation, and its text (a continued
   * turn: the last user message's), as the conversation is now.
   */
  position(): { at: number; said: string };
  /** Side requests made to get the message ready (a compaction's summary), for the turn's usage. */
  usage?: Usage;
}

/** Ends a turn after a call: said to the user, and added to the call's result for the model. */
export interface CallStop {
  user: string;
  model: string;
}

/**
 * A feature's steps in a turn; each is optional. Before a message goes: every stage's
 * `prepare` (make room, attach images), then, when the conversation starts (or resumes, or was
 * cleared), every `started`, then every `send` (hooks, announcements, the checkpoint's start).
 */
export interface TurnStage {
  readonly name: string;
  /** Gets the message ready: refuse it (said to the user), or attach images or make room. */
  prepare?(message: OutgoingMessage, turn: TurnContext): Promise<{ refused: string } | undefined>;
  /** The conversation starts, resumes, is cleared or compacted: context for its next message. */
  started?(source: StartSource, turn: TurnContext): Promise<string | undefined>;
  /** The message is about to be sent: refuse it (said to the user), or add notes. */
  send?(message: OutgoingMessage, turn: TurnContext): Promise<{ refused: string } | undefined>;
  /** Each request's messages, shortened to fit the window. */
  fit?(messages: readonly Message[], turn: TurnContext): Promise<readonly Message[]>;
  /** The server refused a request as too long: messages to ask once more with, and a note. */
  refit?(
    messages: readonly Message[],
    numbers: RefusalNumbers,
  ): { messages: readonly Message[]; note: string } | undefined;
  /** The model is asked again (each request of the turn). */
  request?(turn: TurnContext): void;
  /** The model answered without calling a tool: text to send it back to work with. */
  answered?(answer: string, active: boolean, turn: TurnContext): Promise<string | undefined>;
  /** A call is about to be prepared: a result answers it without running (a repeat). */
  repeat?(call: ToolCall): ToolResult | undefined;
  /**
   * A call ran. `call` has the arguments it ran with; `mayChange`: it may have changed what
   * other calls return (it writes, or changed the tasks).
   */
  ran?(call: ToolCall, result: ToolResult, mayChange: boolean): void;
  /** A call failed and nothing else ends the turn: a stop ends it (repeated failures). */
  failed?(call: ToolCall, result: ToolResult): CallStop | undefined;
  /** The turn ended, also by an interrupt or an error. */
  end?(turn: TurnContext): Promise<void>;
}
