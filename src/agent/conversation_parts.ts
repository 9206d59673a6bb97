// What a conversation is made of (ConversationParts: its provider, tools, approver, session
// recorder, limits, window and the features' stages) and what it tells about itself (its
// turns for /rewind, its next request for the curator's side request). conversation.ts holds
// the conversation.

import type { Message, ToolSchema } from "../messages.ts";
import type { Approver } from "../permissions/approver.ts";
import type { Provider } from "../providers/provider.ts";
import type { TokenCounter } from "../providers/token_counter.ts";
import type { TurnCheckpoints } from "../checkpoints/turn_checkpoints.ts";
import type { LoopLimits } from "./loop_turn.ts";
import type { ArgumentParser, PlacedStage } from "./call_flight.ts";
import type { SessionRecorder } from "./session_recorder.ts";
import type { ToolScope } from "../sandbox/grants/tool_offer.ts";
import type { TurnStage } from "./turn_stage.ts";

/** The model's window as the conversation knows it. */
export interface ConversationWindow {
  /** The model's context length when known: enables warnings and shortening old results. */
  contextLength?: number;
  /** Where the context length came from, for /context. */
  contextSource?: string;
  /** How the user raises the window, for advice (default "the server's context size"). */
  contextRaise?: string;
  /** Compact automatically when a request would fill this percentage of the window (85). */
  compactAt?: number;
  /** The model's token count, shared by a run's conversations (learned from its usage). */
  tokenCounter?: TokenCounter;
}

/** The limits of each turn. */
export interface ConversationLimits extends LoopLimits {
  /** Identical failing calls allowed before the turn stops (default 3). */
  repeatedFailures?: number;
  /** The identical call with the same result answered without running (default 3; 0: off). */
  loopGuard?: number;
}

/** What features add to a conversation (app/ assembles them). */
export interface ConversationStages {
  /** Stages placed on each call's path (hooks, checkpoint gate, edit note, image gate ...). */
  call: readonly PlacedStage[];
  /** Steps in each turn (images of a message, hooks, checkpoints). */
  turn: readonly TurnStage[];
  /** Turns the model's argument text into a value (argument repair); default: plain JSON. */
  parse?: ArgumentParser;
  /** The snapshots behind /undo and /rewind (their stages are among the above). */
  checkpoints?: TurnCheckpoints;
  /** The front end's own call stages (among `call`): a subagent's calls get them too. */
  front?: readonly PlacedStage[];
}

export interface ConversationParts {
  provider: Provider;
  tools: ToolScope;
  approver: Approver;
  recorder: SessionRecorder;
  limits: ConversationLimits;
  window: ConversationWindow;
  stages: ConversationStages;
}

/** A user message of the conversation, for /rewind's list. */
export interface ConversationTurn {
  /** Messages before it (the conversation a rewind keeps). */
  messageCount: number;
  prompt: string;
  /** Files changed from this turn on and not undone yet. */
  files: string[];
}

/** The live conversation's next request and the room it leaves ({@linkcode Conversation.requestView}). */
export interface ConversationPrefix {
  /** The messages as the next request sends them. */
  messages: readonly Message[];
  tools: readonly ToolSchema[];
  /** Tokens the prompt may still grow by before the window's limit. */
  room: number;
  /** The model's calibrated count of a text. */
  tokens(text: string): number;
}
