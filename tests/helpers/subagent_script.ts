// Scripts a fake model server for a conversation and its subagents: each request is answered
// from the script of the conversation it belongs to, told apart by what a child's request
// starts with (its system prompt names the subagent; its first user message is its task), so
// children running at the same time each get their own replies in order.

import type { FakeResponder, RecordedRequest, ReplyBuilder } from "./fake_llm_server.ts";

/** The replies of the parent and of each child, by the child's task message. */
export interface SubagentScript {
  parent: ReplyBuilder[];
  /** Replies of the child whose task message (its first user message) is the key. */
  children?: Record<string, ReplyBuilder[]>;
}

/** Whether a request is a subagent's (its system prompt says so). */
export function isChildRequest(request: RecordedRequest): boolean {
  const system = request.messages[0];
  return typeof system?.content === "string" && system.content.includes("You are the subagent");
}

/** A child request's task message: its first user message. */
export function taskMessage(request: RecordedRequest): string {
  const first = request.messages.find((message) => message.role === "user");
  return typeof first?.content === "string" ? first.content : "";
}

/**
 * A responder that answers each conversation from its own script.
 *
 * @param script The parent's replies and each child's.
 * @returns The responder for startFakeLlmServer.
 */
export function subagentResponder(script: SubagentScript): FakeResponder {
  const parent = [...script.parent];
  const children = new Map(
    Object.entries(script.children ?? {}).map(([key, replies]) => [key, [...replies]]),
  );
  return (request) => {
    if (!isChildRequest(request)) return parent.shift();
    const message = taskMessage(request);
    const key = [...children.keys()].find((known) => message.startsWith(known));
    return key === undefined ? undefined : children.get(key)?.shift();
  };
}
