// `harness acp`: the agent an editor starts, speaking the Agent Client Protocol over stdio.
// Opens the run as every front end does (app/open_run.ts: settings, provider, session log)
// and, per folder an editor starts sessions in, its workspace with the MCP servers the editor
// names; then serves the connection until the editor closes it. Only protocol messages go to
// stdout; everything else goes to stderr.

import { ndJsonStream, RequestError } from "@agentclientprotocol/sdk";
import type { McpServer } from "@agentclientprotocol/sdk";
import denoJson from "../../deno.json" with { type: "json" };
import type { RunFlags } from "../app/run_flags.ts";
import type { FrontEnd } from "../app/front_end.ts";
import { openRun, type Run } from "../app/open_run.ts";
import { EXIT } from "../app/exit_codes.ts";
import { formatAgentError } from "../errors.ts";
import { loadSettings } from "../config/settings.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { createAcpAgent } from "./acp_agent.ts";
import type { AcpWorkspace } from "./acp_session.ts";
import { editorMcpServers } from "./editor_mcp_servers.ts";
import { guardStdout } from "./stdout_guard.ts";

const encoder = new TextEncoder();
const writeErr = (text: string) => Deno.stderr.writeSync(encoder.encode(text));

/** How harness acp reports: errors, on stderr. */
export interface AcpIO {
  printError(message: string): void;
}

/** The editor's side: no one can answer a question, and every message goes to stderr. */
const ACP_FRONT_END: FrontEnd = {
  interactive: false,
  // No one can answer a trust question here: untrusted project content is left out.
  io: { write: writeErr, readLine: () => Promise.resolve(null) },
  mcpNotice: (line) => writeErr(`warning: ${line}\n`),
  approvalNote: (text) => writeErr(`${text}\n`),
  progress: {
    download: (name) =>
      Promise.resolve({
        onStart: ({ file }) => writeErr(`Downloading ${name} to ${file}\n`),
        onVerify: () => writeErr(`Checking the downloaded file\n`),
      }),
  },
  providerOpened: (notes) => {
    for (const note of notes) writeErr(`note: ${note}\n`);
  },
};

/**
 * Serves one editor connection on stdin/stdout; returns the exit code when it closes.
 *
 * @param flags The run flags (model, limits, --yes, --policies, --plugins, ...).
 * @param grants The Deno permission grants every tool runs under.
 * @param io Error printing (stderr).
 */
export async function runAcp(flags: RunFlags, grants: Grants, io: AcpIO): Promise<number> {
  const stdout = Deno.stdout.writable;
  guardStdout();
  const settings = await loadSettings(flags, { cwd: Deno.cwd() });
  if (!settings.ok) {
    io.printError(formatAgentError(settings.error));
    return EXIT.usage;
  }
  const opened = await openRun({
    settings: settings.value,
    grants,
    yes: flags.yes,
    ...(flags.policies !== undefined ? { policies: flags.policies } : {}),
    noSession: flags.noSession,
  }, ACP_FRONT_END);
  if (!opened.ok) {
    if (opened.error.message !== undefined) io.printError(opened.error.message);
    return opened.error.exit;
  }
  const run = opened.value;
  const agent = createAcpAgent({
    version: denoJson.version,
    grants,
    yes: flags.yes,
    log: (message) => writeErr(`${message}\n`),
    workspace: (cwd, mcpServers) => openAcpWorkspace(run, cwd, mcpServers),
  });
  const connection = agent.app.connect(ndJsonStream(stdout, Deno.stdin.readable));
  await connection.closed;
  // Every turn records its end before the logs end and the store closes.
  await agent.endSessions();
  await run.close();
  return EXIT.ok;
}

/**
 * The workspace of a session's folder, with the editor's MCP servers started: its tool list
 * (MCP servers' tools too, for up to 10 s) is known before the session starts. A broken
 * policy file or a misspelt rule refuses the session.
 */
async function openAcpWorkspace(
  run: Run,
  cwd: string,
  servers: readonly McpServer[],
): Promise<AcpWorkspace> {
  const editor = editorMcpServers(servers);
  if ("error" in editor) throw RequestError.invalidParams({ mcpServers: servers }, editor.error);
  const extras = Object.keys(editor.servers).length > 0 ? { mcpServers: editor.servers } : {};
  const opened = await run.workspace(cwd, extras);
  if (!opened.ok) throw RequestError.invalidParams({ cwd }, opened.error.message);
  const workspace = opened.value;
  workspace.tools.mcp?.start();
  await workspace.tools.set.ready();
  // A misspelt tool or argument name would make a rule silently match nothing.
  const problem = await workspace.approval.rulesProblem;
  if (problem !== undefined) {
    await run.closeWorkspace(workspace); // the next session/new reads the files again
    throw RequestError.invalidParams({ cwd }, problem);
  }
  return { workspace, sessions: run.sessions(workspace) };
}
