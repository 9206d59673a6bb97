// Finds the agent files a user already has, in the four formats' own folders: in the project
// (every folder from the repository root down to the workspace) .claude/agents, .gemini/agents,
// .opencode/agents (and opencode's older agent/), .codex/agents with .codex/config.toml's
// [agents.NAME]; in the user's home the same, plus harness's own ~/.config/harness/agents/.
// Project files load only when the caller's trust check lets them. A file that cannot be read
// is named once with the reason; everything else still loads. The nearest definition of a name
// wins: the project's over the user's.

import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import {
  type AgentFolder,
  type AgentFolderOptions,
  agentFolders,
  agentKey,
} from "./agent_folders.ts";
import {
  type AgentDefinition,
  type AgentParse,
  codexAgentEntries,
  type CodexAgentEntry,
  parseCodexAgent,
  parseMarkdownAgent,
} from "./agent_definition.ts";
import { compareNames } from "../platform/name_order.ts";

/** A file that was not loaded, and why. */
export interface SkippedAgent {
  file: string;
  reason: string;
}

/** What discovery found. */
export interface DiscoveredAgents {
  /** By name, the nearest first; sorted by name. */
  agents: AgentDefinition[];
  skipped: SkippedAgent[];
}

/** Where to look and what may load. */
export interface AgentDiscoveryOptions extends AgentFolderOptions {
  /**
   * Which project files may load (their trust): the rest are skipped with `untrusted` as the
   * reason. Left out, no project file loads.
   */
  trusted?: (files: readonly string[]) => Promise<{ load: readonly string[]; untrusted: string }>;
}

/** Bytes of one agent file read at most. */
export const MAX_AGENT_FILE_BYTES = 256 * 1024;

/** The agent files of a folder: its own and one level of subfolders, sorted. */
function folderFiles(folder: AgentFolder): string[] {
  const wanted = folder.format === "codex" ? /\.toml$/i : /\.md$/i;
  const files: string[] = [];
  const list = (dir: string, depth: number) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)].sort((a, b) => compareNames(a.name, b.name));
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory && depth === 0 && !entry.name.startsWith(".")) list(path, 1);
      else if (!entry.isDirectory && wanted.test(entry.name) && !/^readme\.md$/i.test(entry.name)) {
        files.push(path);
      }
    }
  };
  list(folder.dir, 0);
  return files;
}

/** The file's text, or why it cannot be read. */
function readAgentFile(file: string): { text: string } | { error: string } {
  try {
    const info = Deno.statSync(file);
    if (!info.isFile) return { error: "it is not a regular file" };
    if (info.size > MAX_AGENT_FILE_BYTES) {
      return { error: `it is over ${MAX_AGENT_FILE_BYTES / 1024} KiB` };
    }
    const bytes = Deno.readFileSync(file);
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch (error) {
    if (error instanceof TypeError) return { error: "it is not UTF-8 text" };
    return { error: `it cannot be read: ${(error as Error).message}` };
  }
}

/** The [agents.NAME] entries of a Codex folder's config.toml, by role file. */
function codexEntries(
  folder: AgentFolder,
  skipped: SkippedAgent[],
): { byFile: Map<string, CodexAgentEntry>; unlinked: CodexAgentEntry[] } {
  const config = join(folder.dir, "..", "config.toml");
  const byFile = new Map<string, CodexAgentEntry>();
  const unlinked: CodexAgentEntry[] = [];
  if (basename(folder.dir) !== "agents") return { byFile, unlinked };
  try {
    Deno.statSync(config);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      skipped.push({ file: config, reason: `it cannot be read: ${(error as Error).message}` });
    }
    return { byFile, unlinked };
  }
  const read = readAgentFile(config);
  if ("error" in read) {
    skipped.push({ file: config, reason: read.error });
    return { byFile, unlinked };
  }
  const entries = codexAgentEntries(read.text, config);
  if ("error" in entries) {
    skipped.push({ file: config, reason: entries.error });
    return { byFile, unlinked };
  }
  for (const entry of entries) {
    if (entry.configFile) byFile.set(resolve(entry.configFile), entry);
    else unlinked.push(entry);
  }
  return { byFile, unlinked };
}

/** Every candidate file of the folders, with the Codex entry that names it. */
function candidates(
  folders: readonly AgentFolder[],
  skipped: SkippedAgent[],
): { file: string; folder: AgentFolder; entry?: CodexAgentEntry }[] {
  const found: { file: string; folder: AgentFolder; entry?: CodexAgentEntry }[] = [];
  for (const folder of folders) {
    if (folder.format !== "codex") {
      for (const file of folderFiles(folder)) found.push({ file, folder });
      continue;
    }
    const { byFile, unlinked } = codexEntries(folder, skipped);
    for (const entry of unlinked) {
      skipped.push({
        file: entry.from,
        reason: `[agents.${entry.name}] has no "config_file": name its role file`,
      });
    }
    const files = new Set(folderFiles(folder));
    // A role file config.toml names may sit anywhere; those it names load with its entry.
    for (const [file, entry] of byFile) {
      files.delete(file);
      found.push({ file, folder, entry });
    }
    for (const file of files) found.push({ file, folder });
  }
  return found;
}

function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Why a project's agent file is not the project's: a link out of the folder it was found in
 * (`.claude/agents -> ~/notes`), or a Codex `config_file` naming a file elsewhere. Its content
 * would become a subagent's instructions from a file the repository does not hold.
 */
function outsideProject(file: string, folder: AgentFolder): string | undefined {
  if (folder.scope !== "project") return undefined;
  const root = dirname(dirname(folder.dir));
  const project = realPath(root) ?? resolve(root);
  const real = realPath(file) ?? resolve(file); // a missing file is said when read
  const inside = relative(project, real);
  if (inside !== "" && !inside.startsWith("..") && !isAbsolute(inside)) return undefined;
  return `it is outside the project ("${real}"): a project's agent files are read only from ` +
    "the project itself";
}

function parseFile(file: string, folder: AgentFolder, entry?: CodexAgentEntry): AgentParse {
  const read = readAgentFile(file);
  if ("error" in read) return { skip: read.error };
  const source = { file, format: folder.format, scope: folder.scope };
  return folder.format === "codex"
    ? parseCodexAgent(read.text, source, entry)
    : parseMarkdownAgent(read.text, source);
}

/**
 * Finds and reads the agent files of a workspace and the user.
 *
 * @param options The workspace, the user's folders and the project trust check.
 * @returns The agents (nearest definition of each name) and the files skipped, each once.
 *
 * @example
 * ```ts
 * import { discoverAgents } from "./discover_agents.ts";
 * const home = Deno.makeTempDirSync();
 * Deno.mkdirSync(`${home}/.claude/agents`, { recursive: true });
 * Deno.writeTextFileSync(`${home}/.claude/agents/fix.md`, "---\ndescription: Fixes bugs\n---\nFix it.");
 * const found = await discoverAgents({ cwd: Deno.makeTempDirSync(), home });
 * if (found.agents[0]?.name !== "fix" || found.agents[0].format !== "claude") throw new Error();
 * ```
 */
export async function discoverAgents(options: AgentDiscoveryOptions): Promise<DiscoveredAgents> {
  const skipped: SkippedAgent[] = [];
  const all = candidates(agentFolders(options), skipped).filter((candidate) => {
    const outside = outsideProject(candidate.file, candidate.folder);
    if (outside) skipped.push({ file: candidate.file, reason: outside });
    return !outside;
  });
  const project = all.filter((c) => c.folder.scope === "project").map((c) => c.file);
  let allowed = new Set<string>();
  let untrusted = "the project's agent files load only in a trusted folder";
  if (project.length > 0 && options.trusted) {
    const trust = await options.trusted(project);
    allowed = new Set(trust.load);
    untrusted = trust.untrusted;
  }
  const byKey = new Map<string, AgentDefinition>();
  const seen = new Set<string>();
  for (const { file, folder, entry } of all) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (folder.scope === "project" && !allowed.has(file)) {
      skipped.push({ file, reason: untrusted });
      continue;
    }
    const parsed = parseFile(file, folder, entry);
    if ("skip" in parsed) {
      skipped.push({ file, reason: parsed.skip });
      continue;
    }
    const key = agentKey(parsed.agent.name);
    const first = byKey.get(key);
    if (first) {
      skipped.push({ file, reason: `"${parsed.agent.name}" is defined first in ${first.file}` });
      continue;
    }
    byKey.set(key, parsed.agent);
  }
  const agents = [...byKey.values()].sort((a, b) => compareNames(a.name, b.name));
  return { agents, skipped };
}
