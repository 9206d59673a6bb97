// Canonical data -> ACP session updates that do not depend on a running turn: the user's
// prompt blocks as text, a saved conversation replayed for session/load, the task list as a
// plan, and the slash commands an editor can offer.

import type {
  AvailableCommand,
  ContentBlock,
  PlanEntry,
  SessionUpdate,
} from "@agentclientprotocol/sdk";
import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Message } from "../messages.ts";
import { toolCallUpdate, toolResultUpdate } from "./tool_updates.ts";

/**
 * The user's prompt as one text for the model: text blocks as they are, a resource link to a
 * file of the workspace as an `@` mention (attached through the sandbox as the REPL's are), any
 * other link by its name and URI, an embedded text resource as a fenced block named by its
 * URI. Images, audio and binary resources are named but not included (harness sends text only).
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
      case "audio":
        parts.push(`[${block.type} not included: this agent reads text only]`);
        break;
      default:
        break;
    }
  }
  return parts.join("\n\n");
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
];
