// Wraps any provider so that tool calls a model wrote as text become real tool calls: text
// deltas pass through the streaming holdback filter, and a finished turn without structured
// calls is parsed against the offered tools. `--no-text-tool-calls` leaves this wrapper out;
// `chatTemplate` (Ollama's /api/show `template`) or `families` narrows the formats read.

import type { ToolCall } from "../messages.ts";
import type { AssistantTurn, ModelRequest, Provider, ProviderEvent } from "./provider.ts";
import { type FormatFamily, parseTextToolCalls, TextToolCallStream } from "./text_tool_calls.ts";
import { familiesFromTemplate } from "./text_tool_calls/chat_template.ts";

/** Options of {@linkcode withTextToolCalls}. */
export interface TextToolCallOptions {
  /** Makes ids for parsed calls (default `call_` + 24 hex characters). */
  generateId?: () => string;
  /** Only these format families are read (default: every one). */
  families?: readonly FormatFamily[];
  /**
   * The model's chat template, when the server tells it: the families it names are read
   * (every one when it names none). `families` wins when both are given.
   */
  chatTemplate?: string;
}

function randomId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

function joinReasoning(first: string, second: string): string {
  return first && second ? `${first}\n${second}` : first || second;
}

/**
 * Wraps a provider so tool-call markup in answer text (every family in `FORMAT_FAMILIES`:
 * Hermes, Qwen, GLM, Kimi, MiniMax, Llama, Mistral, DeepSeek, gpt-oss harmony, ...) is turned
 * into tool calls, and `<think>` / `<seed:think>` blocks into reasoning. A turn that already
 * has structured tool calls keeps them.
 *
 * @param provider The provider to wrap.
 * @param options Id generation, and the format families to read (or the chat template that
 *   names them).
 * @returns A provider with the same name and model.
 *
 * @example
 * ```ts
 * import { withTextToolCalls } from "./with_text_tool_calls.ts";
 * import { answer, ScriptedProvider } from "./scripted.ts";
 * const inner = new ScriptedProvider([
 *   answer('<tool_call>{"name": "ls", "arguments": {}}</tool_call>'),
 * ]);
 * const turn = await withTextToolCalls(inner).complete({
 *   messages: [],
 *   tools: [{ name: "ls", description: "List files", parameters: {} }],
 * });
 * if (turn.stopReason !== "tool_calls" || turn.toolCalls[0]?.name !== "ls") throw new Error();
 * ```
 */
export function withTextToolCalls(
  provider: Provider,
  options: TextToolCallOptions = {},
): Provider {
  const generateId = options.generateId ?? randomId;
  const families = options.families ??
    (options.chatTemplate === undefined ? undefined : familiesFromTemplate(options.chatTemplate));
  const formats = families === undefined ? {} : { families };
  return {
    name: provider.name,
    model: provider.model,
    ...(provider.countTokens ? { countTokens: provider.countTokens.bind(provider) } : {}),
    async complete(
      request: ModelRequest,
      onEvent?: (event: ProviderEvent) => void,
    ): Promise<AssistantTurn> {
      const stream = new TextToolCallStream(request.tools, formats);
      let nativeCalls = 0;
      let textCalls = 0;
      const show = (pieces: ReturnType<TextToolCallStream["push"]>) => {
        for (const piece of pieces) {
          if (piece.type === "text") onEvent?.({ type: "text_delta", text: piece.text });
          else if (piece.type === "reasoning") {
            onEvent?.({ type: "reasoning_delta", text: piece.text });
          } else if (piece.type === "call" && nativeCalls === 0) {
            onEvent?.({ type: "tool_call_started", index: textCalls++, name: piece.name });
          }
        }
      };
      const turn = await provider.complete(request, (event) => {
        if (event.type === "text_delta") show(stream.push(event.text));
        else {
          if (event.type === "tool_call_started") nativeCalls++;
          onEvent?.(event);
        }
      });
      const failed = turn.stopReason === "error" || turn.stopReason === "aborted";
      // Markup held back from a failed turn is not shown: it may be half a call.
      if (!failed) show(stream.end());
      const offered = failed || turn.toolCalls.length > 0 ? [] : request.tools;
      const parsed = parseTextToolCalls(turn.text, offered, formats);
      const reasoning = joinReasoning(turn.reasoning, parsed.reasoning);
      if (parsed.calls.length === 0) return { ...turn, text: parsed.text, reasoning };
      const toolCalls: ToolCall[] = parsed.calls.map((call) => ({ id: generateId(), ...call }));
      return { ...turn, text: parsed.text, reasoning, toolCalls, stopReason: "tool_calls" };
    },
  };
}
