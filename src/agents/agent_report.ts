// The list `harness agents` prints: each agent with its format and where it came from, then the
// files skipped with the reason.

import { relative } from "node:path";
import type { DiscoveredAgents } from "./discover_agents.ts";

function shown(path: string, places: { cwd: string; home?: string }): string {
  const inCwd = relative(places.cwd, path);
  if (!inCwd.startsWith("..") && !inCwd.startsWith("/")) return inCwd;
  const inHome = places.home ? relative(places.home, path) : "..";
  return !inHome.startsWith("..") && !inHome.startsWith("/") ? `~/${inHome}` : path;
}

function firstLine(text: string): string {
  const line = text.replace(/<example>[^]*?<\/example>/gi, " ").replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

/**
 * The agents and the skipped files, one line each.
 *
 * @example
 * ```ts
 * import { formatAgentList } from "./agent_report.ts";
 * const text = formatAgentList({ agents: [], skipped: [] }, { cwd: "/w" });
 * if (!text.startsWith("No agent files found")) throw new Error(text);
 * ```
 */
export function formatAgentList(
  found: DiscoveredAgents,
  places: { cwd: string; home?: string },
): string {
  const lines: string[] = [];
  if (found.agents.length === 0) {
    lines.push(
      "No agent files found: harness reads .claude/agents/, .gemini/agents/, .opencode/agents/, " +
        ".codex/agents/ and ~/.config/harness/agents/",
    );
  } else {
    lines.push(`Agents (${found.agents.length}):`);
    const width = Math.min(28, Math.max(...found.agents.map((agent) => agent.name.length)));
    for (const agent of found.agents) {
      const tools = agent.tools ? `  tools: ${agent.tools.join(", ")}` : "";
      lines.push(
        `  ${agent.name.padEnd(width)}  ${agent.format.padEnd(8)}  ${agent.scope.padEnd(7)}  ${
          shown(agent.file, places)
        }  ${firstLine(agent.description)}${tools}`,
      );
      for (const note of agent.notes) lines.push(`    note: ${note}`);
    }
  }
  if (found.skipped.length > 0) {
    lines.push(`Skipped (${found.skipped.length}):`);
    for (const skip of found.skipped) lines.push(`  ${shown(skip.file, places)}: ${skip.reason}`);
  }
  return lines.join("\n");
}
