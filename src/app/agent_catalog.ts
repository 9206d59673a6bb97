// The agents a workspace's `task` tool can start: the agent files found in the four formats'
// folders (src/agents/), the project's only once the user trusts them (asked as project plugins
// are; without a terminal they are skipped with a line), none the gate refuses, and a built-in
// general agent when no file defines one by that name. Found once per workspace, before the
// first request: the `task` tool's description lists them, and it stays as it was.

import type { FileGate } from "../gate/file_gate.ts";
import { configDir, homeDir } from "../config/folders.ts";
import { checkProjectTrust, type TrustIO } from "../permissions/project_trust.ts";
import type { AgentDefinition } from "../agents/agent_definition.ts";
import { agentKey, anyAgentFolder } from "../agents/agent_folders.ts";
import type { DiscoveredAgents } from "../agents/discover_agents.ts";
import { terminalLine } from "../platform/terminal_text.ts";
import { compareNames } from "../platform/name_order.ts";

/** How the project's agent files are named in trust questions. */
const AGENT_WORDING = {
  noun: "project agent file",
  why: "Project agent files are instructions this repository wrote for subagents",
  question: "Trust and offer them?",
  withoutTrust: "Not offering them",
  skipping: "Skipping",
};

/** The name of the agent harness always has. */
export const GENERAL_AGENT = "general";

/** The built-in agent: what a `task` call gets when no file defines "general". */
export const BUILTIN_GENERAL: AgentDefinition = {
  name: GENERAL_AGENT,
  description: "A general-purpose agent for a self-contained sub-task: searching and reading " +
    "many files, or a focused change. It does not see this conversation: say everything it " +
    "needs in the prompt.",
  instructions: "Do the task you are given with the tools you have, then answer with a short " +
    "report: what you found or changed, with file paths and line numbers where they help. " +
    "Your answer is all the agent that started you sees.",
  file: "(built in)",
  format: "harness",
  scope: "user",
  fields: {},
  notes: [],
};

/** What finding a workspace's agents takes. */
export interface AgentCatalogOptions {
  cwd: string;
  gate: FileGate;
  io: TrustIO;
  /** The REPL asks about untrusted project files; elsewhere they are skipped with a line. */
  interactive: boolean;
  /** The user's folders (tests); default from the environment. */
  home?: string;
  configDir?: string;
}

/** The agents of a workspace. */
export interface AgentCatalog {
  /** Every agent a `task` call may name, the built-in one included, sorted by name. */
  agents: readonly AgentDefinition[];
  /** The files that did not load, with why (`harness agents` lists them too). */
  skipped: DiscoveredAgents["skipped"];
  /** An agent by name (case, spaces, `_` and `-` do not matter). */
  find(name: string): AgentDefinition | undefined;
}

/**
 * Finds a workspace's agents, asking about the project's files where the user can answer.
 * A file that cannot be read, or that the gate refuses, is named once and skipped.
 *
 * @param options The folder, its gate, and how trust is asked.
 * @returns The catalog.
 */
export async function openAgentCatalog(options: AgentCatalogOptions): Promise<AgentCatalog> {
  const where = {
    cwd: options.cwd,
    home: options.home ?? homeDir(),
    configDir: options.configDir ?? configDir(),
  };
  // Without any agent folder the readers (and their YAML and TOML parsers) are not loaded.
  if (!anyAgentFolder(where)) return catalogOf([], []);
  const { discoverAgents } = await import("../agents/discover_agents.ts");
  const found = await discoverAgents({
    ...where,
    trusted: async (files) => {
      const trust = await checkProjectTrust(files, {
        io: options.io,
        interactive: options.interactive,
        cwd: options.cwd,
        wording: AGENT_WORDING,
      });
      return {
        load: trust.load,
        untrusted: 'untrusted: run "harness agents trust" here after reading them',
      };
    },
  });
  const skipped = [...found.skipped];
  const readable = found.agents.filter((agent) => {
    const verdict = options.gate.check("read", agent.file);
    if (verdict.ok || verdict.refusal.reason === "not_granted") return true;
    skipped.push({ file: agent.file, reason: verdict.refusal.message });
    return false;
  });
  // The trust question (or the line saying untrusted files are skipped) named those already.
  for (const skip of skipped.filter((skip) => !skip.reason.startsWith("untrusted"))) {
    options.io.write(
      `warning: Skipping agent file "${terminalLine(skip.file)}": ${terminalLine(skip.reason)}\n`,
    );
  }
  return catalogOf(readable, skipped);
}

/** The catalog of the agents found, with the built-in one unless a file defines its name. */
function catalogOf(
  found: readonly AgentDefinition[],
  skipped: DiscoveredAgents["skipped"],
): AgentCatalog {
  const agents = found.some((agent) => agentKey(agent.name) === GENERAL_AGENT)
    ? [...found]
    : [...found, BUILTIN_GENERAL].sort((a, b) => compareNames(a.name, b.name));
  return {
    agents,
    skipped,
    find: (name) => agents.find((agent) => agentKey(agent.name) === agentKey(name)),
  };
}
