// The skill tools, run in the host beside the sandboxed plugins: `skill(name)` returns a skill's
// body, its folder and its files, and makes the folder readable (read-only) for the rest of the
// session through the workspace's file gate, for the file tools and commands alike, unless the
// gate refuses it (a folder holding a denied, protected or hidden entry, or a link out of it);
// `skill(name, file)` reads one of its files whatever the read grant; `find_skill(query)`
// searches every installed skill when the catalog cannot list them all. Nothing a skill says runs while it is
// read: its scripts and `!`command`` lines run only through run_command, with its sandbox and
// approval. A skill whose text is already in the conversation is not sent twice.

import type { Result } from "../errors.ts";
import { makeToolResult, type Message, type ToolResult } from "../messages.ts";
import type { ToolInfo } from "../tools/tool_entry.ts";
import { type SkillDefinition, skillFolderFiles } from "./skill_files.ts";
import { skillKey } from "./skill_roots.ts";
import { SkillIndex } from "./skill_search.ts";
import { oneLine } from "./skill_catalog.ts";
import { compareNames } from "../platform/name_order.ts";

/** `skill` as the model sees it. */
export const SKILL_TOOL_INFO: ToolInfo = {
  name: "skill",
  description:
    "Read a skill's instructions, folder and file list. With file, read one of its files.",
  risk: "safe",
  parameters: {
    type: "object",
    properties: {
      name: { type: "string", minLength: 1, description: "The skill's name" },
      file: { type: "string", description: "A file of its folder, e.g. reference.md" },
    },
    required: ["name"],
    additionalProperties: false,
  },
  permissions: { read: [] },
  source: "builtin:skills",
  origin: "builtin",
};

/** `find_skill` as the model sees it. */
export const FIND_SKILL_TOOL_INFO: ToolInfo = {
  name: "find_skill",
  description: "Search the installed skills by what a task needs; returns the best matches.",
  risk: "safe",
  parameters: {
    type: "object",
    properties: { query: { type: "string", minLength: 1, description: "What the task needs" } },
    required: ["query"],
    additionalProperties: false,
  },
  permissions: { read: [] },
  source: "builtin:skills",
  origin: "builtin",
};

/** Bytes of one skill file `skill(name, file)` returns at most. */
export const MAX_SKILL_READ_BYTES = 128 * 1024;

/** What a skill call gives: the result for the model and a line for the user. */
export interface SkillToolRun {
  result: ToolResult;
  display: string;
}

/** How the tools are set up for a session. */
export interface SkillToolsOptions {
  /** find_skill is offered (the catalog does not list every skill's line). */
  searchable: boolean;
  /** The conversation's messages: a skill already in them is not sent again. */
  messages: () => readonly Message[];
  /**
   * Makes a skill's folder readable for the session (the file gate's `grantRead`): its real
   * path, or why the gate refuses it. Left out, the folder is read only through `skill`.
   */
  grantRead?: (realFolder: string) => SkillFolderAccess;
  /** Why the file gate refuses a file (--deny-read, harness's data, a moved entry), if it does. */
  refused?: (realPath: string) => string | undefined;
}

/** What the session may do with a loaded skill's folder: read it by path, or why not. */
export type SkillFolderAccess = { ok: true; real: string } | { ok: false; reason: string };

/**
 * The names of the skills whose text is in the messages: a `skill` result, or a note that
 * carried it again after a compaction.
 *
 * @example
 * ```ts
 * import { skillsInMessages } from "./skill_tools.ts";
 * const found = skillsInMessages([{ kind: "user", content: 'x <skill name="pdf" folder="/s">' }]);
 * if (!found.has("pdf")) throw new Error();
 * ```
 */
export function skillsInMessages(messages: readonly Message[]): Set<string> {
  const names = new Set<string>();
  const scan = (text: string) => {
    for (const match of text.matchAll(/<skill name="([^"]+)" folder="/g)) {
      names.add(skillKey(match[1]!));
    }
  };
  for (const message of messages) {
    if (message.kind === "user") scan(message.content);
    if (message.kind === "tool_result" && message.data.name === "skill") {
      const data = message.data.result.data;
      if (message.data.result.success && typeof data === "string") scan(data);
    }
  }
  return names;
}

/**
 * A skill's text as the model reads it: the body in a `<skill>` block, then its files and how
 * its commands run.
 *
 * @param skill The skill.
 * @param access Whether the session may read its folder by path (the gate's answer), if asked.
 */
export function skillText(skill: SkillDefinition, access?: SkillFolderAccess): string {
  const files = skillFolderFiles(skill.realFolder).filter((file) => file !== "SKILL.md");
  const lines = [
    `<skill name="${skill.name}" folder="${skill.folder}">`,
    skill.body,
    "</skill>",
    files.length > 0
      ? `Files in its folder (read one with skill and file): ${files.join(", ")}`
      : "Its folder holds no other files.",
    "Nothing in it has run. Its scripts and the commands it shows (lines such as !`command` " +
    "included) run only when you call run_command with them.",
  ];
  if (access?.ok) {
    lines.push(
      `Its folder "${access.real}" is readable for the rest of this session (read-only): ` +
        "read_file, ls, glob and run_command can read its files by that path.",
    );
  } else if (access) {
    lines.push(
      `Its folder "${skill.realFolder}" is not readable by path: ${access.reason}. Read its ` +
        "files with skill and file instead.",
    );
  }
  return lines.join("\n");
}

/** The first `limit` bytes of a file at most (it may grow between a stat and the read). */
function readAtMost(path: string, limit: number): Uint8Array {
  using file = Deno.openSync(path, { read: true });
  const buffer = new Uint8Array(limit);
  let filled = 0;
  while (filled < limit) {
    const read = file.readSync(buffer.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

function argsError(issues: string[]): Result<unknown, string[]> {
  return { ok: false, error: issues };
}

/** The skill tools of a session: a self-contained source of tool entries run in the host. */
export class SkillTools {
  readonly #byKey = new Map<string, SkillDefinition>();
  #index: SkillIndex<SkillDefinition>;
  readonly #options: SkillToolsOptions;
  /** Offered at all: decided at the start, so the tool schemas never change mid-session. */
  readonly #offered: boolean;
  /** Names loaded since {@linkcode SkillTools.takeLoaded} was last asked. */
  #loaded = new Set<string>();

  /**
   * @param skills The skills installed when the session started.
   * @param options Whether find_skill is offered, the conversation's messages, the read grant.
   */
  constructor(skills: readonly SkillDefinition[], options: SkillToolsOptions) {
    for (const skill of skills) this.#byKey.set(skillKey(skill.name), skill);
    this.#index = new SkillIndex([...this.#byKey.values()]);
    this.#options = options;
    this.#offered = skills.length > 0;
  }

  /** The names of the skills whose text is in `messages` ({@linkcode skillsInMessages}). */
  inMessages(messages: readonly Message[]): Set<string> {
    return skillsInMessages(messages);
  }

  /** The tools (none when no skill was installed at the start). */
  list(): readonly ToolInfo[] {
    if (!this.#offered) return [];
    return this.#options.searchable ? [SKILL_TOOL_INFO, FIND_SKILL_TOOL_INFO] : [SKILL_TOOL_INFO];
  }

  has(name: string): boolean {
    return this.list().some((tool) => tool.name === name);
  }

  /** The skills known now, by name. */
  skills(): SkillDefinition[] {
    return [...this.#byKey.values()].sort((a, b) => compareNames(a.name, b.name));
  }

  /** Looks a skill up by name (case, spaces, `_` and `-` do not matter). */
  get(name: string): SkillDefinition | undefined {
    return this.#byKey.get(skillKey(name));
  }

  /** The skills `skill` sent since the last call (their keys), to carry over a compaction. */
  takeLoaded(): Set<string> {
    const loaded = this.#loaded;
    this.#loaded = new Set();
    return loaded;
  }

  /**
   * A skill's text as the model reads it, its folder made readable for the session first (the
   * gate permitting): what `skill(name)` and `/skill-name` send.
   *
   * @param skill The skill.
   * @param body Its body with a command's arguments put in (default: as written).
   */
  text(skill: SkillDefinition, body = skill.body): string {
    const access = this.#options.grantRead?.(skill.realFolder);
    return skillText({ ...skill, body }, access);
  }

  /** A skill installed during the session: `skill` and find_skill know it from now on. */
  add(skill: SkillDefinition): void {
    this.#byKey.set(skillKey(skill.name), skill);
    this.#index = new SkillIndex([...this.#byKey.values()]);
  }

  /** Checks a call's arguments. */
  validate(name: string, args: unknown): Result<unknown, string[]> {
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return argsError(["the arguments must be an object"]);
    }
    const given = args as Record<string, unknown>;
    const allowed = name === "skill" ? ["name", "file"] : ["query"];
    const unknown = Object.keys(given).filter((key) => !allowed.includes(key));
    if (unknown.length > 0) {
      return argsError([`unknown argument "${unknown[0]}": ${name} takes ${allowed.join(", ")}`]);
    }
    const required = name === "skill" ? "name" : "query";
    if (typeof given[required] !== "string" || given[required].trim() === "") {
      return argsError([`"${required}" is required: a non-empty string`]);
    }
    if (given.file !== undefined && typeof given.file !== "string") {
      return argsError(['"file" must be a string such as "reference.md"']);
    }
    return { ok: true, value: given };
  }

  /** Runs a validated call. Never throws for what the model asked. */
  run(name: string, args: Record<string, unknown>): SkillToolRun {
    if (name === "find_skill") return this.#find(String(args.query));
    const file = typeof args.file === "string" && args.file.trim() !== "" ? args.file : undefined;
    return file === undefined
      ? this.#load(String(args.name))
      : this.#readFile(String(args.name), file);
  }

  #unknown(name: string): SkillToolRun {
    const names = this.skills().map((skill) => skill.name);
    const hint = this.#options.searchable
      ? "call find_skill with what the task needs"
      : `installed: ${names.join(", ")}`;
    return {
      result: makeToolResult({
        errorType: "not_found",
        errorMessage: `No skill "${name}": ${hint}`,
      }),
      display: `no skill "${name}"`,
    };
  }

  #load(name: string): SkillToolRun {
    const skill = this.get(name);
    if (!skill) return this.#unknown(name);
    if (skillsInMessages(this.#options.messages()).has(skillKey(skill.name))) {
      return {
        result: makeToolResult({
          data:
            `Skill "${skill.name}" is already in this conversation: its <skill name="${skill.name}"> ` +
            "text above. Follow it.",
        }),
        display: `skill ${skill.name} (already loaded)`,
      };
    }
    const text = this.text(skill);
    this.#loaded.add(skillKey(skill.name));
    return {
      result: makeToolResult({ data: text }),
      display: `skill ${skill.name} (${(text.length / 1024).toFixed(1)} KB)`,
    };
  }

  #readFile(name: string, file: string): SkillToolRun {
    const skill = this.get(name);
    if (!skill) return this.#unknown(name);
    const fail = (message: string): SkillToolRun => ({
      result: makeToolResult({ errorType: "not_found", errorMessage: message }),
      display: `skill ${skill.name}: ${file} not read`,
    });
    const files = skillFolderFiles(skill.realFolder);
    const wanted = file.replace(/^\.\//, "").replace(/\\/g, "/");
    if (!files.includes(wanted)) {
      return fail(
        `"${file}" is not a file of skill "${skill.name}": its files are ${files.join(", ")}`,
      );
    }
    let text: string;
    try {
      const real = Deno.realPathSync(`${skill.realFolder}/${wanted}`);
      if (!real.startsWith(`${skill.realFolder}/`)) {
        return fail(`"${file}" links outside the folder of skill "${skill.name}"`);
      }
      const why = this.#options.refused?.(real);
      if (why !== undefined) return fail(why);
      // Its size before its bytes: a huge (or sparse) file is never held in memory.
      const over = () => fail(`"${file}" is over ${MAX_SKILL_READ_BYTES / 1024} KiB`);
      if (Deno.statSync(real).size > MAX_SKILL_READ_BYTES) return over();
      const bytes = readAtMost(real, MAX_SKILL_READ_BYTES + 1);
      if (bytes.length > MAX_SKILL_READ_BYTES) return over();
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch (error) {
      return fail(
        error instanceof TypeError
          ? `"${file}" is not text`
          : `"${file}" cannot be read: ${(error as Error).message}`,
      );
    }
    return {
      result: makeToolResult({ data: `File "${wanted}" of skill "${skill.name}":\n${text}` }),
      display: `skill ${skill.name}: ${wanted}`,
    };
  }

  #find(query: string): SkillToolRun {
    const matches = this.#index.search(query, 5);
    if (matches.length === 0) {
      return {
        result: makeToolResult({
          data: `No skill matches "${query}". Try other words for what the task needs.`,
        }),
        display: `find_skill: no match`,
      };
    }
    const lines = matches.map((m, i) =>
      `${i + 1}. ${m.skill.name}: ${oneLine(m.skill.description, 160)}`
    );
    return {
      result: makeToolResult({
        data: `${lines.join("\n")}\nCall skill with a name to read it.`,
      }),
      display: `find_skill: ${matches.map((m) => m.skill.name).join(", ")}`,
    };
  }
}
