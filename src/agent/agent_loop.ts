// The agent loop: one user message in, model turns and tool calls until a final answer,
// `task_complete`, a limit, an error or an interrupt. It appends canonical messages to the
// conversation and reports everything as typed events to an injected sink; it knows nothing
// of HTTP, terminals or files (mini-swe-agent's run(), with pi's typed events).

import type { AgentError } from "../errors.ts";
import { formatAgentError } from "../errors.ts";
import type { ImagePart, Message, ToolCall, ToolResult, Usage } from "../messages.ts";
import { makeToolResult, sumUsage, toolCallMessage, toolResultMessage } from "../messages.ts";
import type { AssistantTurn, Provider } from "../providers/provider.ts";
import type { RefusalNumbers } from "../providers/context_refusal.ts";
import type { LoopEventSink, StopReasonOut } from "./loop_events.ts";
import type { Approver } from "../permissions/approver.ts";
import { readsOnly, type ToolRunner, toToolSchema } from "../tools/tool_runner.ts";
import {
  type ArgumentParser,
  type DrivenCall,
  driveToolCall,
  prepareToolCall,
  runApprovedCall,
} from "./call_driver.ts";
import type { ToolCallStatus } from "../tools/tool_call.ts";
import { approverForTurn } from "./approve_together.ts";
import { DEFAULT_LOOP_GUARD, LoopGuard } from "./loop_guard.ts";
import { type CallHooks, STOP_HOOK_PREFIX, type TurnHooks } from "./turn_hooks.ts";

export interface LoopLimits {
  /** Model turns per user message (default 10). */
  maxIterations: number;
  /** Tool calls executed per model turn (default 15); the rest get limit_reached. */
  maxToolCalls: number;
}

export interface AgentLoopOptions {
  provider: Provider;
  tools: ToolRunner;
  approver: Approver;
  sink: LoopEventSink;
  limits: LoopLimits;
  /** Conversation state shared with tools (tasks); replaced after each call. */
  state: Record<string, unknown>;
  parseArguments?: ArgumentParser;
  /** What to send for the message list: shortened when it would overflow the context. */
  fitMessages?: (
    messages: readonly Message[],
  ) => readonly Message[] | Promise<readonly Message[]>;
  /**
   * Shortens harder after the server refused a request as too long (with the window and the
   * count the server named). Returns the messages to ask with once more and a note for the
   * user, or undefined when nothing could be shortened.
   */
  refitMessages?: (
    messages: readonly Message[],
    numbers: RefusalNumbers,
  ) => { messages: readonly Message[]; note: string } | undefined;
  /**
   * Called for each failed call. Returning a stop ends the turn (repeated failures): `user`
   * is said to the user, `model` is added to the call's result for the model's next turn.
   */
  onCallFailed?: (
    call: ToolCall,
    result: ToolResult,
  ) => { user: string; model: string } | undefined;
  /** The identical call with the same result answered without running (default 3; 0: off). */
  loopGuard?: number;
  /** Hooks around each call and the turn's checkpoint (turn_hooks.ts). */
  hooks?: CallHooks;
  /** Asked when the model would stop: a Stop hook may make it go on. */
  stopping?: TurnHooks["stopping"];
  /** Images sent with the user's message. */
  userImages?: readonly ImagePart[];
  clock?: () => number;
}

export interface CallRecord {
  id: string;
  name: string;
  arguments: unknown;
  result: ToolResult;
  /** The final state of the call (e.g. "denied" when the policy or the user refused it). */
  status: ToolCallStatus;
}

export interface TurnOutcome {
  stopReason: StopReasonOut;
  /** The final answer (or task_complete summary). */
  text: string;
  /** `text` is what streamed before the turn failed or was interrupted, not a whole answer. */
  partial?: boolean;
  iterations: number;
  toolCalls: CallRecord[];
  usage: Usage;
  error?: AgentError;
  errorMessage?: string;
}

/**
 * A turn that ended with an error before the model was asked (a refused message, a run that
 * could not start): nothing was sent, nothing ran.
 *
 * @param errorMessage What the user is told.
 * @returns The outcome.
 *
 * @example
 * ```ts
 * import { unsentTurn } from "./agent_loop.ts";
 * const outcome = unsentTurn("No server");
 * if (outcome.stopReason !== "error" || outcome.iterations !== 0) throw new Error();
 * ```
 */
export function unsentTurn(errorMessage: string): TurnOutcome {
  return {
    stopReason: "error",
    text: "",
    iterations: 0,
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    errorMessage,
  };
}

/**
 * Runs the loop for one user message (or, with `userText` null, continues after a limit).
 *
 * @param conversation The canonical messages so far; new messages are appended to it.
 * @param userText The user's message, or null to continue the conversation as it is.
 * @param options Provider, tools, approver, sink, limits and state.
 * @param signal Aborts the running generation or tool (Ctrl-C).
 * @returns How the turn ended.
 */
export async function runAgentLoop(
  conversation: Message[],
  userText: string | null,
  options: AgentLoopOptions,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const { provider, tools, sink, limits } = options;
  const append = (message: Message) => {
    conversation.push(message);
    sink({ type: "message", message });
  };
  const outcome: TurnOutcome = {
    stopReason: "answered",
    text: "",
    iterations: 0,
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
  };
  const finish = (stopReason: StopReasonOut, extra: Partial<TurnOutcome> = {}): TurnOutcome => {
    Object.assign(outcome, { stopReason }, extra);
    sink({
      type: "done",
      stopReason,
      text: outcome.text,
      ...(outcome.errorMessage === undefined ? {} : { errorMessage: outcome.errorMessage }),
    });
    return outcome;
  };
  if (userText !== null) {
    const images = options.userImages ?? [];
    append({
      kind: "user",
      content: userText,
      ...(images.length > 0 ? { data: { images: [...images] } } : {}),
    });
  }
  await tools.ready?.();
  const guard = new LoopGuard(options.loopGuard ?? DEFAULT_LOOP_GUARD);
  let stopHookActive = false;

  for (;;) {
    if (signal.aborted) return finish("interrupted");
    if (outcome.iterations >= limits.maxIterations) {
      sink({ type: "limit_reached", limit: "iterations", max: limits.maxIterations });
      return finish("iteration_limit");
    }
    outcome.iterations++;
    sink({ type: "turn_started", iteration: outcome.iterations });
    const ask = (messages: readonly Message[]) =>
      provider.complete(
        { messages, tools: tools.list().map(toToolSchema), signal },
        (event) => {
          if (event.type === "text_delta") sink({ type: "text_delta", text: event.text });
          if (event.type === "reasoning_delta") sink({ type: "reasoning_delta", text: event.text });
          if (event.type === "waiting") sink({ type: "waiting", elapsedMs: event.elapsedMs });
          if (event.type === "prompt_progress") {
            const { processed, total, elapsedMs } = event;
            sink({ type: "waiting", elapsedMs, progress: { processed, total } });
          }
        },
      );
    let turn = await ask(
      options.fitMessages ? await options.fitMessages(conversation) : conversation,
    );
    // The estimate was too low for this server: shorten by its count and ask once more.
    const refit = turn.contextExceeded && !turn.text
      ? options.refitMessages?.(conversation, turn.contextExceeded)
      : undefined;
    if (refit) {
      sink({ type: "warning", message: refit.note });
      turn = await ask(refit.messages);
      if (turn.contextExceeded && turn.stopReason === "error") {
        return finish("error", refusedAgain(turn));
      }
    } else if (turn.contextExceeded && turn.stopReason !== "error") {
      sink({
        type: "warning",
        message: "The server cut the start of the prompt to fit its window, so the model may " +
          "have missed part of the conversation: type /compact, or raise the context size",
      });
    }
    if (turn.usage) {
      sumUsage(outcome.usage, turn.usage);
      sink({ type: "usage", usage: turn.usage });
    }
    if (turn.stopReason === "aborted" || signal.aborted) {
      // Keep what the user already saw, but never a half-received tool call.
      if (turn.text) append({ kind: "assistant", content: turn.text, data: {} });
      return finish("interrupted", { text: turn.text, ...(turn.text ? { partial: true } : {}) });
    }
    if (turn.stopReason === "error") {
      // The text streamed before the failure was shown: keep it, as after an interrupt.
      if (turn.text) append({ kind: "assistant", content: turn.text, data: {} });
      const message = turn.error ? formatAgentError(turn.error) : "The model server failed";
      return finish("error", {
        text: turn.text,
        ...(turn.text ? { partial: true } : {}),
        errorMessage: message,
        ...(turn.error ? { error: turn.error } : {}),
      });
    }
    append({
      kind: "assistant",
      content: turn.text,
      data: {
        ...(turn.reasoning ? { reasoning: turn.reasoning } : {}),
        ...(turn.usage ? { usage: turn.usage } : {}),
        ...(turn.thinkingBlocks?.length ? { thinkingBlocks: turn.thinkingBlocks } : {}),
      },
    });
    if (turn.toolCalls.length === 0) {
      if (turn.stopReason === "length") {
        sink({
          type: "warning",
          message: "The answer was cut off at the model's output limit: " +
            "ask it to go on, or raise the server's max tokens",
        });
      }
      // A Stop hook may send the model back to work, with its reason as the next message.
      const verdict = await options.stopping?.(turn.text, stopHookActive, signal);
      for (const message of verdict?.notices ?? []) sink({ type: "warning", message });
      if (verdict?.goOn === undefined || signal.aborted) {
        return finish("answered", { text: turn.text });
      }
      stopHookActive = true;
      append({ kind: "user", content: `${STOP_HOOK_PREFIX}${verdict.goOn}` });
      continue;
    }

    // Record every call before running any, so a crash leaves them visible in the log.
    for (const call of turn.toolCalls) append(toolCallMessage(call));
    const stop = await runCalls(turn.toolCalls, options, signal, { append, outcome, guard });
    if (stop) return finish(stop.reason, stop.extra);
  }
}

type Stop = { reason: StopReasonOut; extra: Partial<TurnOutcome> };

/**
 * Runs one turn's calls; every call id gets exactly one result, appended in call order. A run
 * of consecutive read-only calls (tools that declare only `read`) is approved one by one, then
 * run together: each shows as it finishes. Before any runs, the approver may ask about all
 * the calls that need approval in one prompt (approve_together.ts).
 */
async function runCalls(
  calls: ToolCall[],
  options: AgentLoopOptions,
  signal: AbortSignal,
  turn: { append: (message: Message) => void; outcome: TurnOutcome; guard: LoopGuard },
): Promise<Stop | undefined> {
  const { append, outcome, guard } = turn;
  let stop: Stop | undefined;
  const max = options.limits.maxToolCalls;
  // Calls that need the user's approval are asked about together, before any runs (not the
  // ones the loop guard answers).
  const asked = calls.slice(0, max).filter((call) =>
    !guard.check(call) && !options.hooks?.screens(call.name)
  );
  const approver = await approverForTurn(asked, options, signal);
  for (let index = 0; index < calls.length;) {
    let size = 1;
    while (
      !stop && index + size < Math.min(calls.length, max) &&
      isReadOnly(calls[index]!, options) && isReadOnly(calls[index + size]!, options)
    ) {
      size++;
    }
    const group = calls.slice(index, index + size);
    const driven = stop || index >= max ? group.map(() => undefined) : size === 1
      ? [{
        driven: await driveToolCall(group[0]!, { ...options, approver, guard }, signal),
        shown: false,
      }]
      : await driveTogether(group, { ...options, approver, guard }, signal);
    for (const [offset, call] of group.entries()) {
      stop = finishCall(call, index + offset, driven[offset], {
        options,
        signal,
        append,
        outcome,
        guard,
        stop,
      });
    }
    index += size;
  }
  return stop;
}

/** A tool that only reads: it declares `read` and nothing else the sandbox grants. */
function isReadOnly(call: ToolCall, options: AgentLoopOptions): boolean {
  return readsOnly(options.tools.list().find((tool) => tool.name === call.name));
}

/** Approves the calls in order (prompts never overlap), then runs the approved ones at once. */
async function driveTogether(
  group: ToolCall[],
  options: AgentLoopOptions & { guard: LoopGuard },
  signal: AbortSignal,
): Promise<{ driven: DrivenCall; shown: boolean }[]> {
  const prepared = [];
  for (const call of group) prepared.push(await prepareToolCall(call, { ...options }, signal));
  return await Promise.all(prepared.map(async (entry) => {
    if ("done" in entry) return { driven: entry.done, shown: false };
    const driven = await runApprovedCall(entry, { ...options }, signal);
    options.sink({
      type: "tool_finished",
      callId: entry.call.id,
      name: entry.call.name,
      args: driven.args,
      result: driven.result,
      display: driven.display,
    });
    return { driven, shown: true };
  }));
}

/** Turns one call's outcome (or its absence: not run) into its result; returns the stop. */
function finishCall(
  call: ToolCall,
  index: number,
  ran: { driven: DrivenCall; shown: boolean } | undefined,
  context: {
    options: AgentLoopOptions;
    signal: AbortSignal;
    append: (message: Message) => void;
    outcome: TurnOutcome;
    guard: LoopGuard;
    stop: Stop | undefined;
  },
): Stop | undefined {
  const { options, signal, outcome } = context;
  let stop = context.stop;
  let result: ToolResult;
  let args: unknown = call.arguments;
  let display = "";
  let status: ToolCallStatus = "cancelled";
  const driven = ran?.driven;
  if (driven === undefined && stop) {
    result = makeToolResult({
      errorType: "cancelled",
      errorMessage: stop.reason === "task_complete"
        ? "Not run: task_complete ended the run"
        : "Not run: the turn was stopped before this call",
    });
  } else if (driven === undefined) {
    status = "limit_reached";
    const max = options.limits.maxToolCalls;
    if (index === max) options.sink({ type: "limit_reached", limit: "tool_calls", max });
    result = makeToolResult({
      errorType: "limit_reached",
      errorMessage: `Not run: at most ${max} tool calls run per model turn. ` +
        `Call it again in your next turn if you still need it`,
    });
  } else {
    args = driven.args ?? call.arguments;
    result = driven.result;
    // The worker always returns a copy: only a real change is an event (and a log row).
    const changed = JSON.stringify(driven.conversationState) !== JSON.stringify(options.state);
    if (changed) {
      options.state = driven.conversationState;
      options.sink({ type: "state_changed", state: options.state });
    }
    if ("startedAt" in driven.state) {
      // A call the user changed ran with their arguments: remember it under those.
      const ran = driven.editedFrom === undefined
        ? call
        : { ...call, arguments: JSON.stringify(driven.args) };
      context.guard.record(ran, result, { mayChange: changed || !isReadOnly(call, options) });
    }
    if (driven.final) {
      stop ??= { reason: "task_complete", extra: { text: result.data ?? "" } };
    } else if (driven.hookStop !== undefined) {
      stop ??= {
        reason: "error",
        extra: { errorMessage: `Stopped by a hook: ${driven.hookStop}` },
      };
    } else if (driven.abortTurn || signal.aborted) {
      stop ??= { reason: "interrupted", extra: {} };
    } else if (!result.success && options.onCallFailed) {
      const stopped = options.onCallFailed(call, result);
      if (stopped) {
        result = { ...result, error_message: `${result.error_message}. ${stopped.model}` };
        stop ??= { reason: "error", extra: { errorMessage: stopped.user } };
      }
    }
    display = driven.display;
    status = driven.state.status;
    // Side requests of a tool (the read_file curator) count in the run's usage.
    if (driven.usage) {
      sumUsage(outcome.usage, driven.usage);
      options.sink({ type: "usage", usage: driven.usage, side: call.name });
    }
  }
  // A call run with others was shown as it finished.
  if (!ran?.shown) {
    options.sink({
      type: "tool_finished",
      callId: call.id,
      name: call.name,
      args,
      result,
      display,
    });
  }
  const message = toolResultMessage(call.id, call.name, result, driven?.images);
  if (driven?.editedFrom !== undefined) message.data.changedArguments = JSON.stringify(driven.args);
  context.append(message);
  outcome.toolCalls.push({ id: call.id, name: call.name, arguments: args, result, status });
  return stop;
}

/** The end of a turn whose request the server refused again after it was shortened. */
function refusedAgain(turn: AssistantTurn): Partial<TurnOutcome> {
  const { promptTokens, limit } = turn.contextExceeded ?? {};
  const numbers = promptTokens !== undefined && limit !== undefined
    ? ` (${promptTokens} tokens for its ${limit}-token window)`
    : "";
  return {
    errorMessage: `The server refused the request as too long again after old tool output ` +
      `was shortened${numbers}: type /compact, start a new session, or raise the server's ` +
      "context size",
    ...(turn.error ? { error: turn.error } : {}),
  };
}
