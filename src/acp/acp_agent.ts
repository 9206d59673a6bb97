// The ACP agent: initialize, session/new, session/load (our sessions by id, history replayed),
// session/prompt (one turn of the agent loop, streamed as session/update), session/cancel.
// Each session is a Conversation over the shared provider, the folder's sandboxed tools (file
// tools through the editor when it offers fs/*) and the policy approver with an ACP prompter.

import {
  agent,
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  type InitializeResponse,
  type LoadSessionRequest,
  type LoadSessionResponse,
  type McpServer,
  methods,
  type NewSessionRequest,
  type NewSessionResponse,
  type PromptRequest,
  type PromptResponse,
  PROTOCOL_VERSION,
  RequestError,
  type SessionUpdate,
  type SetSessionModeRequest,
  type SetSessionModeResponse,
} from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import { formatAgentError } from "../errors.ts";
import {
  type AcpAgentDeps,
  type AcpSession,
  type AcpWorkspace,
  openAcpSession,
} from "./acp_session.ts";
import { runSlashCommand } from "./acp_commands.ts";
import { acpStopReason, turnSink, type TurnUsage, turnUsage } from "./session_bridge.ts";
import { planUpdate, promptImages, promptText, replayUpdates } from "./session_updates.ts";
import { acpPromptText, availableCommands } from "./acp_prompt.ts";
import { editorLeaveQuestion, sessionModes, setSessionMode } from "./session_modes.ts";

/** The agent app and a way to end every session's log when the connection closes. */
export interface AcpAgent {
  app: AgentApp;
  /**
   * Interrupts every running turn, waits for each to record how it ended (the answer so far,
   * its calls answered "interrupted"), then ends every session's log: nothing is written
   * after `session_ended`.
   */
  endSessions(): Promise<void>;
}

/** How long a turn interrupted at the connection's end may take to record its end. */
const TURN_END_WAIT_MS = 10_000;

/**
 * Builds the ACP agent; connect `app` to a stream with `connect(ndJsonStream(...))`.
 *
 * @param deps Provider, store, grants, limits and the workspace opener.
 * @returns The app with every handler registered.
 */
export function createAcpAgent(deps: AcpAgentDeps): AcpAgent {
  const state: AgentState = { deps, sessions: new Map(), capabilities: {}, turns: new Map() };
  const app = agent({ name: "harness" })
    .onRequest(methods.agent.initialize, ({ params }) => {
      state.capabilities = params.clientCapabilities ?? {};
      return initializeResponse(deps.version);
    })
    // No login: the model server's key comes from flags or the environment. Clients that
    // authenticate anyway (CodeCompanion with an auth_method) get a plain success.
    .onRequest(methods.agent.authenticate, () => ({}))
    .onRequest(methods.agent.session.new, ({ params, client }) => newSession(state, params, client))
    .onRequest(
      methods.agent.session.load,
      ({ params, client }) => loadSession(state, params, client),
    )
    .onRequest(methods.agent.session.prompt, ({ params, client }) => {
      const turn = promptSession(state, params, client);
      const settled = turn.then(() => {}, () => {});
      // One prompt runs per session at a time (promptSession refuses a second).
      if (!state.turns.has(params.sessionId)) {
        state.turns.set(params.sessionId, settled);
        void settled.then(() => state.turns.delete(params.sessionId));
      }
      return turn;
    })
    .onRequest(
      methods.agent.session.setMode,
      ({ params, client }) => setMode(state, params, client),
    )
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      state.sessions.get(params.sessionId)?.live.running?.abort();
    });
  return {
    app,
    async endSessions() {
      for (const session of state.sessions.values()) {
        session.live.running?.abort();
        void session.live.terminals?.close();
      }
      // An interrupted turn still records its end (the partial answer, its open calls); a
      // turn stuck past the wait is cut off by session_ended, which answers its calls.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(state.turns.values()),
        new Promise((done) => timer = setTimeout(done, TURN_END_WAIT_MS)),
      ]);
      clearTimeout(timer);
      for (const session of state.sessions.values()) session.conversation.parts.recorder.end();
      state.sessions.clear();
    },
  };
}

/** What the request handlers share: the open sessions and the editor's capabilities. */
interface AgentState {
  deps: AcpAgentDeps;
  sessions: Map<string, AcpSession>;
  /** From initialize; a session opened later uses the editor's fs/* when offered. */
  capabilities: ClientCapabilities;
  /** The prompt being answered in each session, settled when its turn has recorded its end. */
  turns: Map<string, Promise<void>>;
}

/** The answer to initialize: protocol version, what harness supports, and who it is. */
function initializeResponse(version: string): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      mcpCapabilities: { http: true, sse: true },
      // Images go to a model that can see; a prompt with one for a model that cannot is
      // refused with what to do (app/image_gate.ts).
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
    },
    agentInfo: { name: "harness", title: "harness", version },
    authMethods: [],
  };
}

/** The workspace of a session's folder; a relative `cwd` is the editor's mistake. */
async function workspaceFor(
  deps: AcpAgentDeps,
  params: { cwd: string; mcpServers?: readonly McpServer[] | null },
): Promise<AcpWorkspace> {
  const { cwd } = params;
  if (!isAbsolute(cwd)) {
    throw RequestError.invalidParams({ cwd }, `cwd "${cwd}" is not an absolute path`);
  }
  return await deps.workspace(cwd, params.mcpServers ?? []);
}

/** Sends `updates` for a session just after the current response. */
function notifyAfterResponse(client: AgentContext, sessionId: string, updates: SessionUpdate[]) {
  // After the response, so the editor knows the session id the updates name.
  setTimeout(() => {
    for (const update of updates) {
      void client.notify(methods.client.session.update, { sessionId, update }).catch(() => {});
    }
  }, 0);
}

/** session/new: a new session log and conversation in the folder. */
async function newSession(
  state: AgentState,
  params: NewSessionRequest,
  client: AgentContext,
): Promise<NewSessionResponse> {
  const { deps } = state;
  const workspace = await workspaceFor(deps, params);
  const opened = openAcpSession(client, deps, {
    workspace,
    cwd: params.cwd,
    capabilities: state.capabilities,
  });
  if (!opened.ok) throw RequestError.internalError(undefined, formatAgentError(opened.error));
  const { session } = opened.value;
  state.sessions.set(session.id, session);
  notifyAfterResponse(client, session.id, [{
    sessionUpdate: "available_commands_update",
    availableCommands: await availableCommands(session.workspace),
  }]);
  return { sessionId: session.id, modes: sessionModes(session.conversation) };
}

/** session/load: one of our sessions by id, its history replayed as updates. */
async function loadSession(
  state: AgentState,
  params: LoadSessionRequest,
  client: AgentContext,
): Promise<LoadSessionResponse> {
  const { deps } = state;
  const workspace = await workspaceFor(deps, params);
  const previous = state.sessions.get(params.sessionId);
  previous?.live.running?.abort();
  // Its interrupted turn records its end before the log is ended.
  await state.turns.get(params.sessionId);
  previous?.conversation.parts.recorder.end();
  const opened = openAcpSession(client, deps, {
    workspace,
    cwd: params.cwd,
    capabilities: state.capabilities,
    load: params.sessionId,
  });
  if (!opened.ok) {
    deps.log(formatAgentError(opened.error));
    throw RequestError.sessionNotFound(params.sessionId);
  }
  const { session, loaded } = opened.value;
  state.sessions.set(session.id, session);
  const plan = planUpdate(loaded?.state ?? {});
  const messages = loaded?.messages ?? [];
  for (const update of [...replayUpdates(messages, params.cwd), ...(plan ? [plan] : [])]) {
    await client.notify(methods.client.session.update, { sessionId: session.id, update });
  }
  notifyAfterResponse(client, session.id, [{
    sessionUpdate: "available_commands_update",
    availableCommands: await availableCommands(session.workspace),
  }]);
  return { modes: sessionModes(session.conversation) };
}

/** session/set_mode: plan mode on, or off once the user said how (session_modes.ts). */
async function setMode(
  state: AgentState,
  params: SetSessionModeRequest,
  client: AgentContext,
): Promise<SetSessionModeResponse> {
  const session = state.sessions.get(params.sessionId);
  if (!session) throw RequestError.sessionNotFound(params.sessionId);
  const ask = editorLeaveQuestion(client, session.id);
  const set = await setSessionMode(session.conversation, params.modeId, ask);
  if ("error" in set) throw RequestError.invalidParams({ modeId: params.modeId }, set.error);
  notifyAfterResponse(client, session.id, [set.update]);
  return {};
}

/** session/prompt: a slash command, or one turn of the agent loop streamed as updates. */
async function promptSession(
  state: AgentState,
  params: PromptRequest,
  client: AgentContext,
): Promise<PromptResponse> {
  const { deps } = state;
  const session = state.sessions.get(params.sessionId);
  if (!session) throw RequestError.sessionNotFound(params.sessionId);
  if (session.live.running) {
    throw RequestError.invalidRequest(
      undefined,
      "A prompt is already running in this session: cancel it first",
    );
  }
  const send = (update: SessionUpdate) =>
    void client.notify(methods.client.session.update, { sessionId: session.id, update })
      .catch(() => {});
  const controller = new AbortController();
  session.live.running = controller;
  try {
    const command = await runSlashCommand(promptText(params.prompt), {
      conversation: session.conversation,
      approver: () => session.approver.loaded(),
      grants: deps.grants,
      yes: deps.yes,
      signal: controller.signal,
    });
    if (command.kind === "reply") {
      send({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: command.text },
      });
      return { stopReason: "end_turn" as const };
    }
    let userText: string | null = null;
    if (command.kind !== "continue") {
      // A custom command's text, and the @ mentions and file links attached through the
      // sandbox; a mention it refuses stops the prompt before the model sees anything.
      const prepared = await acpPromptText(params.prompt, session, controller.signal);
      if ("refused" in prepared) throw RequestError.invalidParams(undefined, prepared.refused);
      userText = prepared.text;
    }
    const sink = turnSink({
      send,
      cwd: session.cwd,
      takeDiffs: () => session.live.diffs.splice(0),
      window: () => session.conversation.contextLength,
      jobStarted: (callId, id) => void session.live.terminals?.show(callId, id),
    });
    session.follow(); // the code map and the curator follow the session that sends now
    const images = await promptImages(params.prompt);
    if ("refused" in images) throw RequestError.invalidParams(undefined, images.refused);
    const outcome = await session.conversation.send(
      userText,
      sink,
      controller.signal,
      userText === null ? [] : images.images,
    );
    if (outcome.stopReason === "error") {
      throw RequestError.internalError(
        undefined,
        outcome.errorMessage ?? "The model server failed",
      );
    }
    // `usage` is ACP's draft field: editors that do not know it ignore it.
    const response: PromptResponse & { usage: TurnUsage } = {
      stopReason: acpStopReason(outcome.stopReason),
      usage: turnUsage(outcome.usage),
    };
    return response;
  } finally {
    delete session.live.running;
    delete session.live.currentCall;
    session.live.diffs.length = 0;
  }
}
