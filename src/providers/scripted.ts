// A deterministic provider that replays scripted turns, like mini-swe-agent's
// DeterministicModel. Used by loop tests and benchmarks where the wire format is not the
// subject; it records every request it receives.

import type { Message, ToolCall } from "../messages.ts";
import type { AssistantTurn, ModelRequest, Provider, ProviderEvent } from "./provider.ts";

export type ScriptedStep =
  | AssistantTurn
  | ((request: ModelRequest) => AssistantTurn | Promise<AssistantTurn>);

/**
 * Builds an answer turn.
 *
 * @example
 * ```ts
 * import { answer } from "./scripted.ts";
 * if (answer("hi").text !== "hi") throw new Error();
 * ```
 */
export function answer(text: string): AssistantTurn {
  return { text, reasoning: "", toolCalls: [], stopReason: "stop" };
}

/**
 * Builds a turn that calls tools; ids default to `call_N`.
 *
 * @example
 * ```ts
 * import { callTools } from "./scripted.ts";
 * const turn = callTools([{ name: "ls", args: {} }]);
 * if (turn.toolCalls[0]?.name !== "ls") throw new Error();
 * ```
 */
export function callTools(
  calls: { name: string; args: unknown; id?: string }[],
  text = "",
): AssistantTurn {
  const toolCalls: ToolCall[] = calls.map((call, i) => ({
    id: call.id ?? `call_${i + 1}`,
    name: call.name,
    arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args),
  }));
  return { text, reasoning: "", toolCalls, stopReason: "tool_calls" };
}

/** A provider that returns its steps in order and records the requests. */
export class ScriptedProvider implements Provider {
  readonly name = "scripted";
  readonly requests: Message[][] = [];
  #steps: ScriptedStep[];

  constructor(steps: ScriptedStep[], readonly model = "scripted") {
    this.#steps = [...steps];
  }

  async complete(
    request: ModelRequest,
    onEvent?: (event: ProviderEvent) => void,
  ): Promise<AssistantTurn> {
    this.requests.push(structuredClone([...request.messages]));
    const step = this.#steps.shift();
    if (!step) {
      return {
        text: "",
        reasoning: "",
        toolCalls: [],
        stopReason: "error",
        error: { kind: "provider_stream", baseUrl: "scripted", message: "no scripted turn left" },
      };
    }
    const turn = typeof step === "function" ? await step(request) : step;
    if (request.signal?.aborted) return { ...turn, toolCalls: [], stopReason: "aborted" };
    if (turn.reasoning) onEvent?.({ type: "reasoning_delta", text: turn.reasoning });
    if (turn.text) onEvent?.({ type: "text_delta", text: turn.text });
    return turn;
  }
}
