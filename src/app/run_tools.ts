// The tools of one workspace, layered: the sandboxed plugins (tool host), the code-graph and
// skill tools beside them in the host, MCP servers' tools (configured, plus those an editor names), and on
// top the filter that offers only what the grants let run, in compact form for small windows.

import type { Settings } from "../config/settings.ts";
import type { McpServerConfig } from "../config/mcp_config.ts";
import {
  configDir,
  dataDir,
  homeDir,
  savedOutputsRoot,
  workspaceDataDir,
} from "../config/folders.ts";
import type { Grants } from "../sandbox/grants.ts";
import { type CommandSandbox, describeCommandSandbox } from "../sandbox/command_sandbox.ts";
import type { ToolHost } from "../sandbox/tool_host.ts";
import { noteMovedEntries } from "../sandbox/moved_entries.ts";
import { CodeTools } from "../code_index/code_tools.ts";
import { WithCodeTools } from "./with_code_tools.ts";
import { WithSkillTools } from "./with_skill_tools.ts";
import type { RunSkills } from "./run_skills.ts";
import { anySkillRoot } from "../skills/skill_roots.ts";
import { OfferedTools } from "./offered_tools.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import type * as McpServersModule from "../mcp/mcp_servers.ts";
import type * as McpToolsModule from "../mcp/mcp_tools.ts";
import type { Provider } from "../providers/provider.ts";
import type { EmbeddingServer } from "../providers/embeddings/embedding_setup.ts";
import type { Message } from "../messages.ts";
import type { ConversationPrefix } from "../agent/conversation.ts";
import type { FrontEnd } from "./front_end.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { openTools } from "./open_tools.ts";
import type { JobTable } from "../jobs/job_table.ts";
import type { EditDiagnostics } from "../diagnostics/edit_diagnostics.ts";
import { openRunDiagnostics } from "./run_diagnostics.ts";
import { webSearchGrants } from "./web_search_setup.ts";

// Not string literals: a run without MCP servers never loads the MCP modules. The "compile"
// task embeds them through its --include list.
const MCP_SERVERS_MODULE = "../mcp/mcp_servers.ts";
const MCP_TOOLS_MODULE = "../mcp/mcp_tools.ts";

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
  /** The plugins and the code tools, every one of them (`harness tool` calls any). */
  all: ToolRunner;
  /** What the model is offered. */
  runner: OfferedTools;
  /** The workspace's skills, when any skills folder exists (src/skills/). */
  skills: RunSkills | undefined;
  /** The MCP servers, when any are configured (the front end says when they start). */
  mcp: McpServersModule.McpServers | undefined;
  /** The command sandbox's start-up check. */
  commandSandbox: Promise<CommandSandbox>;
  /** The background jobs run_command started (src/jobs/), ended with the workspace. */
  jobs: JobTable;
  /** The checks after each edit: syntax, and the configured language servers. */
  diagnostics: EditDiagnostics;
  /** How the approval prompt describes a command's confinement (issue 14). */
  commandNote(): string;
  /** The workspace's file gate: every file access for this workspace asks it. */
  gate: FileGate;
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
  // MCP servers (src/mcp/) start when the front end says; their tools join when each is ready.
  const servers = { ...settings.mcpServers, ...options.mcpServers };
  const mcpModules = Object.keys(servers).length === 0 ? undefined : await Promise.all([
    import(MCP_SERVERS_MODULE) as Promise<typeof McpServersModule>,
    import(MCP_TOOLS_MODULE) as Promise<typeof McpToolsModule>,
  ]);
  const mcp = mcpModules && new mcpModules[0].McpServers(servers, {
    grants,
    cwd,
    notice: (line) => frontEnd.mcpNotice(line),
    // Stdio servers start in the same command sandbox as commands (issue 26).
    commandSandbox: tools.commandSandbox,
    outputsDir: workspaceOutputs,
  });
  // A launcher's profile (npx, uvx, ...) is asked about once, where the user can answer.
  await mcp?.approveProfiles(frontEnd.interactive ? frontEnd.io : undefined);
  // Skills (SKILL.md folders) load only when a skills folder exists: their parser costs a run
  // without any nothing.
  const skills = anySkillRoot({ cwd, home: homeDir(), configDir: configDir() })
    ? await (await import("./run_skills.ts")).openRunSkills({
      cwd,
      grants,
      gate: tools.gate,
      io: frontEnd.io,
      interactive: frontEnd.interactive,
      messages: options.messages,
    })
    : undefined;
  const coded = withCodeTools(tools.host, options);
  const all = skills ? new WithSkillTools(coded, skills.tools) : coded;
  const inner = mcpModules && mcp
    ? withMcpTools(mcpModules[1].WithMcpTools, {
      inner: all,
      mcp,
      outputs: workspaceOutputs,
      gate: tools.gate,
    }, options)
    : all;
  // Only tools the sandbox can run are offered, in compact form for small windows.
  const toolGrants = webSearchGrants(settings.webSearchUrl);
  const runner = new OfferedTools(inner, {
    grants,
    workspace: cwd,
    contextWindow: () => options.conversationWindow() ?? options.contextLength(),
    ...(toolGrants ? { toolGrants } : {}),
  });
  // The approval prompt says whether a command would run confined (issue 14).
  let commandNote = "commands: the command sandbox check has not finished";
  void tools.commandSandbox.then((sandbox) =>
    commandNote = `${describeCommandSandbox(sandbox)}; a command can start any program`
  );
  return {
    host: tools.host,
    pluginNames: tools.names,
    all,
    skills,
    runner,
    mcp,
    commandSandbox: tools.commandSandbox,
    jobs: tools.host.jobs,
    diagnostics: openRunDiagnostics({
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
  };
}

/** The code-graph tools, run in the host beside the sandboxed plugins (src/code_index/). */
function withCodeTools(host: ToolRunner, options: RunToolsOptions): WithCodeTools {
  const recent = () => recentText(options.messages());
  return new WithCodeTools(
    host,
    new CodeTools({
      workspace: options.cwd,
      grants: options.grants,
      dataDir: dataDir(),
      contextWindow: () => options.contextLength(),
      recentText: recent,
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
    }),
    options.settings.curator === "off" ? undefined : {
      provider: () => options.provider(),
      contextText: () => lastUserText(options.messages()),
      conversation: () => options.conversationPrefix(),
    },
  );
}

function withMcpTools(
  WithMcpTools: typeof McpToolsModule.WithMcpTools,
  layer: {
    inner: ToolRunner;
    mcp: McpServersModule.McpServers;
    outputs: string;
    gate: FileGate;
  },
  options: RunToolsOptions,
): ToolRunner {
  const { settings, frontEnd } = options;
  const { inner, mcp, outputs } = layer;
  return new WithMcpTools(inner, mcp, {
    dataDir: outputs,
    maxOutputSize: settings.maxOutputSize,
    toolOutputLimit: settings.toolOutputLimit,
    timeouts: settings.toolTimeouts,
    ...(frontEnd.mcpProgress ? { progress: frontEnd.mcpProgress } : {}),
    // A server may move what the gate keeps (issue 38): checked as after a command.
    afterCall: (run) => noteMovedEntries(run, layer.gate),
  });
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
