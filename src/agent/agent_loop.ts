// The agent loop: one user message in, model turns and tool calls until a final answer,
// `task_complete`, a limit, an error or an interrupt. It appends canonical messages to the
// conversation and reports everything as typed events to an injected sink; it knows nothing
// of HTTP, terminals or files (mini-swe-agent's run(), with pi's typed events). The turn's
// stages (turn_stage.ts) fit each request, may send the model back to work when it stops, and
// watch the calls, which loop_calls.ts drives through their path.

import { formatAgentError } from "../errors.ts";
import type { ImagePart, Message } from "../messages.ts";
import { sumUsage, toolCallMessage } from "../messages.ts";
import type { AssistantTurn } from "../providers/provider.ts";
import { offerTools } from "../sandbox/grants/tool_offer.ts";
import { STOP_HOOK_PREFIX } from "./turn_stage.ts";
import { runCalls } from "./loop_calls.ts";
import type { AgentLoopOptions, LoopTurn, Stop, TurnOutcome } from "./loop_turn.ts";

/**
 * Runs the loop for one user message (or, with `userText` null, continues after a limit).
 *
 * @param conversation The canonical messages so far; new messages are appended to it.
 * @param userText The user's message, or null to continue the conversation as it is.
 * @param options Provider, tools, approver, sink, limits, state and the turn's stages.
 * @param signal Aborts the running generation or tool (Ctrl-C).
 * @returns How the turn ended.
 */
export async function runAgentLoop(
  conversation: Message[],
  userText: string | null,
  options: AgentLoopOptions,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const turn = openTurn(conversation, options, signal);
  if (userText !== null) turn.append(userMessage(userText, options.userImages ?? []));
  await options.tools.set.ready();
  let goingOn = false;
  for (;;) {
    const { limits, sink } = options;
    if (signal.aborted) return finish(turn, { reason: "interrupted", extra: {} });
    if (turn.outcome.iterations >= limits.maxIterations) {
      sink({ type: "limit_reached", limit: "iterations", max: limits.maxIterations });
      return finish(turn, { reason: "iteration_limit", extra: {} });
    }
    turn.outcome.iterations++;
    sink({ type: "turn_started", iteration: turn.outcome.iterations });
    for (const stage of options.stages ?? []) stage.request?.(turn.context);
    const answer = await askModel(turn);
    if ("reason" in answer) return finish(turn, answer);
    turn.append(assistantMessage(answer));
    if (answer.toolCalls.length === 0) {
      const goOn = await answered(turn, answer, goingOn);
      if (goOn === undefined) {
        return finish(turn, { reason: "answered", extra: { text: answer.text } });
      }
      goingOn = true;
      turn.append({ kind: "user", content: `${STOP_HOOK_PREFIX}${goOn}` });
      continue;
    }
    // Record every call before running any, so a crash leaves them visible in the log.
    for (const call of answer.toolCalls) turn.append(toolCallMessage(call));
    const stop = await runCalls(answer.toolCalls, turn);
    if (stop) return finish(turn, stop);
  }
}

function openTurn(conversation: Message[], options: AgentLoopOptions, signal: AbortSignal) {
  const { sink } = options;
  const turn: LoopTurn = {
    options,
    signal,
    context: { sink, signal },
    conversation,
    outcome: {
      stopReason: "answered",
      text: "",
      iterations: 0,
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0 },
    },
    offer: offerTools(options.tools, options.window?.()),
    append(message) {
      conversation.push(message);
      sink({ type: "message", message });
    },
  };
  return turn;
}

function finish(turn: LoopTurn, stop: Stop): TurnOutcome {
  const { outcome } = turn;
  Object.assign(outcome, { stopReason: stop.reason }, stop.extra);
  turn.options.sink({
    type: "done",
    stopReason: stop.reason,
    text: outcome.text,
    ...(outcome.errorMessage === undefined ? {} : { errorMessage: outcome.errorMessage }),
  });
  return outcome;
}

function userMessage(text: string, images: readonly ImagePart[]): Message {
  return {
    kind: "user",
    content: text,
    ...(images.length > 0 ? { data: { images: [...images] } } : {}),
  };
}

function assistantMessage(answer: AssistantTurn): Message {
  return {
    kind: "assistant",
    content: answer.text,
    data: {
      ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
      ...(answer.usage ? { usage: answer.usage } : {}),
      ...(answer.thinkingBlocks?.length ? { thinkingBlocks: answer.thinkingBlocks } : {}),
    },
  };
}

/** Asks the provider, with the messages fitted to the window (again, shorter, if refused). */
async function askModel(turn: LoopTurn): Promise<AssistantTurn | Stop> {
  const { options, context } = turn;
  const stages = options.stages ?? [];
  let messages: readonly Message[] = turn.conversation;
  for (const stage of stages) if (stage.fit) messages = await stage.fit(messages, context);
  let answer = await request(turn, messages);
  // The estimate was too low for this server: shorten by its count and ask once more.
  const exceeded = answer.contextExceeded;
  const refit = exceeded && !answer.text
    ? stages.find((stage) => stage.refit)?.refit?.(turn.conversation, exceeded)
    : undefined;
  if (refit) {
    options.sink({ type: "warning", message: refit.note });
    answer = await request(turn, refit.messages);
    if (answer.contextExceeded && answer.stopReason === "error") {
      return { reason: "error", extra: refusedAgain(answer) };
    }
  } else if (exceeded && answer.stopReason !== "error") {
    options.sink({
      type: "warning",
      message: "The server cut the start of the prompt to fit its window, so the model may " +
        "have missed part of the conversation: type /compact, or raise the context size",
    });
  }
  if (answer.usage) {
    sumUsage(turn.outcome.usage, answer.usage);
    options.sink({ type: "usage", usage: answer.usage });
  }
  return failedAnswer(turn, answer) ?? answer;
}

/** One request with the tools offered now, its stream shown as it comes. */
function request(turn: LoopTurn, messages: readonly Message[]): Promise<AssistantTurn> {
  const { options, signal } = turn;
  const { sink } = options;
  turn.offer = offerTools(options.tools, options.window?.());
  return options.provider.complete(
    { messages, tools: [...turn.offer.schemas], signal },
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
}

/** An interrupted or failed answer ends the turn, keeping the text the user already saw. */
function failedAnswer(turn: LoopTurn, answer: AssistantTurn): Stop | undefined {
  const aborted = answer.stopReason === "aborted" || turn.signal.aborted;
  if (!aborted && answer.stopReason !== "error") return undefined;
  // Keep what the user already saw, but never a half-received tool call.
  if (answer.text) turn.append({ kind: "assistant", content: answer.text, data: {} });
  const partial = answer.text ? { partial: true } : {};
  if (aborted) return { reason: "interrupted", extra: { text: answer.text, ...partial } };
  return {
    reason: "error",
    extra: {
      text: answer.text,
      ...partial,
      errorMessage: answer.error ? formatAgentError(answer.error) : "The model server failed",
      ...(answer.error ? { error: answer.error } : {}),
    },
  };
}

/** The model answered without a call: a stage (a Stop hook) may send it back to work. */
async function answered(
  turn: LoopTurn,
  answer: AssistantTurn,
  goingOn: boolean,
): Promise<string | undefined> {
  if (answer.stopReason === "length") {
    turn.options.sink({
      type: "warning",
      message: "The answer was cut off at the model's output limit: " +
        "ask it to go on, or raise the server's max tokens",
    });
  }
  for (const stage of turn.options.stages ?? []) {
    const goOn = await stage.answered?.(answer.text, goingOn, turn.context);
    if (turn.signal.aborted) return undefined;
    if (goOn !== undefined) return goOn;
  }
  return undefined;
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
