// One agent file as harness reads it, in the four formats users already have: Markdown with
// front matter (Claude Code's .claude/agents, Gemini CLI's .gemini/agents, opencode's
// .opencode/agents, harness's own) and Codex's TOML (developer_instructions, with the
// description possibly in config.toml's [agents.NAME]). Unknown fields are kept, never an error.
// Pure: discover_agents.ts reads the files.

import { parse as parseToml } from "smol-toml";
import { fieldText, listField, readFrontMatter } from "../config/front_matter.ts";

/** Where an agent file's format comes from. */
export type AgentFormat = "claude" | "gemini" | "opencode" | "codex" | "harness";

/** An agent a `task` call can start: its instructions, tools and model. */
export interface AgentDefinition {
  /** As written in the file (or its file name); look it up with {@linkcode agentKey}. */
  name: string;
  description: string;
  /**
   * The tools it may use as written (`Read`, `Bash(git:*)`, `mcp__server__tool`); undefined
   * when the file names none (every tool its parent has).
   */
  tools?: string[];
  /** Tools it may not use (Claude Code's disallowedTools, opencode's `tool: false`). */
  disallowedTools?: string[];
  /** The model the file asks for (`inherit`, `sonnet`, `gpt-5`...), as written. */
  model?: string;
  /** The body (Markdown) or developer_instructions (Codex): the child's system prompt. */
  instructions: string;
  /** The file it came from. */
  file: string;
  format: AgentFormat;
  scope: "project" | "user";
  /** Every field as read, unknown ones too (color, permissionMode, mode, sandbox_mode...). */
  fields: Record<string, unknown>;
  /** Things worth saying about the file that did not stop it loading. */
  notes: string[];
}

/** What parsing one file gave: an agent, or why the file is skipped. */
export type AgentParse = { agent: AgentDefinition } | { skip: string };

/** Where a file is and what it is. */
export interface AgentSource {
  file: string;
  format: AgentFormat;
  scope: "project" | "user";
}

function baseName(file: string): string {
  return (file.split(/[\\/]/).pop() ?? file).replace(/\.(md|markdown|toml)$/i, "");
}

/** The first line of a body that says something: a heading's text or a sentence. */
function firstLine(body: string): string | undefined {
  const line = body.split("\n").map((l) => l.replace(/^#+\s*/, "").trim()).find(Boolean);
  return line === undefined ? undefined : line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/** Why a name cannot be used, or undefined. */
function nameProblem(name: string): string | undefined {
  if (name.trim() === "") return "it has no name";
  if (CONTROL.test(name)) return `its name ${JSON.stringify(name)} has control characters`;
  if (name.length > 64) return `its name "${name.slice(0, 20)}..." is over 64 characters`;
  return undefined;
}

/**
 * The tools of an opencode `tools:` map (`{ "*": false, "github-pr-search": true }`): with
 * `"*": false` only the true ones; otherwise all but the false ones.
 */
function toolMap(map: Record<string, unknown>): Pick<AgentDefinition, "tools" | "disallowedTools"> {
  const on = Object.keys(map).filter((key) => key !== "*" && map[key] === true);
  const off = Object.keys(map).filter((key) => key !== "*" && map[key] === false);
  if (map["*"] === false) return { tools: on };
  return off.length > 0 ? { disallowedTools: off } : {};
}

function toolsOf(
  fields: Record<string, unknown>,
): Pick<AgentDefinition, "tools" | "disallowedTools"> {
  const value = fields.tools ?? fields.Tools;
  const out: Pick<AgentDefinition, "tools" | "disallowedTools"> = {};
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    Object.assign(out, toolMap(value as Record<string, unknown>));
  } else {
    const tools = listField(value);
    if (tools !== undefined && !(tools.length === 1 && tools[0] === "*")) out.tools = tools;
  }
  const denied = listField(fields.disallowedTools ?? fields["disallowed-tools"]);
  if (denied !== undefined && denied.length > 0) {
    out.disallowedTools = [...(out.disallowedTools ?? []), ...denied];
  }
  return out;
}

/**
 * Reads a Markdown agent file: YAML front matter (read leniently, see front_matter.ts) and the
 * body as its instructions. Without a name the file's name is used; without a description the
 * body's first line is, with a note. Skipped only when neither gives a name or a description.
 *
 * @param text The file's text.
 * @param source Where it is and its format.
 * @returns The agent, or why it is skipped.
 *
 * @example
 * ```ts
 * import { parseMarkdownAgent } from "./agent_definition.ts";
 * const text = "---\nname: reviewer\ndescription: Reviews: diffs\ntools: Read, Grep\ncolor: red\n---\nReview.";
 * const parsed = parseMarkdownAgent(text, { file: "/p/.claude/agents/r.md", format: "claude", scope: "project" });
 * if (!("agent" in parsed) || parsed.agent.tools?.join() !== "Read,Grep") throw new Error();
 * if (parsed.agent.fields.color !== "red" || parsed.agent.instructions !== "Review.") throw new Error();
 * ```
 */
export function parseMarkdownAgent(text: string, source: AgentSource): AgentParse {
  const front = readFrontMatter(text);
  const notes: string[] = [];
  const name = fieldText(front, "name") ?? baseName(source.file);
  const problem = nameProblem(name);
  if (problem) return { skip: problem };
  let description = fieldText(front, "description");
  if (description === undefined) {
    description = firstLine(front.body);
    if (description === undefined) {
      return {
        skip: front.reading === "none"
          ? "it is empty"
          : 'it has no description: add a "description:" line to its front matter',
      };
    }
    notes.push("no description in its front matter: its first line stands for it");
  }
  if (front.reading === "quoted" || front.reading === "lines") {
    notes.push(`its front matter is not valid YAML (${front.yamlError}): read line by line`);
  }
  const model = fieldText(front, "model");
  return {
    agent: {
      name,
      description,
      ...toolsOf(front.fields),
      ...(model ? { model } : {}),
      instructions: front.body,
      ...source,
      fields: front.fields,
      notes,
    },
  };
}

/** A Codex `[agents.NAME]` table of config.toml: the description and the role file. */
export interface CodexAgentEntry {
  name: string;
  description?: string;
  /** The role file, resolved against the config file's folder. */
  configFile?: string;
  /** The config.toml it came from. */
  from: string;
}

/**
 * Reads a Codex agent TOML file (`name`, `description`, `developer_instructions`, `model`,
 * ...). Its description may come from config.toml's `[agents.NAME]` instead (`entry`); a role
 * file without instructions (only `model`, `sandbox_mode`) has its description for them.
 *
 * @param text The TOML text.
 * @param source Where it is (format "codex").
 * @param entry The config.toml entry that names this file, if any.
 * @returns The agent, or why it is skipped.
 *
 * @example
 * ```ts
 * import { parseCodexAgent } from "./agent_definition.ts";
 * const source = { file: "/p/.codex/agents/r.toml", format: "codex" as const, scope: "project" as const };
 * const parsed = parseCodexAgent('developer_instructions = "Review."', source, { name: "reviewer", description: "Reviews", from: "/p/.codex/config.toml" });
 * if (!("agent" in parsed) || parsed.agent.name !== "reviewer" || parsed.agent.description !== "Reviews") throw new Error();
 * ```
 */
export function parseCodexAgent(
  text: string,
  source: AgentSource,
  entry?: CodexAgentEntry,
): AgentParse {
  let table: Record<string, unknown>;
  try {
    table = parseToml(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
  } catch (error) {
    return { skip: `its TOML cannot be read: ${String((error as Error).message).split("\n")[0]}` };
  }
  const text_ = (key: string) => {
    const value = table[key];
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  };
  const name = entry?.name ?? text_("name") ?? baseName(source.file);
  const problem = nameProblem(name);
  if (problem) return { skip: problem };
  const description = entry?.description?.trim() || text_("description");
  if (description === undefined) {
    return {
      skip: `it has no description: add "description = ..." to it or to [agents.${name}] ` +
        "in .codex/config.toml",
    };
  }
  const notes = entry && text_("name") && text_("name") !== name
    ? [`config.toml names it "${name}", the file "${text_("name")}": "${name}" is used`]
    : [];
  // A role file may only tune the model (Codex's built-in roles bring the behaviour).
  let instructions = text_("developer_instructions") ?? text_("instructions");
  if (instructions === undefined) {
    instructions = description;
    notes.push('no "developer_instructions": its description stands for them');
  }
  const model = text_("model");
  return {
    agent: {
      name,
      description,
      ...(model ? { model } : {}),
      instructions,
      ...source,
      fields: table,
      notes,
    },
  };
}

/**
 * The `[agents.NAME]` tables of a Codex config.toml (other values under `[agents]`, such as
 * `max_threads`, are settings, not agents).
 *
 * @param text The config.toml text.
 * @param file Its path: `config_file` is relative to its folder.
 * @returns The entries, or why the file cannot be read.
 *
 * @example
 * ```ts
 * import { codexAgentEntries } from "./agent_definition.ts";
 * const found = codexAgentEntries('[agents]\nmax_threads = 4\n[agents.reviewer]\ndescription = "R"\nconfig_file = "./agents/r.toml"\n', "/p/.codex/config.toml");
 * if (!Array.isArray(found) || found[0]?.configFile !== "/p/.codex/agents/r.toml") throw new Error();
 * ```
 */
export function codexAgentEntries(
  text: string,
  file: string,
): CodexAgentEntry[] | { error: string } {
  let config: Record<string, unknown>;
  try {
    config = parseToml(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
  } catch (error) {
    return { error: `its TOML cannot be read: ${String((error as Error).message).split("\n")[0]}` };
  }
  const agents = config.agents;
  if (agents === null || typeof agents !== "object" || Array.isArray(agents)) return [];
  const folder = file.replace(/[\\/][^\\/]*$/, "");
  const entries: CodexAgentEntry[] = [];
  for (const [name, value] of Object.entries(agents as Record<string, unknown>)) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) continue;
    const table = value as Record<string, unknown>;
    const relative = typeof table.config_file === "string" ? table.config_file : undefined;
    entries.push({
      name,
      ...(typeof table.description === "string" ? { description: table.description } : {}),
      ...(relative
        ? {
          configFile: /^(\/|[A-Za-z]:[\\/])/.test(relative)
            ? relative
            : `${folder}/${relative.replace(/^\.\//, "")}`,
        }
        : {}),
      from: file,
    });
  }
  return entries;
}
