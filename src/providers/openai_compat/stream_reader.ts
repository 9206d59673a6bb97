// Wire -> canonical: folds streamed Chat Completions chunks (content, reasoning and tool-call
// argument deltas, `finish_reason`, usage and llama-server's `timings`) into one AssistantTurn,
// emitting provider events as text arrives. The provider feeds it every chunk of one request,
// then asks for the turn.

import type { AgentError } from "../../errors.ts";
import type { ToolCall, Usage } from "../../messages.ts";
import type { AssistantTurn, ProviderEvent, StopReason } from "../provider.ts";
import { generateCallId } from "./call_ids.ts";
import { isJson, isRecord, nonEmptyString } from "../../platform/json_values.ts";

interface PartialCall {
  index: number;
  ordinal: number;
  wireId: string | undefined;
  name: string;
  args: string;
  announced: boolean;
}

/**
 * Folds stream chunks into one turn; tolerant of what real servers send (missing `index`,
 * arguments repeated in the finish chunk, arguments as objects, reasoning under either name).
 *
 * @example
 * ```ts
 * import { TurnAccumulator } from "./stream_reader.ts";
 * const accumulator = new TurnAccumulator();
 * accumulator.add({ choices: [{ index: 0, delta: { content: "Hi" } }] });
 * accumulator.add({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
 * const turn = accumulator.finish("http://127.0.0.1:9/v1", new Set());
 * if (turn.text !== "Hi" || turn.stopReason !== "stop") throw new Error(JSON.stringify(turn));
 * ```
 */
export class TurnAccumulator {
  /** Visible text received so far. */
  text = "";
  /** Reasoning text received so far. */
  reasoning = "";
  #finishReason: string | undefined;
  #wireUsage: Record<string, unknown> | undefined;
  #timings: Record<string, unknown> | undefined;
  #calls: PartialCall[] = [];
  #byIndex = new Map<number, PartialCall>();
  #onEvent: ((event: ProviderEvent) => void) | undefined;

  /** @param onEvent Receives text, reasoning and tool-call-started events as they stream. */
  constructor(onEvent?: (event: ProviderEvent) => void) {
    this.#onEvent = onEvent;
  }

  /**
   * Adds one stream chunk; anything that is not a chunk of choice 0 is ignored.
   *
   * @param chunk One parsed server-sent event.
   */
  add(chunk: unknown): void {
    if (!isRecord(chunk)) return;
    if (isRecord(chunk.usage)) this.#wireUsage = chunk.usage;
    if (isRecord(chunk.timings)) this.#timings = chunk.timings;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) {
      if (!isRecord(choice)) continue;
      if (typeof choice.index === "number" && choice.index !== 0) continue;
      if (isRecord(choice.delta)) this.#addDelta(choice.delta);
      if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
        this.#finishReason = choice.finish_reason;
      }
    }
  }

  #addDelta(delta: Record<string, unknown>): void {
    const reasoning = nonEmptyString(delta.reasoning_content) ?? nonEmptyString(delta.reasoning);
    if (reasoning !== undefined) {
      this.reasoning += reasoning;
      this.#onEvent?.({ type: "reasoning_delta", text: reasoning });
    }
    const content = nonEmptyString(delta.content);
    if (content !== undefined) {
      this.text += content;
      this.#onEvent?.({ type: "text_delta", text: content });
    }
    if (!Array.isArray(delta.tool_calls)) return;
    for (const toolDelta of delta.tool_calls) {
      if (isRecord(toolDelta)) this.#addToolDelta(toolDelta);
    }
  }

  #addToolDelta(delta: Record<string, unknown>): void {
    const fn = isRecord(delta.function) ? delta.function : {};
    const id = nonEmptyString(delta.id);
    const name = nonEmptyString(fn.name);
    const last = this.#calls.at(-1);
    // Servers that omit `index` send one call after another; a new id starts the next one.
    const index = typeof delta.index === "number"
      ? delta.index
      : last === undefined
      ? 0
      : id !== undefined && last.wireId !== undefined && id !== last.wireId
      ? Math.max(...this.#byIndex.keys()) + 1
      : last.index;
    let call = this.#byIndex.get(index);
    const startsNew = call === undefined ||
      (id !== undefined && call.wireId !== undefined && id !== call.wireId) ||
      (name !== undefined && call.name !== "" && name !== call.name && isJson(call.args));
    if (call === undefined || startsNew) {
      call = {
        index,
        ordinal: this.#calls.length,
        wireId: id,
        name: "",
        args: "",
        announced: false,
      };
      this.#calls.push(call);
      this.#byIndex.set(index, call);
    }
    call.wireId ??= id;
    if (call.name === "" && name !== undefined) call.name = name;
    const args = fn.arguments;
    if (typeof args === "string") {
      // Some servers repeat the whole arguments in the finish chunk.
      if (!(args === call.args && isJson(args))) call.args += args;
    } else if (typeof args === "object" && args !== null) {
      call.args = JSON.stringify(args);
    }
    if (!call.announced && call.name !== "") {
      call.announced = true;
      this.#onEvent?.({ type: "tool_call_started", index: call.ordinal, name: call.name });
    }
  }

  /**
   * Ends the turn because the user interrupted it, keeping the text received so far.
   *
   * @returns An `aborted` turn with no tool calls.
   */
  abortedTurn(): AssistantTurn {
    return endTurn("aborted", this.text, { reasoning: this.reasoning, usage: this.#usage() });
  }

  /**
   * Ends the turn after the stream closed normally.
   *
   * @param baseUrl Endpoint, named in the error when the stream had no `finish_reason`.
   * @param usedIds Tool-call ids already in the conversation; ids added here join it.
   * @returns The finished turn, or a `provider_stream` error turn for a truncated stream.
   */
  finish(baseUrl: string, usedIds: Set<string>): AssistantTurn {
    if (this.#finishReason === undefined) {
      const error: AgentError = {
        kind: "provider_stream",
        baseUrl,
        message: "the stream ended before a finish_reason: the server may have crashed, " +
          "check its log and try again",
      };
      return errorTurn(error, { text: this.text, reasoning: this.reasoning });
    }
    const calls = this.#calls.filter((call) => call.name !== "" || call.args !== "");
    // A turn cut by the token limit may hold a half-written call; it is never run.
    const stopReason: StopReason = this.#finishReason === "length"
      ? "length"
      : calls.length > 0
      ? "tool_calls"
      : "stop";
    const toolCalls: ToolCall[] = stopReason === "tool_calls"
      ? calls.map((call) => {
        let id = call.wireId ?? generateCallId();
        // Some servers number calls per response ("call_0"), which repeats across turns.
        if (usedIds.has(id)) id = generateCallId();
        usedIds.add(id);
        return { id, name: call.name, arguments: call.args.trim() === "" ? "{}" : call.args };
      })
      : [];
    const usage = this.#usage();
    const ended = endTurn(stopReason, this.text, { reasoning: this.reasoning, usage });
    return { ...ended, toolCalls };
  }

  #usage(): Usage | undefined {
    return readUsage(this.#wireUsage, this.#timings);
  }
}

/**
 * The turn's usage from the `usage` object and llama-server's `timings` (`prompt_n` tokens
 * processed, `cache_n` reused). The reused count comes from `prompt_tokens_details.cached_tokens`
 * (vLLM, OpenAI, recent llama-server) or `cache_n`; a server whose `prompt_tokens` counted only
 * the processed part still gets the whole prompt (`prompt_n + cache_n`).
 *
 * @param usage The last `usage` object of the stream.
 * @param timings The last `timings` object of the stream (llama-server).
 * @returns The canonical usage, or undefined when neither says anything.
 *
 * @example
 * ```ts
 * import { readUsage } from "./stream_reader.ts";
 * const usage = readUsage({ prompt_tokens: 900, completion_tokens: 5 }, { prompt_n: 100, cache_n: 800 });
 * if (usage?.promptTokens !== 900 || usage.reusedTokens !== 800) throw new Error(JSON.stringify(usage));
 * ```
 */
export function readUsage(
  usage: Record<string, unknown> | undefined,
  timings: Record<string, unknown> | undefined,
): Usage | undefined {
  const count = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
  const prompt = count(usage?.prompt_tokens);
  const completion = count(usage?.completion_tokens) ?? count(timings?.predicted_n);
  const details = isRecord(usage?.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const processedN = count(timings?.prompt_n);
  const cacheN = count(timings?.cache_n);
  if (prompt === undefined && completion === undefined && processedN === undefined) {
    return undefined;
  }
  const reused = count(details.cached_tokens) ?? cacheN;
  const whole = Math.max(prompt ?? 0, (processedN ?? 0) + (cacheN ?? 0));
  return {
    promptTokens: whole,
    completionTokens: completion ?? 0,
    ...(reused === undefined ? {} : { reusedTokens: Math.min(reused, whole) }),
  };
}

/**
 * Builds a turn with no tool calls.
 *
 * @param stopReason Why the turn ended.
 * @param text Visible text of the turn.
 * @param options `reasoning` text and token `usage`, when known.
 * @returns The turn.
 *
 * @example
 * ```ts
 * import { endTurn } from "./stream_reader.ts";
 * const turn = endTurn("aborted", "", { reasoning: "" });
 * if (turn.stopReason !== "aborted" || "usage" in turn) throw new Error(JSON.stringify(turn));
 * ```
 */
export function endTurn(
  stopReason: StopReason,
  text: string,
  options: { reasoning: string; usage?: Usage | undefined },
): AssistantTurn {
  const { reasoning, usage } = options;
  return { text, reasoning, toolCalls: [], stopReason, ...(usage ? { usage } : {}) };
}

/**
 * Builds a turn that failed: no tool calls, with the error and any text received before it.
 *
 * @param error What went wrong, for the user.
 * @param received Text and reasoning streamed before the failure.
 * @returns A turn with `stopReason: "error"`.
 *
 * @example
 * ```ts
 * import { errorTurn } from "./stream_reader.ts";
 * const turn = errorTurn({ kind: "usage", message: "bad" }, { text: "", reasoning: "" });
 * if (turn.stopReason !== "error" || turn.error?.kind !== "usage") throw new Error();
 * ```
 */
export function errorTurn(
  error: AgentError,
  received: { text: string; reasoning: string },
): AssistantTurn {
  return { ...endTurn("error", received.text, { reasoning: received.reasoning }), error };
}
