// The tools of one run, layered: the sandboxed plugins (tool host), the code-graph tools beside
// them in the host, MCP servers' tools when configured, and on top the filter that offers only
// what the grants let run, in compact form for small windows.

import type { Settings } from "../config/settings.ts";
import { dataDir, savedOutputsRoot } from "../config/folders.ts";
import type { Grants } from "../sandbox/grants.ts";
import { describeCommandSandbox } from "../sandbox/command_sandbox.ts";
import { CodeTools } from "../code_index/code_tools.ts";
import { WithCodeTools } from "../tools/with_code_tools.ts";
import { OfferedTools } from "../tools/offered_tools.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import { McpServers } from "../mcp/mcp_servers.ts";
import { WithMcpTools } from "../mcp/mcp_tools.ts";
import type { Provider } from "../providers/provider.ts";
import type { Message } from "../messages.ts";
import type { Style } from "../ui/style.ts";
import type { TurnInput } from "../ui/repl.ts";
import { openTools } from "./open_tools.ts";
import { terminalLine, terminalSafe } from "../platform/terminal_text.ts";

export interface RunToolsOptions {
  settings: Settings;
  grants: Grants;
  cwd: string;
  printMode: boolean;
  provider: Provider;
  /** The model server in use (the one found, when harness looked for one); embeddings too. */
  serverUrl?: string;
  /** The window the provider stated, for the code map and the compact schema form. */
  contextLength: number | undefined;
  /** The conversation's messages now (the REPL's /clear and /resume replace it). */
  messages: () => readonly Message[];
  /** The live conversation's window, when it knows one. */
  conversationWindow: () => number | undefined;
  turnInput: TurnInput;
  writeErr: (text: string) => void;
  style: Style;
}

/** What {@linkcode openRunTools} opened. */
export interface RunTools {
  /** The sandboxed plugins' host and what it found. */
  tools: Awaited<ReturnType<typeof openTools>>;
  /** What the conversation calls. */
  runner: OfferedTools;
  /** The MCP servers, when any are configured (started here for -p, by the REPL later). */
  mcp: McpServers | undefined;
  /** How the approval prompt describes a command's confinement (issue 14). */
  commandNote(): string;
}

/** Opens the tools of a run; for -p, waits until the real tool list is known. */
export async function openRunTools(options: RunToolsOptions): Promise<RunTools> {
  const { settings, grants, cwd, turnInput, writeErr } = options;
  const tools = await openTools({
    settings,
    grants,
    cwd,
    dataDir: savedOutputsRoot(),
    interactive: !options.printMode,
    io: {
      write: writeErr,
      readLine: (text) => turnInput.readLine(text),
      // One key, as approvals take it.
      readKey: async (text) => {
        writeErr(text);
        const key = await turnInput.readKey();
        writeErr(`${/^[\x20-\x7e]$/.test(key) ? key : ""}\n`);
        return key === "\x03" || key === "\x04" ? null : key;
      },
    },
    background: true,
  });
  // MCP servers (src/mcp/) start after the prompt shows; their tools join when each is ready.
  const mcp = Object.keys(settings.mcpServers).length === 0 ? undefined : new McpServers(
    settings.mcpServers,
    {
      grants,
      cwd,
      notice: (line) => writeErr(`${options.style.yellow(`warning: ${terminalSafe(line)}`)}\n`),
    },
  );
  const inner = withCodeTools(tools.host, options);
  // Only tools the sandbox can run are offered, in compact form for small windows.
  const runner = new OfferedTools(mcp ? withMcpTools(inner, mcp, options) : inner, {
    grants,
    workspace: cwd,
    contextWindow: () => options.conversationWindow() ?? options.contextLength,
  });
  // The approval prompt says whether a command would run confined (issue 14).
  let commandNote = "commands: the command sandbox check has not finished";
  void tools.commandSandbox.then((sandbox) =>
    commandNote = `${describeCommandSandbox(sandbox)}; a command can start any program`
  );
  if (options.printMode) {
    mcp?.start();
    await runner.ready(); // nothing to show meanwhile: list the real tools
  }
  return { tools, runner, mcp, commandNote: () => commandNote };
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
      contextWindow: () => options.contextLength,
      recentText: recent,
      // search_code's embedding model: configured, or found on the local server.
      embedder: async () =>
        (await import("../providers/embeddings/embedding_setup.ts")).resolveEmbedder({
          ...(options.settings.embeddingModel
            ? { embeddingModel: options.settings.embeddingModel }
            : {}),
          ...(options.settings.embeddingBaseUrl
            ? { embeddingBaseUrl: options.settings.embeddingBaseUrl }
            : {}),
          server: {
            ...(options.serverUrl ? { baseUrl: options.serverUrl } : {}),
            provider: options.provider.name,
          },
          ...(options.settings.apiKey ? { apiKey: options.settings.apiKey } : {}),
        }),
    }),
    options.settings.curator === "off" ? undefined : {
      provider: options.provider,
      recentText: recent,
      contextText: () => lastUserText(options.messages()),
      contextWindow: () => options.contextLength,
    },
  );
}

function withMcpTools(inner: ToolRunner, mcp: McpServers, options: RunToolsOptions): ToolRunner {
  const { settings, style, writeErr } = options;
  return new WithMcpTools(inner, mcp, {
    dataDir: savedOutputsRoot(),
    maxOutputSize: settings.maxOutputSize,
    toolOutputLimit: settings.toolOutputLimit,
    timeouts: settings.toolTimeouts,
    // On a terminal, progress notifications replace the running tool's line.
    ...(Deno.stderr.isTerminal()
      ? {
        progress: (_name: string, text: string | null) =>
          writeErr(text === null ? "\r\x1b[2K" : `\r\x1b[2K${style.dim(terminalLine(text))}`),
      }
      : {}),
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
