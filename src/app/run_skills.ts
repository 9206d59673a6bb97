// The skills of a workspace (src/skills/): found once when the workspace opens, the project's
// only once the user trusts them (asked as project plugins are), their catalog for the system
// prompt fixed at the first session's start, and the skill tools. A skill installed while the
// run goes on is announced with the next message, never by changing the prompt.

import type { FileGate } from "../gate/file_gate.ts";
import { configDir, homeDir } from "../config/folders.ts";
import type { Message } from "../messages.ts";
import { checkProjectTrust, type TrustIO } from "../permissions/project_trust.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { grantCovers } from "../sandbox/grants/permission_value.ts";
import type { TokenCounter } from "../providers/token_counter.ts";
import { toToolSchema } from "../tools/tool_entry.ts";
import { expandArguments } from "../turn_input/custom_commands.ts";
import {
  type DiscoveredSkills,
  discoverSkills,
  type SkillDefinition,
  type SkillDiscoveryOptions,
} from "../skills/skill_files.ts";
import { skillKey } from "../skills/skill_roots.ts";
import { oneLine, skillBudget, type SkillCatalog, skillCatalog } from "../skills/skill_catalog.ts";
import { FIND_SKILL_TOOL_INFO, SKILL_TOOL_INFO, SkillTools } from "../skills/skill_tools.ts";

/** How the project's SKILL.md files are named in trust questions. */
const SKILL_WORDING = {
  noun: "project skill",
  why: "Project skills are instructions this repository wrote for the model",
  question: "Trust and offer them?",
  withoutTrust: "Not offering them",
  skipping: "Skipping",
};

/** What opening the skills takes. */
export interface RunSkillsOptions {
  cwd: string;
  grants: Grants;
  /**
   * The workspace's file gate: a skill file it refuses (--deny-read, harness's data folder, a
   * moved entry) is neither listed nor read. Skills load whatever the read grant, as plugins do.
   */
  gate?: FileGate;
  io: TrustIO;
  /** The REPL: untrusted project skills are asked about; elsewhere skipped with a line. */
  interactive: boolean;
  /** The conversation the tools serve now. */
  messages: () => readonly Message[];
  /** The user's folders (tests); default from the environment. */
  home?: string;
  configDir?: string;
}

/** The skills of a workspace. */
export interface RunSkills {
  tools: SkillTools;
  /** What discovery found at start (skipped files included), for /skills. */
  found: DiscoveredSkills;
  /**
   * The system prompt's section: computed at the first session's start from the window and the
   * token count, then the same for every session of the workspace.
   */
  catalog(window: number | undefined, counter: TokenCounter): SkillCatalog;
  /** Skills installed since the start, each returned once, and added to the tools. */
  added(): Promise<SkillDefinition[]>;
  /** The skills offered as slash commands, under names `taken` leaves (skillCommands). */
  commands(taken: ReadonlySet<string>): SkillCommand[];
  /** The text `/skill-name words` sends, or undefined for another message (skillCommandCall). */
  commandCall(text: string): string | undefined;
}

/** A skill as a slash command: its name, one line, and its argument-hint. */
export interface SkillCommand {
  name: string;
  description: string;
  hint?: string;
}

/** Whether the read grant covers a path (a project's skills folder may link only there). */
function readableBy(grants: Grants): (path: string) => boolean {
  return (path) =>
    grantCovers("read", grants.allow.read, path) && !grantCovers("read", grants.deny.read, path);
}

/** Why the gate refuses a skill file (but a read grant, which skills do not need). */
function gateRefusal(gate: FileGate | undefined): (path: string) => string | undefined {
  return (path) => {
    const verdict = gate?.check("read", path);
    if (!verdict || verdict.ok || verdict.refusal.reason === "not_granted") return undefined;
    return verdict.refusal.message;
  };
}

/** The skills found, without those whose SKILL.md the gate refuses (named as skipped). */
function withoutRefused(
  found: DiscoveredSkills,
  refused: (path: string) => string | undefined,
): DiscoveredSkills {
  const skipped = [...found.skipped];
  const skills = found.skills.filter((skill) => {
    const why = refused(skill.file);
    if (why !== undefined) skipped.push({ file: skill.file, reason: why });
    return why === undefined;
  });
  return { ...found, skills, skipped };
}

/**
 * Finds a workspace's skills and opens their tools.
 *
 * @param options The workspace, grants, how trust is asked, the conversation's messages.
 * @returns The skills, their tools, the catalog and the check for skills added later.
 */
export async function openRunSkills(options: RunSkillsOptions): Promise<RunSkills> {
  const readable = readableBy(options.grants);
  const discovery = (interactive: boolean, io: TrustIO): SkillDiscoveryOptions => ({
    cwd: options.cwd,
    home: options.home ?? homeDir(),
    configDir: options.configDir ?? configDir(),
    readable,
    trusted: async (files) => {
      const trust = await checkProjectTrust(files, {
        io,
        interactive,
        cwd: options.cwd,
        wording: SKILL_WORDING,
      });
      return {
        load: trust.load,
        untrusted: "untrusted: start harness in this folder without -p and answer the trust prompt",
      };
    },
  });
  const refused = gateRefusal(options.gate);
  const found = withoutRefused(
    await discoverSkills(discovery(options.interactive, options.io)),
    refused,
  );
  let catalog: SkillCatalog | undefined;
  let searchable = false;
  const tools = new SkillTools(found.skills, {
    get searchable() {
      return searchable;
    },
    messages: options.messages,
    refused,
    // A loaded skill's folder becomes readable for the session through the one gate.
    ...(options.gate ? { grantRead: options.gate.grantRead.bind(options.gate) } : {}),
  });
  const known = new Set(found.skills.map((skill) => skillKey(skill.name)));
  // Later checks say nothing about untrusted files: the start already did.
  const quiet: TrustIO = { readLine: () => Promise.resolve(null), write: () => {} };
  return {
    tools,
    found,
    catalog(window, counter) {
      if (catalog) return catalog;
      // A tenth kept back: harness's token count is an estimate of the server's.
      const budget = Math.floor(skillBudget(window) * 0.9);
      const cost = (infos: typeof SKILL_TOOL_INFO[]) => counter.schemas(infos.map(toToolSchema));
      const tokens = (text: string) => counter.text(text);
      const full = skillCatalog(found.skills, {
        budget: budget - cost([SKILL_TOOL_INFO]),
        tokens,
      });
      catalog = full.searchable
        ? skillCatalog(found.skills, {
          budget: budget - cost([SKILL_TOOL_INFO, FIND_SKILL_TOOL_INFO]),
          tokens,
        })
        : full;
      searchable = catalog.searchable;
      return catalog;
    },
    async added() {
      // Through the gate as at the start: a skill made since in a --deny-read folder stays out.
      const now = withoutRefused(await discoverSkills(discovery(false, quiet)), refused);
      const fresh = now.skills.filter((skill) => !known.has(skillKey(skill.name)));
      for (const skill of fresh) {
        known.add(skillKey(skill.name));
        tools.add(skill);
      }
      return fresh;
    },
    commands: (taken) => skillCommands(tools, taken),
    commandCall: (text) => skillCommandCall(text, tools),
  };
}

/** Names a skill may be offered as a slash command under (what an editor lets you type). */
const COMMAND_NAME = /^[a-z0-9][a-z0-9_.-]*$/i;

/**
 * The skills an editor can offer as slash commands: those with a name that can be typed and
 * is not taken by another command.
 *
 * @param tools The workspace's skill tools.
 * @param taken The command names already offered.
 */
export function skillCommands(tools: SkillTools, taken: ReadonlySet<string>): SkillCommand[] {
  return tools.skills().filter((skill) => COMMAND_NAME.test(skill.name) && !taken.has(skill.name))
    .map((skill) => ({
      name: skill.name,
      description: oneLine(skill.description),
      ...(skill.argumentHint ? { hint: skill.argumentHint } : {}),
    }));
}

/**
 * The message a `/skill-name words` prompt sends: the skill's text (as `skill` would return it,
 * so it is not loaded twice) with the words put into its body as a Markdown command's are
 * (`$ARGUMENTS`, `$1`..`$9`; a body that uses neither gets `ARGUMENTS: words`); undefined
 * when the prompt names no skill.
 *
 * @example
 * ```ts
 * import { skillCommandCall } from "./run_skills.ts";
 * import { SkillTools } from "../skills/skill_tools.ts";
 * const tools = new SkillTools([], { searchable: false, messages: () => [] });
 * if (skillCommandCall("/nothing here", tools) !== undefined) throw new Error();
 * ```
 */
export function skillCommandCall(text: string, tools: SkillTools): string | undefined {
  const match = /^\s*\/([^\s/]+)(?:\s+([^]*))?$/.exec(text);
  const skill = match ? tools.get(match[1]!) : undefined;
  if (!skill || skill.name !== match![1]) return undefined;
  const words = match![2]?.trim() ?? "";
  const sent = tools.text(skill, expandArguments(skill.body, words));
  return `${sent}${words ? "" : `\n\nUse the skill "${skill.name}".`}`;
}
