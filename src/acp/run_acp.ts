// `harness acp`: the agent an editor starts, speaking the Agent Client Protocol over stdio.
// Opens what a REPL run opens (settings, provider, session store, per-folder policy rules and
// sandboxed tools, through the same cli/ functions), then serves the connection until the
// editor closes it. Only protocol messages go to stdout; everything else goes to stderr.

import { join } from "node:path";
import { ndJsonStream, RequestError } from "@agentclientprotocol/sdk";
import denoJson from "../../deno.json" with { type: "json" };
import type { RunFlags } from "../cli/args.ts";
import { type CommandIO, openStoreOrExit, settingsOrExit } from "../cli/command_io.ts";
import { openProvider } from "../app/open_provider.ts";
import { openTools } from "../app/open_tools.ts";
import { trustProjectPolicy } from "../permissions/project_policy_trust.ts";
import { savedOutputsRoot } from "../config/folders.ts";
import { formatAgentError } from "../errors.ts";
import {
  formatPolicyFileError,
  loadPolicyFiles,
  policyFileRefs,
  userPolicyFile,
} from "../permissions/policy_file.ts";
import { EXIT } from "../app/exit_codes.ts";
import { formatGrants, type Grants } from "../sandbox/grants.ts";
import type { ToolHost } from "../sandbox/tool_host.ts";
import { buildSystemPrompt } from "../agent/system_prompt.ts";
import { createAcpAgent } from "./acp_agent.ts";
import type { AcpWorkspace } from "./acp_session.ts";
import { guardStdout } from "./stdout_guard.ts";

const encoder = new TextEncoder();
const writeErr = (text: string) => Deno.stderr.writeSync(encoder.encode(text));

/**
 * Serves one editor connection on stdin/stdout; returns the exit code when it closes.
 *
 * @param flags The run flags (model, limits, --yes, --policies, --plugins, ...).
 * @param grants The Deno permission grants every tool runs under.
 * @param io Error printing (stderr).
 */
export async function runAcp(flags: RunFlags, grants: Grants, io: CommandIO): Promise<number> {
  const stdout = Deno.stdout.writable;
  guardStdout();
  const loadedSettings = await settingsOrExit(flags, io);
  if (typeof loadedSettings === "number") return loadedSettings;
  const settings = loadedSettings;
  const store = openStoreOrExit(flags, io);
  if (typeof store === "number") return store;
  const opened = await openProvider(settings);
  if (!opened.ok) {
    io.printError(formatAgentError(opened.error));
    store.close();
    return opened.error.kind === "usage" ? EXIT.usage : EXIT.runtime;
  }
  for (const note of opened.value.notes ?? []) writeErr(`note: ${note}\n`);
  const hosts: ToolHost[] = [];
  const workspaces = new Map<string, Promise<AcpWorkspace>>();

  async function openWorkspace(cwd: string): Promise<AcpWorkspace> {
    const loaded = await loadPolicyFiles(
      policyFileRefs({ cwd, ...(flags.policies ? { extra: flags.policies } : {}) }),
    );
    if (!loaded.ok) {
      throw RequestError.invalidParams({ cwd }, formatPolicyFileError(loaded.error));
    }
    // No one can answer a trust question here: an untrusted project file can only ask.
    const quiet = { write: writeErr, readLine: () => Promise.resolve(null) };
    const projectPolicyFile = join(cwd, ".harness", "policies.jsonc");
    const trusted = await trustProjectPolicy(loaded.value, {
      projectFile: projectPolicyFile,
      io: quiet,
      interactive: false,
      cwd,
    });
    const tools = await openTools({
      settings,
      grants,
      cwd,
      dataDir: savedOutputsRoot(),
      interactive: false,
      io: quiet,
    });
    hosts.push(tools.host);
    // A misspelt tool or argument name would make a rule silently match nothing.
    await tools.host.ready();
    const { checkRuleNames } = await import("../permissions/check_rule_names.ts");
    const problem = checkRuleNames(loaded.value, tools.host.list());
    if (problem) throw RequestError.invalidParams({ cwd }, formatPolicyFileError(problem));
    return {
      tools: tools.host,
      rules: trusted.rules,
      projectPolicyFile,
      systemPrompt: () =>
        buildSystemPrompt({
          workspace: cwd,
          now: new Date(),
          os: Deno.build.os,
          tools: tools.host.list().map((tool) => tool.name),
          ...(settings.systemPrompt !== undefined ? { custom: settings.systemPrompt } : {}),
        }),
    };
  }

  const agent = createAcpAgent({
    version: denoJson.version,
    provider: opened.value.provider,
    ...(opened.value.contextLength ? { contextLength: opened.value.contextLength } : {}),
    grants,
    store,
    limits: { maxIterations: settings.maxIterations, maxToolCalls: settings.maxToolCalls },
    yes: flags.yes,
    userPolicyFile: userPolicyFile(),
    outputLimit: settings.toolOutputLimit,
    startInfo: { baseUrl: settings.modelFile ?? settings.baseUrl, grants: formatGrants(grants) },
    log: (message) => writeErr(`${message}\n`),
    workspace(cwd) {
      let open = workspaces.get(cwd);
      if (!open) {
        open = openWorkspace(cwd);
        workspaces.set(cwd, open);
        open.catch(() => workspaces.delete(cwd));
      }
      return open;
    },
  });
  const connection = agent.app.connect(ndJsonStream(stdout, Deno.stdin.readable));
  await connection.closed;
  agent.endSessions();
  await Promise.all(hosts.map((host) => host.close()));
  store.close();
  await opened.value.close?.();
  return EXIT.ok;
}
