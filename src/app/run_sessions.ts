// How a workspace makes conversations, the same for every front end: a new session in the
// log with the system prompt first, or one loaded from the log. Each conversation gets the
// run's provider, limits, window, compaction and argument repair; the front end passes the
// approver (how it asks) and, when it wraps them, the tools.

import type { Settings } from "../config/settings.ts";
import type { AgentError, Result } from "../errors.ts";
import { Conversation, type ConversationParts } from "../agent/conversation.ts";
import type { SessionRecorder } from "../agent/session_recorder.ts";
import { buildSystemPrompt, type PromptInstructions } from "../agent/system_prompt.ts";
import { repairArguments } from "../agent/repair_arguments.ts";
import type { TokenCounter } from "../providers/token_counter.ts";
import type { Approver } from "../permissions/approver.ts";
import { formatGrants, type Grants } from "../sandbox/grants.ts";
import type { LoadedSession, SessionStore } from "../sessions/session_store_types.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import type { Message } from "../messages.ts";
import type { OpenedProvider } from "./provider_openers.ts";
import type { RunTools } from "./run_tools.ts";
import type { TurnCheckpoint } from "../checkpoints/turn_checkpoints.ts";
import { WorkspaceExtras } from "./conversation_extras.ts";

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
  /**
   * The model's token count, one per run: what the server taught about its tokens outlives
   * /clear and /resume, and is shared by every workspace's conversations.
   */
  tokenCounter: TokenCounter;
}

/** A conversation's own parts: how it asks, and its tools when the front end wraps them. */
export interface ConversationSeat {
  approver: Approver;
  /** The workspace's offered tools, wrapped (ACP's editor files); default: as offered. */
  tools?: ToolRunner;
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
  // Read when a conversation starts: /model may have switched the run's provider.
  const partsWith = (
    seat: ConversationSeat,
    recorder: SessionRecorder,
    resumed?: { checkpoints: readonly TurnCheckpoint[] },
    messages?: () => readonly Message[],
  ): ConversationParts => {
    const { opened } = options;
    const { provider } = opened;
    return {
      provider,
      tools: extras.tools(seat.tools ?? tools.runner, seat.jobOwner),
      approver: seat.approver,
      recorder,
      ...extras.forConversation(recorder, {
        ...(resumed ? { resumed } : {}),
        ...(messages ? { messages } : {}),
        ...(seat.jobOwner === undefined ? {} : { jobOwner: seat.jobOwner }),
      }),
      limits: { maxIterations: settings.maxIterations, maxToolCalls: settings.maxToolCalls },
      parseArguments: repairArguments,
      ...(opened.contextLength ? { contextLength: opened.contextLength } : {}),
      ...(opened.contextSource ? { contextSource: opened.contextSource } : {}),
      contextRaise: settings.modelFile !== undefined
        ? "--ctx-size"
        : provider.name === "ollama"
        ? "--num-ctx"
        : "the server's context size (llama-server -c, vLLM --max-model-len, LM Studio's context length)",
      compactAt: settings.compactAt,
      tokenCounter: options.tokenCounter,
      loopGuard: settings.loopGuard,
    };
  };
  // The plugins may still be loading (the REPL's prompt does not wait for them): until the
  // host has listed them, their files' names stand in (the code tools are listed at once).
  const toolNames = () => {
    const listed = tools.runner.list().map((tool) => tool.name);
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
      conversation = Conversation.start(
        partsWith(seat, recorder, undefined, messages),
        systemPrompt(),
      );
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
      conversation = new Conversation(partsWith(seat, writer, loaded.value, current), {
        messages,
        state,
      });
      return { ok: true, value: { conversation, loaded: loaded.value } };
    },
    systemPrompt,
  };
}
