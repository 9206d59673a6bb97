// Canonical data -> ACP session updates that do not depend on a running turn: the user's
// prompt blocks as text and images, a saved conversation replayed for session/load, the task
// list as a plan, and the slash commands an editor can offer.

import type {
  AvailableCommand,
  ContentBlock,
  PlanEntry,
  SessionUpdate,
} from "@agentclientprotocol/sdk";
import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { ImagePart, Message } from "../messages.ts";
import { imagePart } from "../platform/image_file.ts";
import { base64ToBytes } from "../platform/base64.ts";
import { toolCallUpdate, toolResultUpdate } from "./tool_updates.ts";

/**
 * The user's prompt as one text for the model: text blocks as they are, a resource link to a
 * file of the workspace as an `@` mention (attached through the sandbox as the REPL's are), any
 * other link by its name and URI, an embedded text resource as a fenced block named by its
 * URI. Images go apart ({@linkcode promptImages}); audio and binary resources are named but not
 * included.
 *
 * @example
 * ```ts
 * import { promptText } from "./session_updates.ts";
 * const text = promptText([
 *   { type: "text", text: "Explain" },
 *   { type: "resource_link", uri: "file:///w/src/a%20b.ts", name: "a b.ts" },
 *   { type: "resource_link", uri: "file:///elsewhere/c.ts", name: "c.ts" },
 *   { type: "resource", resource: { uri: "file:///w/b.ts", text: "let b = 1;" } },
 * ], "/w");
 * if (!text.includes('@"src/a b.ts"') || !text.includes("c.ts (file:///elsewhere/c.ts)")) {
 *   throw new Error(text);
 * }
 * if (!text.includes("let b = 1;")) throw new Error(text);
 * ```
 */
export function promptText(blocks: readonly ContentBlock[], cwd?: string): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link": {
        const path = cwd === undefined ? undefined : workspacePath(block.uri, cwd);
        parts.push(path === undefined ? `${block.name} (${block.uri})` : `@"${path}"`);
        break;
      }
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) {
          parts.push(`Contents of ${resource.uri}:\n\`\`\`\n${resource.text}\n\`\`\``);
        } else {
          parts.push(`[binary resource ${resource.uri} not included]`);
        }
        break;
      }
      case "image":
        break;
      case "audio":
        parts.push("[audio not included: this agent reads text and images only]");
        break;
      default:
        break;
    }
  }
  return parts.join("\n\n");
}

/** The most bytes one image of a prompt may have before image_max_size is applied. */
const PROMPT_IMAGE_LIMIT = 32 * 1024 * 1024;

/**
 * The images of a prompt, checked by their first bytes (the conversation then checks the
 * size limit and whether the model can see).
 *
 * @param blocks The prompt's content blocks.
 * @returns The images, or why the prompt is refused.
 *
 * @example
 * ```ts
 * import { promptImages } from "./session_updates.ts";
 * const gif = await promptImages([{ type: "image", data: btoa("GIF89a..."), mimeType: "image/gif" }]);
 * if (!("images" in gif) || gif.images[0]?.mediaType !== "image/gif") throw new Error();
 * const svg = await promptImages([{ type: "image", data: btoa("<svg/>"), mimeType: "image/svg+xml" }]);
 * if (!("refused" in svg)) throw new Error();
 * ```
 */
export async function promptImages(
  blocks: readonly ContentBlock[],
): Promise<{ images: ImagePart[] } | { refused: string }> {
  const images: ImagePart[] = [];
  let index = 0;
  for (const block of blocks) {
    if (block.type !== "image") continue;
    index++;
    let bytes: Uint8Array;
    try {
      bytes = base64ToBytes(block.data);
    } catch {
      return { refused: `Image ${index} of the prompt is not valid base64` };
    }
    const name = block.uri ?? `image ${index}`;
    const part = await imagePart(bytes, { maxBytes: PROMPT_IMAGE_LIMIT, name });
    if ("error" in part) return { refused: part.error };
    images.push(part);
  }
  return { images };
}

/** The workspace-relative path of a file: URI inside `cwd`, else undefined. */
function workspacePath(uri: string, cwd: string): string | undefined {
  let path: string;
  try {
    if (!uri.startsWith("file:")) return undefined;
    path = fileURLToPath(uri);
  } catch {
    return undefined;
  }
  const rel = relative(cwd, path).replaceAll("\\", "/");
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel) || rel.includes('"')) return undefined;
  return rel;
}

/**
 * A saved conversation as the updates that show it again (session/load): user and agent
 * messages, reasoning, and each tool call with its final status and result.
 *
 * @example
 * ```ts
 * import { replayUpdates } from "./session_updates.ts";
 * const updates = replayUpdates([
 *   { kind: "system", content: "sys" },
 *   { kind: "user", content: "hi" },
 *   { kind: "assistant", content: "Hello", data: {} },
 * ], "/w");
 * if (updates.map((u) => u.sessionUpdate).join() !== "user_message_chunk,agent_message_chunk") throw new Error();
 * ```
 */
export function replayUpdates(messages: readonly Message[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const text = (t: string) => ({ type: "text" as const, text: t });
  for (const message of messages) {
    switch (message.kind) {
      case "system":
        break;
      case "user":
        for (const image of message.data?.images ?? []) {
          updates.push({
            sessionUpdate: "user_message_chunk",
            content: { type: "image", data: image.data, mimeType: image.mediaType },
          });
        }
        updates.push({ sessionUpdate: "user_message_chunk", content: text(message.content) });
        break;
      case "assistant":
        if (message.data.reasoning) {
          updates.push({
            sessionUpdate: "agent_thought_chunk",
            content: text(message.data.reasoning),
          });
        }
        if (message.content !== "") {
          updates.push({ sessionUpdate: "agent_message_chunk", content: text(message.content) });
        }
        break;
      case "tool_call":
        updates.push(toolCallUpdate(message.data, cwd));
        break;
      case "tool_result":
        updates.push(toolResultUpdate(message.data.callId, message.data.result));
        break;
      default: {
        const never: never = message;
        throw new Error(`unhandled message ${JSON.stringify(never)}`);
      }
    }
  }
  return updates;
}

/**
 * The task list (add_task, update_task) as a plan; undefined when there is no list.
 *
 * @example
 * ```ts
 * import { planUpdate } from "./session_updates.ts";
 * const u = planUpdate({ tasks: [{ id: "task_1", content: "Write tests", status: "in_progress" }] });
 * if (u?.sessionUpdate !== "plan" || u.entries[0]?.status !== "in_progress") throw new Error();
 * ```
 */
export function planUpdate(state: Record<string, unknown>): SessionUpdate | undefined {
  if (!Array.isArray(state.tasks)) return undefined;
  const entries: PlanEntry[] = state.tasks.flatMap((task: unknown) => {
    if (typeof task !== "object" || task === null) return [];
    const { content, status } = task as Record<string, unknown>;
    if (typeof content !== "string") return [];
    const known = status === "in_progress" || status === "completed" ? status : "pending";
    return [{ content, priority: "medium" as const, status: known }];
  });
  return { sessionUpdate: "plan", entries };
}

/** The slash commands that make sense in an editor (the REPL's others manage the terminal). */
export const ACP_COMMANDS: readonly AvailableCommand[] = [
  { name: "continue", description: "go on after a limit, an error or a cancel" },
  { name: "tasks", description: "show the task list" },
  { name: "tools", description: "list the tools and their risk" },
  { name: "permissions", description: "show the sandbox grants and permission rules" },
  {
    name: "context",
    description: "show the context window, what the next request takes, and the prompt tokens " +
      "the server processed and reused",
  },
  {
    name: "compact",
    description: "replace the conversation by the model's summary of it",
    input: { hint: "what the summary must keep in full (optional)" },
  },
  {
    name: "undo",
    description: "put back the files the last turn changed",
    input: { hint: "keep or overwrite, when you changed a file since" },
  },
  {
    name: "rewind",
    description: "go back before a message, files and conversation",
    input: { hint: "N [keep|overwrite]; without N, the list of messages" },
  },
];
