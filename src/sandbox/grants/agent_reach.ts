// What an agent file asks a child to reach, in harness's terms: the tool names each format uses
// (Claude Code's `Read`/`Bash`, Gemini CLI's `run_shell_command`, opencode's `bash`, MCP's
// `mcp__server__tool`) mapped to harness's, the tools it forbids taken out, and the paths and
// approval mode it asks for. A name with no mapping is kept as written, so childScope leaves it
// out by name and says so.

import type { AgentDefinition } from "../../agents/agent_definition.ts";
import type { AgentReach } from "./child_scope.ts";

/** The fields of an agent file this reads. */
export type AgentToolFields = Pick<
  AgentDefinition,
  "name" | "tools" | "disallowedTools" | "fields"
>;

/** Other agents' tool names (lower case) and harness's tools that do the same. */
const TOOL_ALIASES: Readonly<Record<string, readonly string[]>> = {
  // Claude Code and opencode
  read: ["read_file"],
  write: ["write_file"],
  edit: ["edit_file"],
  multiedit: ["edit_file"],
  bash: ["run_command"],
  grep: ["grep_search"],
  glob: ["glob"],
  ls: ["ls"],
  list: ["ls"],
  webfetch: ["download_url"],
  websearch: ["web_search"],
  task: ["task"],
  todowrite: ["add_task", "update_task"],
  todoread: ["list_tasks"],
  // Gemini CLI
  read_file: ["read_file"],
  read_many_files: ["read_file"],
  write_file: ["write_file"],
  replace: ["edit_file"],
  run_shell_command: ["run_command"],
  search_file_content: ["grep_search"],
  list_directory: ["ls"],
  web_fetch: ["download_url"],
  google_web_search: ["web_search"],
  write_todos: ["add_task", "update_task", "list_tasks"],
  // Codex
  shell: ["run_command"],
  apply_patch: ["edit_file", "write_file"],
};

/** Approval modes in agent files that ask to run without asking (Claude Code, Codex). */
const AUTO_MODES = new Set(["bypasspermissions", "acceptedits", "never", "full-auto", "yolo"]);

/** `Bash(git:*)` -> `Bash`, with the pattern. */
function splitPattern(name: string): { base: string; pattern?: string } {
  const match = /^([^()]+)\((.*)\)$/.exec(name.trim());
  return match ? { base: match[1]!.trim(), pattern: match[2]! } : { base: name.trim() };
}

/** A name as MCP tool names are compared: case and punctuation do not matter. */
function mcpKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "_");
}

/**
 * Harness's tools for `mcp__server__tool` (that tool) or `mcp__server` (all of the server's),
 * compared loosely because harness reduces MCP names to safe characters (`SERVER__tool`).
 */
function mcpNames(written: string, offered: readonly string[]): string[] | undefined {
  const match = /^mcp__(.+?)(?:__(.+))?$/.exec(written);
  if (!match) return undefined;
  const server = mcpKey(match[1]!);
  const tool = match[2] === undefined ? undefined : mcpKey(match[2]);
  const found = offered.filter((name) => {
    const [prefix, rest] = name.split(/__(.*)/s);
    return rest !== undefined && mcpKey(prefix!) === server &&
      (tool === undefined || mcpKey(rest) === tool);
  });
  return found.length > 0 ? found : undefined;
}

/** Harness's names for one written name; the name itself when none is known. */
function harnessNames(written: string, offered: readonly string[]): string[] {
  if (offered.includes(written)) return [written];
  return mcpNames(written, offered) ?? [...(TOOL_ALIASES[written.toLowerCase()] ?? [written])];
}

function pathList(value: unknown): string[] | undefined {
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
  return undefined;
}

/**
 * The reach an agent file asks for, with notes on what harness reads differently.
 *
 * @param agent The agent file's tools and fields.
 * @param offered Every tool harness has here (MCP tools included), so a harness name is kept
 *   as it is and MCP names find their tools.
 * @returns The reach for childScope and one line per thing worth telling the user.
 *
 * @example
 * ```ts
 * import { agentReach } from "./agent_reach.ts";
 * const { reach } = agentReach(
 *   { name: "r", tools: ["Read", "Grep", "mcp__gh__search"], fields: {} },
 *   ["read_file", "grep_search", "gh__search"],
 * );
 * if (reach.tools?.join() !== "read_file,grep_search,gh__search") throw new Error(reach.tools?.join());
 * ```
 */
export function agentReach(
  agent: AgentToolFields,
  offered: readonly string[],
): { reach: AgentReach; notes: string[] } {
  const notes: string[] = [];
  const map = (names: readonly string[]) =>
    names.flatMap((written) => {
      const { base, pattern } = splitPattern(written);
      const mapped = harnessNames(base, offered);
      if (pattern !== undefined && pattern !== "" && pattern !== "*") {
        notes.push(
          `"${written}" is read as ${mapped.join(", ")}: harness does not narrow a tool by a ` +
            "pattern; the conversation's policy still decides each call",
        );
      }
      return mapped;
    });
  const denied = new Set(map(agent.disallowedTools ?? []));
  const asked = agent.tools === undefined ? undefined : [...new Set(map(agent.tools))];
  const tools = asked === undefined
    ? denied.size > 0 ? offered.filter((name) => !denied.has(name)) : undefined
    : asked.filter((name) => !denied.has(name));
  const mode = agent.fields.permissionMode ?? agent.fields.approval_policy;
  const read = pathList(agent.fields.read);
  const write = pathList(agent.fields.write);
  return {
    reach: {
      name: agent.name,
      ...(tools === undefined ? {} : { tools }),
      ...(read ? { read } : {}),
      ...(write ? { write } : {}),
      ...(typeof mode === "string" ? { autoApprove: AUTO_MODES.has(mode.toLowerCase()) } : {}),
    },
    notes,
  };
}
