// Builds harness's session events from another agent's conversation, item by item, in the
// order the transcript gives them. It keeps the shape a live session has, so replay and every
// provider take the result as they take their own: each block of tool calls is answered before
// anything else is said (a call the transcript leaves without a result gets an `interrupted`
// one), a call id is used once, consecutive assistant text is one message, and content harness
// has no place for is kept as text and counted.

import {
  makeToolResult,
  type Message,
  toolCallMessage,
  toolResultMessage,
} from "../../messages.ts";
import { eventFromMessage, type ImportSource, type TranscriptAgent } from "../session_events.ts";
import {
  AGENT_NAMES,
  type ImportedSession,
  type SkippedLine,
  type TimedEvent,
} from "./imported_session.ts";

/** Options of a result. */
export interface ResultOptions {
  /** The agent reported the call as failed. */
  error?: boolean;
  at?: string;
}

/** Turns a transcript's items into session events (see the module comment). */
export class TranscriptBuilder {
  readonly events: TimedEvent[] = [];
  readonly skipped: SkippedLine[] = [];
  keptAsText = 0;
  interrupted = 0;
  messages = 0;
  toolCalls = 0;
  /** Calls of the current block still waiting for their result: id -> tool name. */
  readonly #open = new Map<string, string>();
  /** Every call id used so far (an agent may repeat one; harness may not). */
  readonly #used = new Set<string>();
  /** The transcript's ids renamed because they repeated: its id -> ours, for the results. */
  readonly #renamed = new Map<string, string>();
  #blockAnswered = false;
  #reasoning: string[] = [];
  #at: string;
  /** Index of the assistant message more text joins (undefined once a call or turn follows). */
  #assistantAt: number | undefined;

  constructor(readonly agent: TranscriptAgent, startedAt: string) {
    this.#at = startedAt;
  }

  /** The agent's name, for the notes the builder writes. */
  get agentName(): string {
    return AGENT_NAMES[this.agent];
  }

  /** A line left out. */
  skip(line: number, reason: string): void {
    this.skipped.push({ line, reason });
  }

  /** Counts content kept as text and returns it bracketed, for a message. */
  keep(text: string): string {
    this.keptAsText++;
    return `[${text}]`;
  }

  /** Reasoning the next assistant message (or call) carries. */
  reasoning(text: string): void {
    if (text.trim() !== "") this.#reasoning.push(text.trim());
  }

  /** The user's message. Empty text is left out. */
  user(text: string, at?: string): void {
    if (text.trim() === "") return;
    this.#closeBlock(at);
    this.#push({ kind: "user", content: text }, at);
    this.messages++;
  }

  /** The assistant's text; it joins the assistant text right before it. */
  assistant(text: string, at?: string): void {
    if (text.trim() === "" && this.#reasoning.length === 0) return;
    this.#closeBlock(at);
    const joined = this.#assistantAt === undefined ? undefined : this.events[this.#assistantAt];
    if (joined?.type === "assistant_message" && this.#reasoning.length === 0) {
      joined.payload.content = [joined.payload.content, text].filter((t) => t !== "").join("\n\n");
      return;
    }
    this.#pushAssistant(text, at);
  }

  /**
   * A tool call; a call after results of the same block starts a new block (calls of the old
   * one still open are answered `interrupted` first).
   *
   * @returns The id the call has in harness (the transcript's, unless it repeated one).
   */
  call(id: string | undefined, name: string, args: unknown, at?: string): string {
    if (this.#blockAnswered) this.#closeBlock(at);
    if (this.#reasoning.length > 0) this.#pushAssistant("", at);
    this.#assistantAt = undefined;
    const callId = this.#freshId(id);
    if (id !== undefined && id !== callId) this.#renamed.set(id, callId);
    const text = typeof args === "string" ? args : JSON.stringify(args ?? {});
    this.#push(toolCallMessage({ id: callId, name: name || "unknown_tool", arguments: text }), at);
    this.#open.set(callId, name || "unknown_tool");
    this.toolCalls++;
    return callId;
  }

  /**
   * A call's result. A result for a call that is not open (the transcript lost the call, or
   * answered it after the conversation went on) is kept as text in a user message.
   */
  result(id: string, output: string, options: ResultOptions = {}): void {
    const callId = this.#renamed.get(id) ?? id;
    const name = this.#open.get(callId);
    if (name === undefined) {
      this.user(
        this.keep(
          `Result of a ${this.agentName} tool call this transcript has no open call for ` +
            `(${id}): ${output}`,
        ),
        options.at,
      );
      return;
    }
    const now = this.#time(options.at);
    const result = options.error
      ? makeToolResult({ errorType: "tool_error", errorMessage: output || "failed", now })
      : makeToolResult({ data: output, now });
    this.#push(toolResultMessage(callId, name, result), options.at);
    this.#open.delete(callId);
    this.#blockAnswered = true;
  }

  /** The agent compacted the conversation: harness continues from the summary too. */
  compacted(summary: string, at?: string): void {
    if (summary.trim() === "") return;
    this.#closeBlock(at);
    this.#at = at ?? this.#at;
    this.events.push({ type: "conversation_compacted", at: this.#at, payload: { summary } });
    this.#assistantAt = undefined;
  }

  /**
   * Ends the conversation: open calls are answered `interrupted`, session_started goes first,
   * and the account of what was left out comes along.
   *
   * @param start Where it was recorded, the model, the source and when it started.
   * @returns The imported session.
   */
  session(
    start: { source: ImportSource; cwd?: string; model?: string; startedAt: string },
  ): ImportedSession {
    this.#closeBlock();
    const { cwd, model, source, startedAt } = start;
    const started: TimedEvent = {
      type: "session_started",
      at: startedAt,
      payload: {
        model: model ?? "",
        baseUrl: "",
        cwd: cwd ?? "",
        grants: "",
        provider: source.agent,
        importedFrom: source,
      },
    };
    return {
      source,
      ...(cwd ? { cwd } : {}),
      ...(model ? { model } : {}),
      startedAt,
      events: [started, ...this.events],
      skipped: [...this.skipped].sort((a, b) => a.line - b.line),
      keptAsText: this.keptAsText,
      interrupted: this.interrupted,
      messages: this.messages,
      toolCalls: this.toolCalls,
    };
  }

  /** Answers every open call `interrupted` and ends the block. */
  #closeBlock(at?: string): void {
    for (const [callId, name] of this.#open) {
      const result = makeToolResult({
        errorType: "interrupted",
        errorMessage: `${this.agentName} recorded no result for this call (it was interrupted, ` +
          `or the transcript ends): it may or may not have had effects. Check the current ` +
          `state before calling "${name}" again`,
        now: this.#time(at),
      });
      this.#push(toolResultMessage(callId, name, result), at);
      this.interrupted++;
    }
    this.#open.clear();
    this.#blockAnswered = false;
  }

  #pushAssistant(text: string, at?: string): void {
    const reasoning = this.#reasoning.join("\n\n");
    this.#reasoning = [];
    this.#push({
      kind: "assistant",
      content: text,
      data: reasoning === "" ? {} : { reasoning },
    }, at);
    this.#assistantAt = this.events.length - 1;
    this.messages++;
  }

  #push(message: Message, at?: string): void {
    if (at !== undefined && !Number.isNaN(Date.parse(at))) this.#at = at;
    const event = eventFromMessage(message);
    this.events.push({ ...event, at: this.#at } as TimedEvent);
    if (message.kind !== "assistant") this.#assistantAt = undefined;
  }

  #time(at?: string): Date {
    const ms = Date.parse(at ?? this.#at);
    return new Date(Number.isNaN(ms) ? 0 : ms);
  }

  #freshId(id: string | undefined): string {
    let candidate = id && id.trim() !== "" ? id : `imported_${this.toolCalls + 1}`;
    for (let n = 2; this.#used.has(candidate); n++) candidate = `${id ?? "imported"}_${n}`;
    this.#used.add(candidate);
    return candidate;
  }
}
