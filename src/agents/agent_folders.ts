// Where the agent files of a workspace and its user are, and the key an agent is found by: the four formats' own folders in the
// project (every folder from the repository root down to the workspace) and in the user's
// home, with harness's ~/.config/harness/agents/. Apart from the readers (discover_agents.ts),
// so a run can tell whether there is anything to read without loading their parsers.

import { join } from "../platform/paths.ts";
import { instructionFolders } from "../config/project_instructions.ts";
import { folderProbe } from "../platform/folder_probe.ts";
import type { AgentFormat } from "./agent_definition.ts";

/** A folder of agent files. */
export interface AgentFolder {
  dir: string;
  format: AgentFormat;
  scope: "project" | "user";
}

/** Where to look. */
export interface AgentFolderOptions {
  /** The workspace. */
  cwd: string;
  /** The user's home folder; left out: no user folders. */
  home?: string;
  /** harness's config folder (~/.config/harness). */
  configDir?: string;
  /** Codex's home (`$CODEX_HOME`, default ~/.codex). */
  codexHome?: string;
  /** opencode's config folder (default ~/.config/opencode). */
  opencodeDir?: string;
}

const MARKDOWN_FORMATS: [string, AgentFormat][] = [
  [".claude", "claude"],
  [".gemini", "gemini"],
  [".opencode", "opencode"],
];

/**
 * The agent folders of a workspace, in precedence order: the project's (nearest folder
 * first), then the user's (harness's own first).
 *
 * @example
 * ```ts
 * import { agentFolders } from "./agent_folders.ts";
 * const folders = agentFolders({ cwd: "/nowhere/w", home: "/h", configDir: "/h/.config/harness" });
 * if (folders[0]?.dir !== "/nowhere/w/.claude/agents" || folders.at(-1)?.format !== "codex") throw new Error();
 * ```
 */
export function agentFolders(options: AgentFolderOptions): AgentFolder[] {
  const folders: AgentFolder[] = [];
  const add = (base: string, format: AgentFormat, scope: AgentFolder["scope"]) => {
    folders.push({ dir: join(base, "agents"), format, scope });
    folders.push({ dir: join(base, "agent"), format, scope });
  };
  for (const root of instructionFolders(options.cwd).reverse()) {
    for (const [dot, format] of MARKDOWN_FORMATS) add(join(root, dot), format, "project");
    add(join(root, ".codex"), "codex", "project");
  }
  const home = options.home;
  if (options.configDir) add(options.configDir, "harness", "user");
  if (home !== undefined) {
    add(join(home, ".claude"), "claude", "user");
    add(join(home, ".gemini"), "gemini", "user");
    add(options.opencodeDir ?? join(home, ".config", "opencode"), "opencode", "user");
    add(options.codexHome ?? join(home, ".codex"), "codex", "user");
  }
  return folders;
}

/**
 * Whether any agent folder exists (one stat each): without one, nothing is read or parsed.
 *
 * @example
 * ```ts
 * import { anyAgentFolder } from "./agent_folders.ts";
 * if (anyAgentFolder({ cwd: Deno.makeTempDirSync() })) throw new Error();
 * ```
 */
export function anyAgentFolder(options: AgentFolderOptions): boolean {
  const isFolder = folderProbe();
  return agentFolders(options).some((folder) => isFolder(folder.dir));
}

/**
 * The key agents are looked up by: case, spaces, underscores and hyphens do not matter, so
 * `Code Reviewer`, `code_reviewer` and `code-reviewer` are one agent.
 *
 * @example
 * ```ts
 * import { agentKey } from "./agent_folders.ts";
 * if (agentKey("Code Reviewer") !== agentKey("code_reviewer")) throw new Error();
 * ```
 */
export function agentKey(name: string): string {
  return name.trim().toLowerCase().replace(/[\s_-]+/g, "-");
}
