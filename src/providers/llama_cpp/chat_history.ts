// Canonical messages -> node-llama-cpp chat history. One model item holds everything the
// assistant did between two user messages: its text, each tool call with the result our loop
// produced, and the text after those results, as LlamaChatSession would have recorded it.

import type { Message } from "../../messages.ts";
import type { LlamaChatHistoryItem, LlamaModelResponseItem } from "./node_llama_cpp.ts";

/**
 * Converts canonical messages to a chat history that ends with a model item to generate into
 * (an empty one after a user message, or the current one after tool results).
 *
 * @param messages The conversation so far.
 * @returns The history for LlamaChat.generateResponse.
 * @example
 * ```ts
 * import { toChatHistory } from "./chat_history.ts";
 * const history = toChatHistory([{ kind: "user", content: "hi" }]);
 * if (history.length !== 2 || history[1]?.type !== "model") throw new Error();
 * ```
 */
export function toChatHistory(messages: readonly Message[]): LlamaChatHistoryItem[] {
  const history: LlamaChatHistoryItem[] = [];
  const results = new Map<string, unknown>();
  for (const message of messages) {
    if (message.kind === "tool_result") results.set(message.data.callId, parseResult(message));
  }
  let model: LlamaModelResponseItem[] | undefined;
  let callsInChunk = 0;
  const currentModel = () => {
    if (!model) {
      model = [];
      history.push({ type: "model", response: model });
    }
    return model;
  };
  for (const message of messages) {
    switch (message.kind) {
      case "system":
        // Later system messages (rare) are kept in place as system items.
        history.push({ type: "system", text: message.content });
        model = undefined;
        break;
      case "user":
        history.push({ type: "user", text: message.content });
        model = undefined;
        break;
      case "assistant":
        if (message.content !== "") currentModel().push(message.content);
        callsInChunk = 0;
        break;
      case "tool_call": {
        const call = message.data;
        currentModel().push({
          type: "functionCall",
          name: call.name,
          params: parseArguments(call.arguments),
          result: results.get(call.id) ?? { error: "the call has no result" },
          // Calls of one model turn form one chunk (parallel calls).
          ...(callsInChunk === 0 ? { startsNewChunk: true } : {}),
        });
        callsInChunk++;
        break;
      }
      case "tool_result":
        // Attached to its call above; a new assistant turn starts a new chunk.
        callsInChunk = 0;
        break;
      default: {
        const never: never = message;
        throw new Error(`unknown message kind ${JSON.stringify(never)}`);
      }
    }
  }
  const last = history.at(-1);
  if (last?.type !== "model") history.push({ type: "model", response: [] });
  return history;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseResult(message: Extract<Message, { kind: "tool_result" }>): unknown {
  // The result as JSON (the same text a chat-completions server would receive).
  try {
    return JSON.parse(message.content);
  } catch {
    return message.content;
  }
}
