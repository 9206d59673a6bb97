// The ACP agent: initialize, session/new, session/load (our sessions by id, history replayed),
// session/prompt (one turn of the agent loop, streamed as session/update), session/cancel.
// Each session is a Conversation over the shared provider, the folder's sandboxed tools (file
// tools through the editor when it offers fs/*) and the policy approver with an ACP prompter.

import {
  agent,
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type SessionUpdate,
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
import { acpStopReason, turnSink } from "./session_bridge.ts";
import { ACP_COMMANDS, planUpdate, promptText, replayUpdates } from "./session_updates.ts";

/** The agent app and a way to end every session's log when the connection closes. */
export interface AcpAgent {
  app: AgentApp;
  endSessions(): void;
}

/**
 * Builds the ACP agent; connect `app` to a stream with `connect(ndJsonStream(...))`.
 *
 * @param deps Provider, store, grants, limits and the workspace opener.
 * @returns The app with every handler registered.
 */
export function createAcpAgent(deps: AcpAgentDeps): AcpAgent {
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities = {};

  async function workspaceFor(cwd: string): Promise<AcpWorkspace> {
    if (!isAbsolute(cwd)) {
      throw RequestError.invalidParams({ cwd }, `cwd "${cwd}" is not an absolute path`);
    }
    return await deps.workspace(cwd);
  }

  const later = (client: AgentContext, sessionId: string, updates: SessionUpdate[]) => {
    // After the response, so the editor knows the session id the updates name.
    setTimeout(() => {
      for (const update of updates) {
        void client.notify(methods.client.session.update, { sessionId, update }).catch(() => {});
      }
    }, 0);
  };

  const app = agent({ name: "harness" })
    .onRequest(methods.agent.initialize, ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
        },
        agentInfo: { name: "harness", title: "harness", version: deps.version },
        authMethods: [],
      };
    })
    // No login: the model server's key comes from flags or the environment. Clients that
    // authenticate anyway (CodeCompanion with an auth_method) get a plain success.
    .onRequest(methods.agent.authenticate, () => ({}))
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      const workspace = await workspaceFor(params.cwd);
      const started = deps.store.startSession({
        model: deps.provider.model,
        baseUrl: deps.startInfo.baseUrl,
        cwd: params.cwd,
        grants: deps.startInfo.grants,
        provider: deps.provider.name,
      });
      if (!started.ok) throw RequestError.internalError(undefined, formatAgentError(started.error));
      const session = openAcpSession(client, deps, {
        workspace,
        cwd: params.cwd,
        capabilities,
        recorder: started.value,
      });
      sessions.set(session.id, session);
      later(client, session.id, [{
        sessionUpdate: "available_commands_update",
        availableCommands: [...ACP_COMMANDS],
      }]);
      return { sessionId: session.id };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      const workspace = await workspaceFor(params.cwd);
      const previous = sessions.get(params.sessionId);
      previous?.live.running?.abort();
      previous?.conversation.parts.recorder.end();
      const loaded = deps.store.loadSession(params.sessionId);
      if (!loaded.ok) {
        deps.log(formatAgentError(loaded.error));
        throw RequestError.sessionNotFound(params.sessionId);
      }
      const { messages, state, writer } = loaded.value;
      const session = openAcpSession(client, deps, {
        workspace,
        cwd: params.cwd,
        capabilities,
        recorder: writer,
        init: { messages, state },
      });
      sessions.set(session.id, session);
      const plan = planUpdate(state);
      for (const update of [...replayUpdates(messages, params.cwd), ...(plan ? [plan] : [])]) {
        await client.notify(methods.client.session.update, { sessionId: session.id, update });
      }
      later(client, session.id, [{
        sessionUpdate: "available_commands_update",
        availableCommands: [...ACP_COMMANDS],
      }]);
      return {};
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const session = sessions.get(params.sessionId);
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
      const text = promptText(params.prompt);
      const controller = new AbortController();
      session.live.running = controller;
      try {
        const command = await runSlashCommand(text, {
          conversation: session.conversation,
          approver: session.approver,
          grants: deps.grants,
          yes: deps.yes,
        });
        let userText: string | null = text;
        if (command.kind === "reply") {
          send({
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: command.text },
          });
          return { stopReason: "end_turn" as const };
        }
        if (command.kind === "continue") userText = null;
        const sink = turnSink({
          send,
          cwd: session.cwd,
          takeDiffs: () => session.live.diffs.splice(0),
        });
        const outcome = await session.conversation.send(userText, sink, controller.signal);
        if (outcome.stopReason === "error") {
          throw RequestError.internalError(
            undefined,
            outcome.errorMessage ?? "The model server failed",
          );
        }
        return { stopReason: acpStopReason(outcome.stopReason) };
      } finally {
        delete session.live.running;
        delete session.live.currentCall;
        session.live.diffs.length = 0;
      }
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.live.running?.abort();
    });
  return {
    app,
    endSessions() {
      for (const session of sessions.values()) {
        session.live.running?.abort();
        session.conversation.parts.recorder.end();
      }
      sessions.clear();
    },
  };
}
