// One workspace folder of a run: its policy rules, its tools (plugins, code tools, MCP
// servers, the offered filter) and the approval over them. The REPL, -p and `harness tool`
// have one, the run's folder; ACP opens one per folder an editor starts sessions in.

import { terminalLine } from "../platform/terminal_text.ts";
import { err, ok, type Result } from "../errors.ts";
import type { Settings } from "../config/settings.ts";
import type { McpServerConfig } from "../config/mcp_config.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import type { Conversation } from "../agent/conversation.ts";
import type { Provider } from "../providers/provider.ts";
import type { EmbeddingServer } from "../providers/embeddings/embedding_setup.ts";
import type { LoadedRule } from "../permissions/policy.ts";
import {
  formatPolicyFileError,
  loadPolicyFiles,
  policyFileRefs,
} from "../permissions/policy_file.ts";
import { tracePhase } from "../platform/startup_trace.ts";
import { EXIT } from "./exit_codes.ts";
import type { FrontEnd } from "./front_end.ts";
import { openRunTools, type RunTools } from "./run_tools.ts";
import { openRunApproval, type RunApproval } from "./run_approver.ts";
import type { LoadedInstructions } from "../config/project_instructions.ts";
import { loadWorkspaceInstructions } from "../turn_input/workspace_instructions.ts";
import type { LoadedCommands } from "../turn_input/custom_commands.ts";
import type * as WorkspaceCommands from "../turn_input/workspace_commands.ts";
import { sessionEndLine } from "../jobs/job_notes.ts";

/**
 * Why a run or a workspace could not open (left out when the front end said it already), and
 * the exit code it means (EXIT in exit_codes.ts).
 */
export interface RunFailure {
  message?: string;
  exit: number;
}

/** What a workspace is opened with. */
export interface WorkspaceRequest {
  settings: Settings;
  grants: Grants;
  cwd: string;
  yes: boolean;
  /** --policies FILE, loaded after the user's and the project's files. */
  policies?: string;
  /** MCP servers beside the configured ones (an editor's). */
  mcpServers?: Record<string, McpServerConfig>;
}

/** The model side the tools may ask, once it is open. */
export interface WorkspaceModel {
  provider(): Provider | undefined;
  contextLength(): number | undefined;
  /**
   * The model server and the provider speaking to it, once known (search_code asks it for
   * embeddings); undefined when the provider did not open.
   */
  server(): Promise<EmbeddingServer | undefined>;
}

/** What the code tools read of the conversation they follow. */
export type FollowedConversation = Pick<Conversation, "messages" | "contextLength" | "requestView">;

/** An open workspace. */
export interface Workspace {
  cwd: string;
  tools: RunTools;
  approval: RunApproval;
  /** The instruction files (AGENTS.md ...) its system prompt carries. */
  instructions: LoadedInstructions;
  /**
   * Its custom commands, loaded on the first call (the project's asked about, as plugins are);
   * a front end without commands never pays for them.
   */
  commands(): Promise<LoadedCommands>;
  /**
   * The conversation the code tools follow now (the latest one to send a message): the code
   * map's hint, the offered tools' window, and the read_file curator's side request.
   */
  follow(conversation: () => FollowedConversation): void;
  close(): Promise<void>;
}

/**
 * Loads the policy files a workspace uses: the user's, the project's and --policies.
 *
 * @returns The rules, or the policy file's error (exit 2).
 */
export async function loadWorkspaceRules(
  cwd: string,
  policies: string | undefined,
): Promise<Result<LoadedRule[], RunFailure>> {
  const rules = await loadPolicyFiles(
    policyFileRefs({ cwd, ...(policies !== undefined ? { extra: policies } : {}) }),
  );
  if (!rules.ok) return err({ message: formatPolicyFileError(rules.error), exit: EXIT.usage });
  tracePhase("policy files loaded");
  return ok(rules.value);
}

/**
 * Opens a workspace's tools and approval over rules already loaded. For a front end that
 * cannot answer, the tool list is known when this returns.
 *
 * @param request Settings, grants, folder and flags.
 * @param rules The workspace's rules ({@linkcode loadWorkspaceRules}).
 * @param frontEnd How questions and messages reach the user.
 * @param model The provider and its window, once open.
 */
export async function openWorkspace(
  request: WorkspaceRequest,
  rules: LoadedRule[],
  frontEnd: FrontEnd,
  model: WorkspaceModel,
): Promise<Workspace> {
  const { settings, grants, cwd } = request;
  let focus: (() => FollowedConversation) | undefined;
  const tools = await openRunTools({
    settings,
    grants,
    cwd,
    frontEnd,
    ...(request.mcpServers ? { mcpServers: request.mcpServers } : {}),
    provider: model.provider,
    contextLength: model.contextLength,
    server: model.server,
    messages: () => focus?.().messages ?? [],
    conversationWindow: () => focus?.().contextLength,
    conversationPrefix: () => focus?.().requestView(),
  });
  tracePhase("tools opened");
  const approval = await openRunApproval({ rules, cwd, yes: request.yes, frontEnd, tools });
  let commands: Promise<LoadedCommands> | undefined;
  return {
    cwd,
    tools,
    approval,
    instructions: loadWorkspaceInstructions(settings, grants, cwd, tools.gate),
    commands() {
      // Loaded when first asked for (the REPL at start, -p only for a /command prompt).
      commands ??=
        (import("../turn_input/workspace_commands.ts") as Promise<typeof WorkspaceCommands>)
          .then(({ loadWorkspaceCommands }) =>
            loadWorkspaceCommands(cwd, {
              io: frontEnd.io,
              interactive: frontEnd.interactive,
              gate: tools.gate,
            })
          );
      return commands;
    },
    follow(conversation) {
      focus = conversation;
    },
    async close() {
      // The background jobs end with the session, with a line saying which.
      const line = sessionEndLine(await tools.jobs.close());
      // The jobs' commands are the model's text: escapes show as text.
      if (line !== undefined) frontEnd.io.write(`${terminalLine(line)}\n`);
      await tools.diagnostics.close();
      await tools.scoped.close();
      await tools.set.close();
    },
  };
}
