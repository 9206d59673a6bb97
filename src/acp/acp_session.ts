// One ACP session: a Conversation over the shared provider, the folder's sandboxed tools
// (file tools through the editor when it offers fs/*, edits reported as diffs) and the policy
// approver asking through session/request_permission. acp_agent.ts opens one per session/new
// and session/load.

import { type AgentContext, type ClientCapabilities, methods } from "@agentclientprotocol/sdk";
import type { LoopLimits } from "../agent/agent_loop.ts";
import type { LoadedRule } from "../permissions/policy.ts";
import type { Provider } from "../providers/provider.ts";
import type { Grants } from "../sandbox/grants.ts";
import type { SessionStore } from "../sessions/session_store_types.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import { Conversation, type ConversationParts } from "../agent/conversation.ts";
import type { Message } from "../messages.ts";
import { createPolicyApprover, type PolicyApprover } from "../permissions/policy_approver.ts";
import type { SessionRecorder } from "../agent/session_recorder.ts";
import { repairArguments } from "../agent/repair_arguments.ts";
import { createAcpPrompter, type PromptedCall } from "./acp_prompter.ts";
import { type FileDiff, withEditorFiles } from "./editor_files.ts";
import { toolKind, toolTitle } from "./tool_updates.ts";

/** The sandboxed tools and the policy rules of one workspace folder. */
export interface AcpWorkspace {
  tools: ToolRunner;
  rules: readonly LoadedRule[];
  /** The workspace's ./.harness/policies.jsonc ("Always" never writes there untrusted). */
  projectPolicyFile?: string;
  systemPrompt(): string;
}

/** What the agent is built from (run_acp.ts opens these from settings and flags). */
export interface AcpAgentDeps {
  version: string;
  provider: Provider;
  contextLength?: number;
  grants: Grants;
  store: SessionStore;
  limits: LoopLimits;
  /** --yes: approve every call the sandbox allows (policy denies still apply). */
  yes: boolean;
  userPolicyFile: string;
  /** Characters of one result the model reads. */
  outputLimit: number;
  /** The workspace of a folder, opened once. */
  workspace(cwd: string): Promise<AcpWorkspace>;
  /** Session log metadata. */
  startInfo: { baseUrl: string; grants: string };
  log(message: string): void;
}

/** A session and what its running turn shares with the handlers. */
export interface AcpSession {
  id: string;
  cwd: string;
  conversation: Conversation;
  approver: PolicyApprover;
  live: {
    running?: AbortController;
    /** The call the approver is deciding, named in permission requests. */
    currentCall?: PromptedCall;
    /** File changes of the running call, shown as diffs when it finishes. */
    diffs: FileDiff[];
  };
}

/**
 * Opens a session: a new conversation (system prompt first) or one loaded from the log.
 *
 * @param client Calls the editor (permissions, fs/*).
 * @param deps The agent's provider, grants, limits and policy settings.
 * @param where The folder's workspace, the editor's capabilities, the session log writer and
 *   the loaded messages, if any.
 * @returns The session; its id is the session log's (a random one with --no-session).
 */
export function openAcpSession(
  client: AgentContext,
  deps: AcpAgentDeps,
  where: {
    workspace: AcpWorkspace;
    cwd: string;
    capabilities: ClientCapabilities;
    recorder: SessionRecorder;
    init?: { messages: Message[]; state: Record<string, unknown> };
  },
): AcpSession {
  const { workspace, cwd, capabilities, recorder, init } = where;
  const id = recorder.id ?? crypto.randomUUID();
  const live: AcpSession["live"] = { diffs: [] };
  const prompter = createAcpPrompter({
    sessionId: id,
    currentCall: () => live.currentCall,
    request: (params, signal) =>
      client.request(
        methods.client.session.requestPermission,
        params,
        signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
      ),
  });
  const approver = createPolicyApprover({
    rules: workspace.rules,
    mode: deps.yes ? "yes" : "interactive",
    prompter,
    userPolicyFile: deps.userPolicyFile,
    ...(workspace.projectPolicyFile ? { projectPolicyFile: workspace.projectPolicyFile } : {}),
    workspace: cwd,
  });
  const fs = capabilities.fs ?? {};
  const tools = withEditorFiles(workspace.tools, {
    workspace: cwd,
    grants: deps.grants,
    outputLimit: deps.outputLimit,
    fs: {
      ...(fs.readTextFile
        ? {
          read: async (path: string) =>
            (await client.request(methods.client.fs.readTextFile, { sessionId: id, path }))
              .content,
        }
        : {}),
      ...(fs.writeTextFile
        ? {
          write: async (path: string, content: string) => {
            await client.request(methods.client.fs.writeTextFile, {
              sessionId: id,
              path,
              content,
            });
          },
        }
        : {}),
    },
    onDiff: (diff) => live.diffs.push(diff),
  });
  const parts: ConversationParts = {
    provider: deps.provider,
    tools,
    approver: {
      approve(request, signal) {
        live.currentCall = {
          toolCallId: request.callId,
          title: toolTitle(request.tool, request.args),
          kind: toolKind(request.tool),
        };
        return approver.approve(request, signal);
      },
    },
    recorder,
    limits: deps.limits,
    parseArguments: repairArguments,
    ...(deps.contextLength ? { contextLength: deps.contextLength } : {}),
  };
  const conversation = init
    ? new Conversation(parts, init)
    : Conversation.start(parts, workspace.systemPrompt());
  const session: AcpSession = { id, cwd, conversation, approver, live };
  return session;
}
