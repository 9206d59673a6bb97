// One subagent: the child conversation a `task` call starts, built with the same kernel as its
// parent's (src/agent/conversation.ts) from its own parts: the agent's instructions, the
// project's and the task's message as its whole history; its tools narrowed by its scope (a
// tool set built from its grants, offered only by the names its agent got); its approvals
// through its parent's prompt; the parent's limits and window. Its events go to its parent's
// turn (as subagent events) and nowhere else, and each message it is sent reports what it
// answered, the commands it ran and the checkpoints of the files it changed.

import { Conversation } from "../agent/conversation.ts";
import type { ConversationParts, ConversationStages } from "../agent/conversation_parts.ts";
import type { LoopEvent } from "../agent/loop_events.ts";
import type { TurnOutcome } from "../agent/loop_turn.ts";
import type { SessionRecorder } from "../agent/session_recorder.ts";
import { buildSystemPrompt, type PromptInstructions } from "../agent/system_prompt.ts";
import type { AgentDefinition } from "../agents/agent_definition.ts";
import type { TurnCheckpoint } from "../checkpoints/turn_record.ts";
import type { Approver } from "../permissions/approver.ts";
import type { Provider } from "../providers/provider.ts";
import type { Message } from "../messages.ts";
import type { ChildScope } from "../sandbox/grants/child_scope.ts";
import type { ToolScope } from "../sandbox/grants/tool_offer.ts";
import { RUN_COMMAND, TASK_COMPLETE } from "../tools/builtin_tools.ts";

/** What a child is built from. */
export interface ChildParts {
  taskId: string;
  agent: AgentDefinition;
  scope: ChildScope;
  /** Its tools: the set built from its scope's grants, narrowed to its tools' names. */
  tools: ToolScope;
  /** Its provider, pinned to its lease's slot. */
  provider: Provider;
  approver: Approver;
  /** The parent's parts: its limits and window. */
  parent: Pick<ConversationParts, "limits" | "window">;
  /** Its stages (checkpoints, hooks, diagnostics ...), made for it by the workspace. */
  stages(recorder: SessionRecorder, messages: () => readonly Message[]): ConversationStages;
  /** The parent's session id: the child's hooks see it. */
  sessionId: string | null;
  cwd: string;
  instructions: readonly PromptInstructions[];
}

/** What one message to a child came to. */
export interface ChildRun {
  outcome: TurnOutcome;
  /** The commands run_command ran for it, in order. */
  commands: string[];
  /** The checkpoints of its turn (the files it changed, before and after). */
  records: TurnCheckpoint[];
}

/**
 * The system prompt of a child: who started it and how it ends, the agent's instructions,
 * the project's instruction files, then the workspace line.
 *
 * @example
 * ```ts
 * import { childSystemPrompt } from "./child_task.ts";
 * const text = childSystemPrompt(
 *   { name: "explorer", instructions: "Find things." },
 *   { cwd: "/w", instructions: [], tools: ["read_file"], now: new Date(0) },
 * );
 * if (!text.includes('subagent "explorer"') || !text.includes("Find things.")) throw new Error(text);
 * ```
 */
export function childSystemPrompt(
  agent: Pick<AgentDefinition, "name" | "instructions">,
  context: { cwd: string; instructions: readonly PromptInstructions[]; tools: string[]; now: Date },
): string {
  const ends = context.tools.includes(TASK_COMPLETE.name)
    ? "answer with your report, or call task_complete with it"
    : "answer with your report";
  const head = [
    `You are the subagent "${agent.name}", started by another agent to do one task. You see ` +
    "nothing of its conversation: the task message is all you are told. Use your tools; " +
    `paths are relative to the workspace. When you are done, ${ends}: it is all the other ` +
    "agent gets back, so name files and lines.",
    agent.instructions.trim(),
    `Workspace: ${context.cwd} (${Deno.build.os}). Today is ${
      context.now.toISOString().slice(0, 10)
    }.`,
  ].filter((part) => part !== "").join("\n\n");
  return buildSystemPrompt({
    workspace: context.cwd,
    now: context.now,
    os: Deno.build.os,
    tools: context.tools,
    custom: head,
    instructions: context.instructions,
  });
}

/** A child conversation and the messages it was sent. */
export class ChildTask {
  readonly id: string;
  readonly agent: AgentDefinition;
  readonly scope: ChildScope;
  readonly conversation: Conversation;
  /** The server slot its current lease pinned (its provider reads it at each request). */
  slot: number | undefined;
  #running = false;

  /**
   * @param parts What it is built from.
   * @param attach Gives its parts subagents of its own (its scope may allow them).
   */
  constructor(
    parts: ChildParts,
    attach: (own: ConversationParts) => ConversationParts = (own) => own,
  ) {
    this.id = parts.taskId;
    this.agent = parts.agent;
    this.scope = parts.scope;
    const recorder: SessionRecorder = { id: parts.sessionId, record() {}, end() {} };
    let conversation: Conversation | undefined = undefined;
    const messages = () => conversation?.messages ?? [];
    const own: ConversationParts = attach({
      provider: parts.provider,
      tools: parts.tools,
      approver: parts.approver,
      // Its events reach the session log through its parent's turn, marked with its task.
      recorder,
      limits: parts.parent.limits,
      window: parts.parent.window,
      stages: parts.stages(recorder, messages),
    });
    const tools = [...parts.scope.tools];
    conversation = new Conversation(own, {
      messages: [{
        kind: "system",
        content: childSystemPrompt(parts.agent, {
          cwd: parts.cwd,
          instructions: parts.instructions,
          tools,
          now: new Date(),
        }),
      }],
    });
    this.conversation = conversation;
  }

  /** Whether a message is being answered now. */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Sends the child a message and runs its turn to the end.
   *
   * @param prompt The task (or a follow-up).
   * @param options Where its events go (its parent's turn), and the signal that stops it.
   * @returns What it answered, ran and changed.
   */
  async send(
    prompt: string,
    options: { forward(event: LoopEvent): void; signal: AbortSignal },
  ): Promise<ChildRun> {
    const commands: string[] = [];
    const checkpoints = this.conversation.parts.stages.checkpoints;
    const before = checkpoints?.records().length ?? 0;
    const display = (event: LoopEvent) => {
      // What the session log keeps of the child, it keeps through its parent's turn.
      options.forward(event);
      if (event.type === "tool_started" && event.name === RUN_COMMAND.name) {
        const command = (event.args as { command?: unknown } | undefined)?.command;
        if (typeof command === "string") commands.push(command);
      }
    };
    this.#running = true;
    try {
      const outcome = await this.conversation.send(prompt, display, options.signal);
      return { outcome, commands, records: [...(checkpoints?.records().slice(before) ?? [])] };
    } finally {
      this.#running = false;
    }
  }
}
