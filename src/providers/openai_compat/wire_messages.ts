// Canonical -> wire: turns canonical messages and tool schemas into Chat Completions
// `messages` and `tools`, checking on the way that every tool call is answered exactly once.
// The provider calls this before each request; ids go through the caller's id mapping.

import type { AgentError, Result } from "../../errors.ts";
import { err, ok } from "../../errors.ts";
import type { ImagePart, Message, ToolSchema } from "../../messages.ts";

/** One entry of an assistant message's `tool_calls` on the wire. */
export type WireToolCall = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
};

/** An assistant message on the wire; `content` is null when it holds only tool calls. */
export type WireAssistant = {
  role: "assistant";
  content: string | null;
  tool_calls?: WireToolCall[];
};

/** A part of a user message that carries images (Chat Completions' content array). */
export type WireContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

/** One entry of the `messages` array of a chat request. */
export type WireMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | WireContentPart[] }
  | WireAssistant
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * A user message's content with its images as `image_url` parts holding data URLs (what
 * llama-server, vLLM, LM Studio and Ollama's /v1 take); plain text without images.
 *
 * @example
 * ```ts
 * import { userContent } from "./wire_messages.ts";
 * const parts = userContent("see", [{ mediaType: "image/png", data: "AAAA", sha256: "x", bytes: 3 }]);
 * if (!Array.isArray(parts) || parts[1]?.type !== "image_url") throw new Error();
 * if (parts[1].image_url.url !== "data:image/png;base64,AAAA") throw new Error();
 * ```
 */
export function userContent(
  text: string,
  images: readonly ImagePart[] | undefined,
): string | WireContentPart[] {
  if (!images?.length) return text;
  return [
    ...(text === "" ? [] : [{ type: "text" as const, text }]),
    ...images.map((image) => ({
      type: "image_url" as const,
      image_url: { url: `data:${image.mediaType};base64,${image.data}` },
    })),
  ];
}

/**
 * The user message that carries the images tool results returned: a `tool` message holds
 * text only, so they follow the turn's results.
 */
function toolImagesMessage(
  pending: { name: string; callId: string; images: readonly ImagePart[] }[],
): WireMessage {
  const said = pending.map(({ name, callId, images }) =>
    `${images.map((image) => image.name ?? "an image").join(", ")} (from ${name}, call ${callId})`
  );
  return {
    role: "user",
    content: userContent(`The images the tool results above returned: ${said.join("; ")}`, [
      ...pending.flatMap((entry) => entry.images),
    ]),
  };
}

/**
 * Converts a canonical tool schema to a Chat Completions `tools` entry.
 *
 * @param tool Name, description and JSON Schema parameters of one tool.
 * @returns The `{ type: "function", function: {...} }` object the wire expects.
 *
 * @example
 * ```ts
 * import { toWireTool } from "./wire_messages.ts";
 * const wire = toWireTool({ name: "ls", description: "List files.", parameters: {} });
 * if (wire.type !== "function") throw new Error(JSON.stringify(wire));
 * ```
 */
export function toWireTool(tool: ToolSchema): Record<string, unknown> {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/**
 * Converts canonical messages to wire messages. An assistant message and the tool_call
 * messages after it become one assistant message with `tool_calls`. Reasoning is never sent.
 * The wire must answer every tool call with exactly one `tool` message right after its
 * assistant message; a conversation that breaks this is a harness bug, so it is reported as
 * an error instead of being patched with invented results.
 *
 * @param messages The conversation in canonical form.
 * @param wireId Maps a canonical tool-call id to the id sent on the wire.
 * @returns The wire messages, or a `usage` error naming the broken pairing.
 *
 * @example
 * ```ts
 * import { toWireMessages } from "./wire_messages.ts";
 * import { makeToolResult, toolCallMessage, toolResultMessage } from "../../messages.ts";
 * const call = toolCallMessage({ id: "c1", name: "ls", arguments: "{}" });
 * const result = toolResultMessage("c1", "ls", makeToolResult({ data: "a.txt" }));
 * const wire = toWireMessages([call, result], (id) => id);
 * if (!wire.ok || wire.value.length !== 2) throw new Error("paired call rejected");
 * if (toWireMessages([call], (id) => id).ok) throw new Error("unanswered call accepted");
 * ```
 */
export function toWireMessages(
  messages: readonly Message[],
  wireId: (id: string) => string,
): Result<WireMessage[], AgentError> {
  const out: WireMessage[] = [];
  const seen = new Set<string>();
  let block: { assistant: WireAssistant; ids: string[]; answered: Set<string> } | undefined;
  let resultsStarted = false;
  const closeBlock = (): string | undefined => {
    const missing = block?.ids.find((id) => !block?.answered.has(id));
    block = undefined;
    return missing === undefined ? undefined : `tool call "${missing}" has no result`;
  };
  const startBlock = (content: string): WireAssistant => {
    const assistant: WireAssistant = { role: "assistant", content };
    block = { assistant, ids: [], answered: new Set() };
    resultsStarted = false;
    out.push(assistant);
    return assistant;
  };
  // Images of the current block's tool results, sent once its results end.
  let toolImages: { name: string; callId: string; images: readonly ImagePart[] }[] = [];
  const flushImages = () => {
    if (toolImages.length > 0) out.push(toolImagesMessage(toolImages));
    toolImages = [];
  };
  for (const message of messages) {
    let problem: string | undefined;
    if (message.kind !== "tool_result") flushImages();
    switch (message.kind) {
      case "system":
        problem = closeBlock();
        out.push({ role: "system", content: message.content });
        break;
      case "user":
        problem = closeBlock();
        out.push({ role: "user", content: userContent(message.content, message.data?.images) });
        break;
      case "assistant":
        problem = closeBlock();
        startBlock(message.content);
        break;
      case "tool_call": {
        if (block === undefined || resultsStarted) problem = closeBlock();
        const assistant = block?.assistant ?? startBlock("");
        const { id, name, arguments: args } = message.data;
        if (seen.has(id)) problem ??= `tool call id "${id}" is used twice`;
        seen.add(id);
        block?.ids.push(id);
        (assistant.tool_calls ??= []).push({
          id: wireId(id),
          type: "function",
          function: { name, arguments: wireArguments(args) },
        });
        break;
      }
      case "tool_result": {
        const { callId } = message.data;
        if (block === undefined || !block.ids.includes(callId)) {
          problem = `tool result "${callId}" answers no tool call right before it`;
        } else if (block.answered.has(callId)) {
          problem = `tool call "${callId}" has two results`;
        }
        block?.answered.add(callId);
        resultsStarted = true;
        out.push({ role: "tool", tool_call_id: wireId(callId), content: message.content });
        if (message.data.images?.length) {
          toolImages.push({ name: message.data.name, callId, images: message.data.images });
        }
        break;
      }
      default: {
        const never: never = message;
        throw new Error(`unhandled message ${JSON.stringify(never)}`);
      }
    }
    if (problem) return err(conversationBug(problem));
  }
  const problem = closeBlock();
  if (problem) return err(conversationBug(problem));
  flushImages();
  for (const message of out) {
    if (message.role === "assistant" && message.tool_calls && message.content === "") {
      message.content = null;
    }
  }
  return ok(out);
}

function conversationBug(problem: string): AgentError {
  return {
    kind: "usage",
    message: `Cannot send the conversation to the model: ${problem}: ` +
      "this is a harness bug, please report it",
  };
}

/**
 * Arguments go back as the model sent them when they are JSON. llama.cpp and Ollama parse them
 * while applying the chat template and reject the whole request when they cannot, so text that
 * is not JSON is sent as "{}" (the tool result already told the model what was wrong).
 */
function wireArguments(args: string): string {
  if (args.trim() === "") return "{}";
  try {
    JSON.parse(args);
    return args;
  } catch {
    return "{}";
  }
}
