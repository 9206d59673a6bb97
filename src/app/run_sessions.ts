// How a workspace makes conversations, the same for every front end: a new session in the
// log with the system prompt first, or one loaded from the log. Each conversation gets the
// run's provider, the workspace's tools, the limits, the window and the features' stages
// (conversation_extras.ts); the front end passes the approver (how it asks) and, when it has
// them, a file port for the file tools and stages of its own (ACP: the editor's files, diffs).

import type { Settings } from "../config/settings.ts";
import type { AgentError, Result } from "../errors.ts";
import { Conversation } from "../agent/conversation.ts";
import type { ConversationParts, ConversationWindow } from "../agent/conversation_parts.ts";
import type { SessionRecorder } from "../agent/session_recorder.ts";
import { buildSystemPrompt, type PromptInstructions } from "../agent/system_prompt.ts";
import type { TokenCounter } from "../providers/token_counter.ts";
import type { Approver } from "../permissions/approver.ts";
import type { Prompter } from "../permissions/prompt_types.ts";
import { formatGrants, type Grants } from "../sandbox/grants/grants.ts";
import type { LoadedSession, SessionStore } from "../sessions/session_store_types.ts";
import type { FilePort } from "../tools/file_port.ts";
import type { PlacedStage } from "../agent/call_flight.ts";
import { callSeat, type FilesBehind } from "../sandbox/grants/tool_offer.ts";
import type { OpenedProvider } from "./provider_openers.ts";
import type { RunTools } from "./run_tools.ts";
import { WorkspaceExtras } from "./conversation_extras.ts";
import type { RunApproval } from "./run_approver.ts";
import { Subagents } from "./subagents.ts";
import { scopeNow } from "./scoped_tools.ts";
import { PlanMode } from "./plan_mode.ts";

export interface RunSessionsOptions {
  settings: Settings;
  grants: Grants;
  cwd: string;
  store: SessionStore;
  opened: OpenedProvider;
  tools: RunTools;
  /** --yes (hooks see permission_mode "bypassPermissions"). */
  yes?: boolean;
  /** The instruction files the system prompt carries. */
  instructions?: readonly PromptInstructions[];
  /** The workspace's rules: subagents get approvers of their own over them. */
  approval: RunApproval;
  /**
   * The model's token count, one per run: what the server taught about its tokens outlives
   * /clear and /resume, and is shared by every workspace's conversations.
   */
  tokenCounter: TokenCounter;
}

/** A conversation's own parts: how it asks, and what its front end adds to the tools. */
export interface ConversationSeat {
  approver: Approver;
  /** The prompt `approver` asks through: a subagent's calls are asked about there too. */
  prompter?: Prompter;
  /** Where the built-in file tools read and write (ACP: the editor's buffers). */
  files?: FilePort;
  /** The same files behind a narrower scope's gate (plan mode's, a subagent's). */
  filesBehind?: FilesBehind;
  /** Stages of the front end's own on each call's path (ACP: diffs of edits). */
  stages?: readonly PlacedStage[];
  /**
   * Names the conversation's background jobs when the workspace has several conversations
   * at once (ACP): it starts, sees and is told of its own only. Default: the front end's one.
   */
  jobOwner?: string;
}

/** Makes the conversations of one workspace. */
export interface RunSessions {
  /**
   * Starts a session in the log and a conversation on it, the system prompt first.
   *
   * @param id The id the session gets (the one a banner already showed).
   * @returns The conversation, or why the session could not be started (the conversation then
   *   runs unrecorded).
   */
  start(seat: ConversationSeat, id?: string): { conversation: Conversation; error?: AgentError };
  /** Loads a session from the log and goes on with its conversation. */
  load(
    id: string,
    seat: ConversationSeat,
  ): Result<{ conversation: Conversation; loaded: LoadedSession }, AgentError>;
  /** The system prompt a new conversation starts with. */
  systemPrompt(): string;
}

/** What a seat adds to each conversation's stages: the front end's own, and its jobs' owner. */
function frontOf(seat: ConversationSeat): { front?: readonly PlacedStage[]; jobOwner?: string } {
  return {
    ...(seat.stages ? { front: seat.stages } : {}),
    ...(seat.jobOwner === undefined ? {} : { jobOwner: seat.jobOwner }),
  };
}

/** The conversations of one workspace, sharing its provider, tools and store. */
export function runSessions(options: RunSessionsOptions): RunSessions {
  const { settings, store, cwd, tools } = options;
  // Checkpoints, hooks and images, the same for every front end (conversation_extras.ts); the
  // model is read when asked, since /model may switch the run's provider.
  const extras = new WorkspaceExtras({
    settings,
    grants: options.grants,
    cwd,
    tools,
    yes: options.yes ?? false,
    get opened() {
      return options.opened;
    },
  });
  const makings: Makings = { options, extras, subagents: workspaceSubagents(options, extras) };
  const partsWith = (
    seat: ConversationSeat,
    recorder: SessionRecorder,
    conversation: Parameters<WorkspaceExtras["forConversation"]>[1] = {},
  ) => conversationParts(makings, { seat, recorder, conversation });
  // The plugins may still be loading (the REPL's prompt does not wait for them): until the
  // host has listed them, their files' names stand in (the code tools are listed at once).
  const toolNames = () => {
    const listed = tools.offer().infos.map((tool) => tool.name);
    return tools.host.list().length > 0 ? listed : [...tools.pluginNames, ...listed];
  };
  const systemPrompt = () => {
    const skills = tools.skills?.catalog(options.opened.contextLength, options.tokenCounter).text;
    return buildSystemPrompt({
      workspace: cwd,
      now: new Date(),
      os: Deno.build.os,
      tools: toolNames(),
      ...(settings.systemPrompt !== undefined ? { custom: settings.systemPrompt } : {}),
      ...(options.instructions ? { instructions: options.instructions } : {}),
      ...(skills ? { skills } : {}),
    });
  };
  return {
    start(seat, id) {
      const { opened } = options;
      const started = store.startSession({
        model: opened.provider.model,
        baseUrl: settings.modelFile ?? opened.baseUrl ?? settings.baseUrl,
        cwd,
        grants: formatGrants(options.grants),
        provider: opened.provider.name,
      }, id);
      const recorder: SessionRecorder = started.ok
        ? started.value
        : { id: null, record: () => {}, end: () => {} };
      // The skills' hooks read this conversation's messages, once it exists.
      let conversation: Conversation | undefined = undefined;
      const messages = () => conversation?.messages ?? [];
      conversation = Conversation.start(partsWith(seat, recorder, { messages }), systemPrompt());
      return started.ok ? { conversation } : { conversation, error: started.error };
    },
    load(id, seat) {
      const loaded = store.loadSession(id);
      if (!loaded.ok) return loaded;
      const { state, writer } = loaded.value;
      // The tools it had: find_skill is offered when the catalog could not list every skill.
      tools.skills?.catalog(options.opened.contextLength, options.tokenCounter);
      // A session imported from another agent's transcript has no system prompt: the first
      // resume logs this run's (replay puts it first).
      let messages = loaded.value.messages;
      if (!messages.some((message) => message.kind === "system")) {
        const system = { kind: "system" as const, content: systemPrompt() };
        writer.record({ type: "message", message: system });
        messages = [system, ...messages];
      }
      let conversation: Conversation | undefined = undefined;
      const current = () => conversation?.messages ?? [];
      const parts = partsWith(seat, writer, { resumed: loaded.value, messages: current });
      conversation = new Conversation(parts, {
        messages,
        state,
        starting: "resume",
      });
      return { ok: true, value: { conversation, loaded: loaded.value } };
    },
    systemPrompt,
  };
}

/** What every conversation of a workspace is made with. */
interface Makings {
  options: RunSessionsOptions;
  extras: WorkspaceExtras;
  subagents: Subagents;
}

/** The subagents of the workspace's conversations (subagents.ts). */
function workspaceSubagents(options: RunSessionsOptions, extras: WorkspaceExtras): Subagents {
  return new Subagents({
    settings: options.settings,
    cwd: options.cwd,
    tools: options.tools,
    agents: options.tools.agents,
    approval: options.approval,
    stages: (recorder, messages, front) =>
      extras.forConversation(recorder, { messages, child: true, ...(front ? { front } : {}) }),
    changedLines: (states) => extras.changedLines(states),
    instructions: options.instructions ?? [],
    opened: () => options.opened,
  });
}

/**
 * A conversation's parts, read when it starts (/model may have switched the run's provider):
 * the workspace's tools (the front end's file port), the limits and window, the features'
 * stages, and its subagents.
 */
function conversationParts(
  makings: Makings,
  conversation: {
    seat: ConversationSeat;
    recorder: SessionRecorder;
    conversation: Parameters<WorkspaceExtras["forConversation"]>[1];
  },
): ConversationParts {
  const { options, extras, subagents } = makings;
  const { settings, tools } = options;
  const { seat, recorder } = conversation;
  const plan = new PlanMode({
    settings,
    cwd: options.cwd,
    grants: options.grants,
    tools,
    sessionId: () => recorder.id,
  });
  const stages = extras.forConversation(recorder, {
    ...conversation.conversation,
    ...frontOf(seat),
  });
  const parts: ConversationParts = {
    provider: options.opened.provider,
    tools: { ...tools.scope, ...callSeat(seat) },
    approver: seat.approver,
    recorder,
    limits: {
      maxIterations: settings.maxIterations,
      maxToolCalls: settings.maxToolCalls,
      loopGuard: settings.loopGuard,
    },
    window: conversationWindow(options),
    stages: { ...stages, turn: [plan.stage, ...stages.turn] },
  };
  const attached: ConversationParts = subagents.attach(parts, {
    ...(seat.prompter ? { prompter: seat.prompter } : {}),
    sessionId: recorder.id,
    depth: 0,
    autoApprove: options.yes ?? false,
    taskPrefix: "",
    // Plan mode narrows the grants its subagents start from, as its own.
    narrowing: () => scopeNow(attached.tools, options.grants),
  });
  plan.bind(attached);
  return attached;
}

/** The window of the run's model as a conversation knows it, and how the user raises it. */
function conversationWindow(options: RunSessionsOptions): ConversationWindow {
  const { opened, settings } = options;
  return {
    ...(opened.contextLength ? { contextLength: opened.contextLength } : {}),
    ...(opened.contextSource ? { contextSource: opened.contextSource } : {}),
    contextRaise: settings.modelFile !== undefined
      ? "--ctx-size"
      : opened.provider.name === "ollama"
      ? "--num-ctx"
      : "the server's context size (llama-server -c, vLLM --max-model-len, LM Studio's context length)",
    compactAt: settings.compactAt,
    tokenCounter: options.tokenCounter,
  };
}
