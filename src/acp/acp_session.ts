// One ACP session: a conversation of the folder's workspace (app/open_run.ts opens it, as for
// the REPL), its file tools reading and writing the editor's buffers when it offers fs/* (the
// file port of editor_files.ts; edits reported as diffs) and the policy approver asking
// through session/request_permission. acp_agent.ts opens one per session/new and
// session/load.

import { type AgentContext, type ClientCapabilities, methods } from "@agentclientprotocol/sdk";
import type { Workspace } from "../app/open_run.ts";
import type { LazyApprover } from "../app/run_approver.ts";
import type { RunSessions } from "../app/run_sessions.ts";
import type { AgentError, Result } from "../errors.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import type { LoadedSession } from "../sessions/session_store_types.ts";
import type { Conversation } from "../agent/conversation.ts";
import { createAcpPrompter, type PromptedCall } from "./acp_prompter.ts";
import { diskDiffStages, editorFiles, type EditorFs, type FileDiff } from "./editor_files.ts";
import type { FilePort } from "../tools/file_port.ts";
import type { FilesBehind } from "../sandbox/grants/tool_offer.ts";
import type { PlacedStage } from "../agent/call_flight.ts";
import { toolKind, toolTitle } from "./tool_updates.ts";
import { JobTerminals } from "./job_terminals.ts";
import type { JobScope } from "../jobs/job_control.ts";
import type { McpServer } from "@agentclientprotocol/sdk";

/** A workspace folder's tools and rules, and the conversations made over them. */
export interface AcpWorkspace {
  workspace: Workspace;
  sessions: RunSessions;
}

/** What the agent is built from (run_acp.ts opens the run and its workspaces). */
export interface AcpAgentDeps {
  version: string;
  grants: Grants;
  /** --yes: approve every call the sandbox allows (policy denies still apply). */
  yes: boolean;
  /** The workspace of a folder with the MCP servers the editor named, opened once. */
  workspace(cwd: string, mcpServers: readonly McpServer[]): Promise<AcpWorkspace>;
  log(message: string): void;
}

/** A session and what its running turn shares with the handlers. */
export interface AcpSession {
  id: string;
  cwd: string;
  /** The folder's workspace: its tools, rules, custom commands. */
  workspace: Workspace;
  conversation: Conversation;
  approver: LazyApprover;
  /** Makes the workspace's code tools follow this session's conversation. */
  follow(): void;
  live: {
    running?: AbortController;
    /** The call the approver is deciding, named in permission requests. */
    currentCall?: PromptedCall;
    /** File changes of the running call, shown as diffs when it finishes. */
    diffs: FileDiff[];
    /** The editor's terminals that follow background jobs, when the editor offers them. */
    terminals?: JobTerminals;
  };
}

/**
 * Opens a session: a new conversation (system prompt first) or one loaded from the log.
 *
 * @param client Calls the editor (permissions, fs/*).
 * @param deps The agent's grants, limits and policy settings.
 * @param where The folder's workspace, the editor's capabilities, and the id of the session to
 *   load (none: a new one).
 * @returns The session (its id is the session log's, a random one with --no-session), or why
 *   the session log could not start or load it; a loaded session comes with what was loaded.
 */
export function openAcpSession(
  client: AgentContext,
  deps: AcpAgentDeps,
  where: { workspace: AcpWorkspace; cwd: string; capabilities: ClientCapabilities; load?: string },
): Result<{ session: AcpSession; loaded?: LoadedSession }, AgentError> {
  const { workspace, cwd, capabilities } = where;
  // The id is known once the session log answered; the prompter asks for it then.
  let sessionId = "";
  // The session's background jobs are its own: the workspace's other sessions never see them.
  const jobOwner = `acp-${crypto.randomUUID()}`;
  const jobs = workspace.workspace.tools.jobs.scope(jobOwner);
  const live: AcpSession["live"] = {
    diffs: [],
    ...(capabilities.terminal
      ? { terminals: jobTerminals(client, { sessionId: () => sessionId, cwd, jobs }) }
      : {}),
  };
  const prompter = createAcpPrompter({
    sessionId: () => sessionId,
    currentCall: () => live.currentCall,
    request: (params, signal) =>
      client.request(
        methods.client.session.requestPermission,
        params,
        signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
      ),
  });
  const approver = workspace.workspace.approval.approver(prompter);
  const seat = {
    ...editorSeat(client, { deps, where, live, sessionId: () => sessionId }),
    prompter,
    jobOwner,
    approver: {
      approve(request: Parameters<LazyApprover["approve"]>[0], signal?: AbortSignal) {
        live.currentCall = {
          toolCallId: request.callId,
          title: toolTitle(request.tool, request.args),
          kind: toolKind(request.tool),
        };
        return approver.approve(request, signal);
      },
    },
  };
  let conversation: Conversation;
  let loaded: LoadedSession | undefined;
  if (where.load === undefined) {
    const started = workspace.sessions.start(seat);
    if (started.error) return { ok: false, error: started.error };
    conversation = started.conversation;
  } else {
    const opened = workspace.sessions.load(where.load, seat);
    if (!opened.ok) return opened;
    conversation = opened.value.conversation;
    loaded = opened.value.loaded;
  }
  sessionId = conversation.parts.recorder.id ?? crypto.randomUUID();
  const follow = () => workspace.workspace.follow(() => conversation);
  const session: AcpSession = {
    id: sessionId,
    cwd,
    workspace: workspace.workspace,
    conversation,
    approver,
    follow,
    live,
  };
  return { ok: true, value: { session, ...(loaded ? { loaded } : {}) } };
}

/** The editor's terminals that follow a session's background jobs. */
function jobTerminals(
  client: AgentContext,
  session: { sessionId: () => string; cwd: string; jobs: JobScope },
): JobTerminals {
  const { cwd, jobs } = session;
  return new JobTerminals({
    create: (params) =>
      client.request(methods.client.terminal.create, {
        sessionId: session.sessionId(),
        cwd,
        ...params,
      }),
    release: (terminalId) =>
      client.request(methods.client.terminal.release, {
        sessionId: session.sessionId(),
        terminalId,
      }),
    send: (update) =>
      void client.notify(methods.client.session.update, {
        sessionId: session.sessionId(),
        update,
      }).catch(() => {}),
    jobs,
  });
}

/**
 * The session's file tools: they read and write the editor's buffers when it offers both
 * fs/* methods; else the disk, whose edits are diffed around each run.
 */
function editorSeat(
  client: AgentContext,
  session: {
    deps: AcpAgentDeps;
    where: { workspace: AcpWorkspace; cwd: string; capabilities: ClientCapabilities };
    live: AcpSession["live"];
    sessionId(): string;
  },
): { files: FilePort; filesBehind: FilesBehind } | { stages: PlacedStage[] } {
  const { deps, where, live } = session;
  const diffs = {
    workspace: where.cwd,
    grants: deps.grants,
    gate: where.workspace.workspace.tools.gate,
    onDiff: (diff: FileDiff) => live.diffs.push(diff),
  };
  const fs = where.capabilities.fs ?? {};
  if (!fs.readTextFile || !fs.writeTextFile) return { stages: diskDiffStages(diffs) };
  const editor: EditorFs = {
    read: async (path) =>
      (await client.request(methods.client.fs.readTextFile, {
        sessionId: session.sessionId(),
        path,
      })).content,
    write: async (path, content) => {
      await client.request(methods.client.fs.writeTextFile, {
        sessionId: session.sessionId(),
        path,
        content,
      });
    },
  };
  return {
    files: editorFiles(editor, diffs),
    // Plan mode's and a subagent's calls reach the same buffers only through their own gate.
    filesBehind: ({ gate, grants }) => editorFiles(editor, { ...diffs, gate, grants }),
  };
}
