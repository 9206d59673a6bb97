// The tools of one workspace as one flat set: the sandboxed plugins (tool host), the code-graph
// and skill tools beside them in the host, MCP servers' tools (configured, plus those an editor
// names), each source handing in its entries; the code tools' stages for each call (index
// update, curator); and what a conversation offers of them (src/sandbox/grants/tool_offer.ts: the
// grants, the window, the mode).

import type { Settings } from "../config/settings.ts";
import type { McpServerConfig } from "../config/mcp_config.ts";
import {
  configDir,
  dataDir,
  homeDir,
  savedOutputsRoot,
  workspaceDataDir,
} from "../config/folders.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import {
  type CommandSandbox,
  describeCommandSandbox,
} from "../sandbox/commands/command_sandbox.ts";
import type { ToolHost } from "../sandbox/workers/tool_host.ts";
import { noteMovedEntries } from "../sandbox/workers/moved_entries.ts";
import { CodeTools } from "../code_index/code_tools.ts";
import { codeToolStages } from "./code_tool_stages.ts";
import type { ToolEntry, ToolSource } from "../tools/tool_entry.ts";
import { ToolSet } from "../tools/tool_set.ts";
import type { PlacedStage } from "../agent/call_flight.ts";
import { offerTools, type ToolOffer, type ToolScope } from "../sandbox/grants/tool_offer.ts";
import type { RunSkills } from "./run_skills.ts";
import { anySkillRoot } from "../skills/skill_roots.ts";
import type { SkillTools } from "../skills/skill_tools.ts";
import type * as McpServersModule from "../mcp/mcp_servers.ts";
import type * as McpToolsModule from "../mcp/mcp_tools.ts";
import type { Provider } from "../providers/provider.ts";
import type { EmbeddingServer } from "../providers/embeddings/embedding_setup.ts";
import type { Message } from "../messages.ts";
import type { ConversationPrefix } from "../agent/conversation_parts.ts";
import type { FrontEnd } from "./front_end.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { openTools } from "./open_tools.ts";
import type { JobTable } from "../jobs/job_table.ts";
import { type WorkspaceDiagnostics, workspaceDiagnostics } from "./workspace_diagnostics.ts";
import { webSearchGrants } from "./web_search_setup.ts";
import { loadOwnModule } from "../platform/own_modules.ts";
import { ScopedTools } from "./scoped_tools.ts";
import { type AgentCatalog, openAgentCatalog } from "./agent_catalog.ts";
import type { openRunHooks } from "./run_hooks.ts";

export interface RunToolsOptions {
  settings: Settings;
  grants: Grants;
  cwd: string;
  frontEnd: FrontEnd;
  /** MCP servers beside the configured ones (an editor's, from ACP's session/new). */
  mcpServers?: Record<string, McpServerConfig>;
  /** The provider, once open: the read_file curator asks it. */
  provider(): Provider | undefined;
  /** The window the provider stated, for the code map and the compact schema form. */
  contextLength(): number | undefined;
  /** The model server, once known: search_code's embedding model may be found there. */
  server(): Promise<EmbeddingServer | undefined>;
  /** The messages of the conversation the tools serve now (the latest one to send). */
  messages(): readonly Message[];
  /** That conversation's window, when it knows one. */
  conversationWindow(): number | undefined;
  /** That conversation's next request, which the read_file curator builds on. */
  conversationPrefix(): ConversationPrefix | undefined;
}

/** What {@linkcode openRunTools} opened. */
export interface RunTools {
  /** The sandboxed plugins. */
  host: ToolHost;
  /** The plugin files' names: the tool list until the host has listed it. */
  pluginNames: readonly string[];
  /** Every tool: the plugins, the code tools and the MCP servers' (`harness tool` calls any). */
  set: ToolSet;
  /** What a conversation of this workspace may offer: the set, narrowed by the grants. */
  scope: ToolScope;
  /** What is offered now, at the followed conversation's window (/tools). */
  offer(): ToolOffer;
  /** The code tools' stages on each call's path (index update, curator). */
  stages: readonly PlacedStage[];
  /** The workspace's skills, when any skills folder exists (src/skills/). */
  skills: RunSkills | undefined;
  /** The MCP servers, when any are configured (the front end says when they start). */
  mcp: McpServersModule.McpServers | undefined;
  /** The command sandbox's start-up check. */
  commandSandbox: Promise<CommandSandbox>;
  /** The background jobs run_command started (src/jobs/), ended with the workspace. */
  jobs: JobTable;
  /** The checks after each edit: syntax, and the configured language servers. */
  diagnostics: WorkspaceDiagnostics;
  /** How the approval prompt describes a command's confinement (issue 14). */
  commandNote(): string;
  /** The workspace's file gate: every file access for this workspace asks it. */
  gate: FileGate;
  /** The tools of narrowed scopes (subagents, plan mode), built from their own grants. */
  scoped: ScopedTools;
  /** The agents `task` can start (src/agents/), the project's only once trusted. */
  agents: AgentCatalog;
  /**
   * Opens a conversation's hooks (run_hooks.ts): loaded only when the user's or the trusted
   * project's config has any, so a run without hooks never loads their runner.
   */
  openHooks?: typeof openRunHooks;
}

/** Opens the tools of a workspace (their list in the background when the front end says). */
export async function openRunTools(options: RunToolsOptions): Promise<RunTools> {
  const { settings, grants, cwd, frontEnd } = options;
  const outputsDir = frontEnd.outputsDir ?? savedOutputsRoot();
  // The workspace's own saved outputs, as the tool host's: its read_file may read them.
  const workspaceOutputs = workspaceDataDir(outputsDir, cwd);
  const tools = await openTools({
    settings,
    grants,
    cwd,
    dataDir: outputsDir,
    interactive: frontEnd.interactive,
    ...(frontEnd.oneCall ? { workerPerTool: true } : {}),
    io: frontEnd.io,
    // The REPL's prompt does not wait for the tool list; the others know it before they start.
    background: frontEnd.listsToolsLater === true,
    ...(frontEnd.jobChanged ? { onJobChange: (job) => frontEnd.jobChanged?.(job) } : {}),
  });
  const mcp = await openMcp(options, {
    sandbox: tools.commandSandbox,
    outputs: workspaceOutputs,
    gate: tools.gate,
  });
  const skills = await openSkills(options, tools.gate);
  const agents = await openAgents(options, tools.gate);
  const hooks = hasHooks(settings) ? (await import("./run_hooks.ts")).openRunHooks : undefined;
  const code = codeTools(options);
  const readers: ToolSource[] = [code, ...(skills ? [skillSource(skills.tools)] : [])];
  const set = new ToolSet([tools.host, ...readers, ...(mcp ? [mcp.source] : [])]);
  // Built-in tools' own grants (web_search's engine) decide whether they can run.
  const toolGrants = webSearchGrants(settings.webSearchUrl);
  const scope: ToolScope = { set, grants, workspace: cwd, ...(toolGrants ? { toolGrants } : {}) };
  // The approval prompt says whether a command would run confined (issue 14).
  let commandNote = "commands: the command sandbox check has not finished";
  void tools.commandSandbox.then((sandbox) =>
    commandNote = `${describeCommandSandbox(sandbox)}; a command can start any program`
  );
  return {
    host: tools.host,
    pluginNames: tools.names,
    set,
    scope,
    // Only tools the sandbox can run are offered, in compact form for small windows.
    offer: () => offerTools(scope, options.conversationWindow() ?? options.contextLength()),
    stages: codeToolStages(
      code,
      options.settings.curator === "off" ? undefined : {
        provider: () => options.provider(),
        contextText: () => lastUserText(options.messages()),
        conversation: () => options.conversationPrefix(),
      },
    ),
    skills,
    mcp: mcp?.servers,
    commandSandbox: tools.commandSandbox,
    jobs: tools.host.jobs,
    diagnostics: workspaceDiagnostics({
      settings,
      grants,
      cwd,
      sandbox: tools.commandSandbox,
      io: frontEnd.io,
      interactive: frontEnd.interactive,
      gate: tools.gate,
    }),
    commandNote: () => commandNote,
    gate: tools.gate,
    agents,
    ...(hooks ? { openHooks: hooks } : {}),
    scoped: new ScopedTools({
      ...tools,
      settings,
      grants,
      cwd,
      outputsRoot: outputsDir,
      set,
      readers,
    }),
  };
}

/** Whether the user's or the project's config names any hook (run_hooks.ts runs them). */
function hasHooks(settings: Pick<Settings, "hooks" | "projectHooks">): boolean {
  return Object.keys(settings.hooks ?? {}).length > 0 ||
    Object.keys(settings.projectHooks ?? {}).length > 0;
}

/** The code-graph tools, run in the host beside the sandboxed plugins (src/code_index/). */
function codeTools(options: RunToolsOptions): CodeTools {
  return new CodeTools({
    workspace: options.cwd,
    grants: options.grants,
    dataDir: dataDir(),
    contextWindow: () => options.contextLength(),
    recentText: () => recentText(options.messages()),
    // search_code's embedding model: configured, or found on the model server.
    embedder: async () => {
      const server = await options.server();
      if (server === undefined) return undefined;
      const { resolveEmbedder } = await import("../providers/embeddings/embedding_setup.ts");
      const { settings } = options;
      return await resolveEmbedder({
        ...(settings.embeddingModel ? { embeddingModel: settings.embeddingModel } : {}),
        ...(settings.embeddingBaseUrl ? { embeddingBaseUrl: settings.embeddingBaseUrl } : {}),
        server,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      });
    },
  });
}

/** The skill tools (src/skills/), run in the host, as a source of the tool set. */
function skillSource(skills: SkillTools): ToolSource {
  let made: { key: string; entries: readonly ToolEntry[] } | undefined;
  return {
    entries() {
      const infos = skills.list();
      const key = infos.map((info) => info.name).join();
      made = made?.key === key ? made : {
        key,
        entries: infos.map((info) => ({
          info,
          validate: (args) => Promise.resolve(skills.validate(info.name, args)),
          run: (args, call) =>
            Promise.resolve({
              ...skills.run(info.name, args as Record<string, unknown>),
              state: call.state,
            }),
        })),
      };
      return made.entries;
    },
  };
}

/**
 * The MCP servers (src/mcp/), configured and the editor's, when there are any: they start when
 * the front end says, and their tools join the set when each is ready.
 */
async function openMcp(
  options: RunToolsOptions,
  layer: { sandbox: Promise<CommandSandbox>; outputs: string; gate: FileGate },
): Promise<{ servers: McpServersModule.McpServers; source: ToolSource } | undefined> {
  const { settings, frontEnd, grants, cwd } = options;
  const configured = { ...settings.mcpServers, ...options.mcpServers };
  if (Object.keys(configured).length === 0) return undefined;
  // Loaded here (own_modules.ts): a run without MCP servers never loads the MCP modules.
  const [{ McpServers }, { McpTools }] = await Promise.all([
    loadOwnModule<typeof McpServersModule>("src/mcp/mcp_servers.ts"),
    loadOwnModule<typeof McpToolsModule>("src/mcp/mcp_tools.ts"),
  ]);
  const servers = new McpServers(configured, {
    grants,
    cwd,
    notice: (line) => frontEnd.mcpNotice(line),
    // Stdio servers start in the same command sandbox as commands (issue 26).
    commandSandbox: layer.sandbox,
    outputsDir: layer.outputs,
  });
  // A launcher's profile (npx, uvx, ...) is asked about once, where the user can answer.
  await servers.approveProfiles(frontEnd.interactive ? frontEnd.io : undefined);
  const source = new McpTools(servers, {
    dataDir: layer.outputs,
    maxOutputSize: settings.maxOutputSize,
    toolOutputLimit: settings.toolOutputLimit,
    timeouts: settings.toolTimeouts,
    ...(frontEnd.mcpProgress ? { progress: frontEnd.mcpProgress } : {}),
    // A server may move what the gate keeps (issue 38): checked as after a command.
    afterCall: (run) => noteMovedEntries(run, layer.gate),
  });
  return { servers, source };
}

/**
 * The skills (SKILL.md folders), loaded only when a skills folder exists: their parser costs a
 * run without any nothing.
 */
async function openSkills(
  options: RunToolsOptions,
  gate: FileGate,
): Promise<RunSkills | undefined> {
  const { cwd, grants, frontEnd } = options;
  if (!anySkillRoot({ cwd, home: homeDir(), configDir: configDir() })) return undefined;
  return await (await import("./run_skills.ts")).openRunSkills({
    cwd,
    grants,
    gate,
    io: frontEnd.io,
    interactive: frontEnd.interactive,
    messages: options.messages,
  });
}

/** The agents `task` can start: found once, the project's asked about as plugins are. */
function openAgents(options: RunToolsOptions, gate: FileGate): Promise<AgentCatalog> {
  const { cwd, frontEnd } = options;
  return openAgentCatalog({ cwd, gate, io: frontEnd.io, interactive: frontEnd.interactive });
}

/** The last user and assistant messages, the code map's hint of what matters now. */
function recentText(messages: readonly Message[]): string {
  return messages.filter((m) =>
    m.kind === "user" || m.kind === "assistant" || m.kind === "tool_call"
  )
    .slice(-8).map((m) => m.content).join("\n").slice(-8000);
}

/** The last user messages: what the curator's cached choices depend on. */
function lastUserText(messages: readonly Message[]): string {
  return messages.filter((m) => m.kind === "user").slice(-2).map((m) => m.content).join("\n");
}
