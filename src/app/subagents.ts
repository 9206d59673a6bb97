// Subagents, registered on a conversation as an entry and a turn stage (DESIGN.md decision 20):
// `attach` gives a conversation the `task` tool (when its depth allows), a stage that follows
// its turns (a child's events go to the turn that started it), and its provider pinned to its
// server slot. A `task` call starts a child (child_task.ts) in a scope narrowed from the
// caller's (child_scope.ts: the agent's tools and paths, never more than the caller's), with
// tools built from that scope's grants (scoped_tools.ts), waits for its lease on the server
// (subagent_slots.ts), and returns its report with harness's own footer (task_footer.ts): what
// its checkpoints recorded it changed and the commands it ran. What it changed joins the
// caller's turn, so /undo puts it back. A later call with its task id sends it another message.

import type { ConversationParts, ConversationStages } from "../agent/conversation_parts.ts";
import type { LoopEvent } from "../agent/loop_events.ts";
import type { PlacedStage } from "../agent/call_flight.ts";
import type { SessionRecorder } from "../agent/session_recorder.ts";
import type { TurnContext, TurnStage } from "../agent/turn_stage.ts";
import type { PromptInstructions } from "../agent/system_prompt.ts";
import type { Message } from "../messages.ts";
import type { Settings } from "../config/settings.ts";
import type { AgentDefinition } from "../agents/agent_definition.ts";
import type { FileState } from "../checkpoints/file_state.ts";
import type { PathStat } from "../checkpoints/diff_stat.ts";
import type { Prompter } from "../permissions/prompt_types.ts";
import { pinnedProvider, type SlotLease } from "../providers/slot_scheduler.ts";
import { agentReach } from "../sandbox/grants/agent_reach.ts";
import { childScope, describeChildRefusal, TASK_TOOL } from "../sandbox/grants/child_scope.ts";
import { callSeat, offerTools, withScopeFiles } from "../sandbox/grants/tool_offer.ts";
import type { EntryCall, ToolEntry, ToolRun, ToolSource } from "../tools/tool_entry.ts";
import { ToolSet } from "../tools/tool_set.ts";
import type { AgentCatalog } from "./agent_catalog.ts";
import { childApprover, PromptQueue } from "./child_approver.ts";
import { type ChildRun, ChildTask } from "./child_task.ts";
import type { OpenedProvider } from "./provider_openers.ts";
import type { RunApproval } from "./run_approver.ts";
import type { RunTools } from "./run_tools.ts";
import type { ScopeRequest } from "./scoped_tools.ts";
import { SerialLeases, SubagentSlots } from "./subagent_slots.ts";
import { type TaskArgs, taskEntry, taskFailure } from "./task_tool.ts";
import { taskReport } from "./task_report.ts";

/** What a workspace's subagents are made from. */
export interface SubagentsOptions {
  settings: Settings;
  cwd: string;
  tools: RunTools;
  agents: AgentCatalog;
  approval: RunApproval;
  /**
   * The stages of a child's conversation: the workspace's, with its parent's front end's (an
   * editor's diffs of edits on disk).
   */
  stages(
    recorder: SessionRecorder,
    messages: () => readonly Message[],
    front: readonly PlacedStage[] | undefined,
  ): ConversationStages;
  /** Lines changed between a checkpoint's states, for the footer. */
  changedLines(
    states: Readonly<Record<string, readonly [FileState, FileState]>>,
  ): Promise<PathStat[] | { unknown: string }>;
  instructions: readonly PromptInstructions[];
  /** The run's provider as it is now (/model may switch it). */
  opened(): OpenedProvider;
}

/** A conversation that may start subagents. */
export interface DelegatorSeat {
  /** The prompt its approvals go through: its children's go there too. */
  prompter?: Prompter;
  sessionId: string | null;
  /** 0 for the user's conversation. */
  depth: number;
  /** It runs without asking (--yes). */
  autoApprove: boolean;
  /** How its children's task ids start ("" for the user's, "2." for task 2's). */
  taskPrefix: string;
  /** The grants it runs under now (plan mode's while plan mode is on). */
  narrowing(): ScopeRequest;
  /** A child's children wait for each other on its slot. */
  leases?: SerialLeases;
}

/** The subagents of one workspace's conversations. */
export class Subagents {
  readonly options: SubagentsOptions;
  readonly slots: SubagentSlots;

  constructor(options: SubagentsOptions) {
    this.options = options;
    this.slots = new SubagentSlots({
      opened: () => options.opened(),
      ...(options.settings.apiKey ? { apiKey: options.settings.apiKey } : {}),
    });
  }

  /**
   * A conversation's parts with subagents: the `task` tool beside its tools when its depth
   * allows, its turn stage, and (for the user's conversation) its provider pinned to its slot.
   *
   * @param parts Its parts.
   * @param seat How it asks, how deep it is and what it runs under.
   * @returns The parts to build the conversation with (kept by the delegation).
   */
  attach(parts: ConversationParts, seat: DelegatorSeat): ConversationParts {
    const delegation = new Delegation(this, seat);
    const mayDelegate = seat.depth < this.options.settings.maxAgentDepth;
    if (seat.depth === 0) void this.slots.scheduler();
    const attached: ConversationParts = {
      ...parts,
      provider: seat.depth === 0
        ? pinnedProvider(parts.provider, () => this.slots.parentSlot())
        : parts.provider,
      tools: mayDelegate
        ? { ...parts.tools, set: new ToolSet([parts.tools.set, delegation]) }
        : parts.tools,
      stages: { ...parts.stages, turn: [...parts.stages.turn, delegation.stage] },
    };
    delegation.parts = attached;
    return attached;
  }
}

/** The `task` calls of one conversation: its children, by task id. */
class Delegation implements ToolSource {
  parts: ConversationParts | undefined;
  readonly stage: TurnStage;
  readonly #subagents: Subagents;
  readonly #seat: DelegatorSeat;
  readonly #children = new Map<string, ChildTask>();
  /** Children running now, each with how many others ran beside it. */
  readonly #running = new Map<string, { beside: number }>();
  readonly #queue = new PromptQueue();
  #entries: readonly ToolEntry[] | undefined;
  #count = 0;
  /** The conversation's turn now: its children's events go there. */
  #turn: TurnContext | undefined;

  constructor(subagents: Subagents, seat: DelegatorSeat) {
    this.#subagents = subagents;
    this.#seat = seat;
    this.stage = {
      name: "subagents",
      request: (turn) => void (this.#turn = turn),
      end: () => Promise.resolve(void (this.#turn = undefined)),
    };
  }

  entries(): readonly ToolEntry[] {
    this.#entries ??= [
      taskEntry(this.#subagents.options.agents.agents, (args, call) => this.run(args, call)),
    ];
    return this.#entries;
  }

  /** Runs one `task` call: starts or continues a child, and reports what it did. */
  async run(args: TaskArgs, call: EntryCall): Promise<ToolRun> {
    const { state } = call;
    const signal = call.signal ?? new AbortController().signal;
    const found = args.task_id === undefined ? this.#start(args.agent) : this.#find(args);
    if ("failure" in found) return taskFailure("validation_failed", found.failure, state);
    const child = found.child;
    const lease = await this.#lease(signal);
    if (lease === undefined) {
      return taskFailure("cancelled", "Cancelled before the subagent started", state);
    }
    const beside = { beside: this.#running.size };
    for (const other of this.#running.values()) other.beside++;
    this.#running.set(child.id, beside);
    let ran: ChildRun;
    try {
      child.slot = lease.slot;
      ran = await child.send(args.prompt, { signal, forward: this.#forward(child, call) });
    } finally {
      this.#running.delete(child.id);
      await lease.release();
    }
    this.#absorb(ran);
    const states = Object.assign({}, ...ran.records.map((record) => record.states ?? {}));
    const changed = await this.#subagents.options.changedLines(states);
    return taskReport(child, ran, { changed, beside: beside.beside, state });
  }

  /** A new child of `agent`, or why none starts. */
  #start(name: string): { child: ChildTask } | { failure: string } {
    const { agents } = this.#subagents.options;
    const agent = agents.find(name);
    if (agent === undefined) {
      const names = agents.agents.map((known) => known.name).join(", ");
      return { failure: `Unknown agent "${name}": call task with one of ${names}` };
    }
    return this.#child(agent);
  }

  /** The child a follow-up goes to. */
  #find(args: TaskArgs): { child: ChildTask } | { failure: string } {
    const child = this.#children.get(args.task_id!);
    if (child === undefined) {
      return {
        failure: `No task "${args.task_id}" in this conversation: call task without task_id ` +
          "to start a new one",
      };
    }
    if (child.running) {
      return { failure: `Task "${child.id}" is still working: wait for its result first` };
    }
    return { child };
  }

  /** Builds a child in the scope narrowed from this conversation's. */
  #child(agent: AgentDefinition): { child: ChildTask } | { failure: string } {
    const { options } = this.#subagents;
    const parts = this.parts!;
    const all = parts.tools.set.entries().map((entry) => entry.info.name);
    const offered = offerTools(parts.tools, parts.window.contextLength).infos.map((i) => i.name);
    const narrowing = this.#seat.narrowing();
    const scope = childScope(
      {
        tools: offered,
        grants: narrowing.grants,
        depth: this.#seat.depth,
        autoApprove: this.#seat.autoApprove,
        ...(narrowing.scratch ? { scratch: narrowing.scratch } : {}),
      },
      agentReach(agent, all).reach,
      {
        workspace: options.cwd,
        maxDepth: options.settings.maxAgentDepth,
        known: new Set([...all, TASK_TOOL]),
      },
    );
    if (!scope.ok) return { failure: describeChildRefusal(scope.error) };
    const taskId = `${this.#seat.taskPrefix}${++this.#count}`;
    const child = this.#build(agent, taskId, { ...narrowing, ...scope.value });
    this.#children.set(taskId, child);
    return { child };
  }

  #build(
    agent: AgentDefinition,
    taskId: string,
    scope: ChildTask["scope"] & { planFolder?: string },
  ): ChildTask {
    const { options } = this.#subagents;
    const parts = this.parts!;
    const scoped = options.tools.scoped.open({
      grants: scope.grants,
      ...(scope.scratch ? { scratch: scope.scratch } : {}),
      ...(scope.planFolder ? { planFolder: scope.planFolder } : {}),
      subagent: true,
    });
    let made: ChildTask | undefined = undefined;
    const label = `subagent "${agent.name}" (task ${taskId})`;
    const child = new ChildTask({
      taskId,
      agent,
      scope,
      tools: {
        ...options.tools.scope,
        // Its background jobs are its parent's conversation's (an editor's session), and its
        // files the parent's (an editor's buffers) behind its own gate.
        ...withScopeFiles(callSeat(parts.tools), scoped),
        set: scoped.set,
        grants: scope.grants,
        mode: { kind: "tools", names: scope.tools },
      },
      provider: pinnedProvider(options.opened().provider, () => made?.slot),
      approver: childApprover({
        approval: options.approval,
        ...(this.#seat.prompter ? { prompter: this.#seat.prompter } : {}),
        taskId,
        label,
        yes: scope.autoApprove,
        queue: this.#queue,
      }),
      parent: parts,
      stages: (recorder, messages) => options.stages(recorder, messages, parts.stages.front),
      sessionId: this.#seat.sessionId,
      cwd: options.cwd,
      instructions: options.instructions,
    }, (childParts) =>
      this.#subagents.attach(childParts, {
        ...(this.#seat.prompter ? { prompter: this.#seat.prompter } : {}),
        sessionId: this.#seat.sessionId,
        depth: scope.depth,
        autoApprove: scope.autoApprove,
        taskPrefix: `${taskId}.`,
        narrowing: () => ({
          grants: scope.grants,
          ...(scope.scratch ? { scratch: scope.scratch } : {}),
          ...(scope.planFolder ? { planFolder: scope.planFolder } : {}),
        }),
        leases: new SerialLeases(() => made?.slot),
      }));
    made = child;
    return child;
  }

  /** A turn on the server: from the run's slots, or the parent child's (a grandchild). */
  #lease(signal: AbortSignal): Promise<SlotLease | undefined> {
    const serial = this.#seat.leases;
    if (serial) return serial.lease(signal);
    const note = (message: string) => this.#turn?.sink({ type: "warning", message });
    return this.#subagents.slots.lease(signal, note);
  }

  /** A child's events, as its parent's turn shows and records them. */
  #forward(child: ChildTask, call: EntryCall): (event: LoopEvent) => void {
    const callId = call.callId ?? "";
    return (event) =>
      this.#turn?.sink({
        type: "subagent",
        callId,
        taskId: child.id,
        agent: child.agent.name,
        event,
      });
  }

  /** What the child changed joins this conversation's turn (its /undo puts it back). */
  #absorb(ran: ChildRun): void {
    const checkpoints = this.parts?.stages.checkpoints;
    for (const record of ran.records) {
      const checkpoint = checkpoints?.absorb(record);
      if (checkpoint) this.#turn?.sink({ type: "checkpoint", checkpoint });
    }
  }
}
