// Finds the skills users already have: folders holding a SKILL.md (front matter `name` and
// `description`, a Markdown body, optional scripts/, references/, assets/), per the open
// agent-skills format that Claude Code, Codex, opencode, Gemini CLI and Crush read. They are
// looked for in .agents/, .claude/, .opencode/, .gemini/ and .codex/ (skills/, or skill/ beside
// it) of every folder from the repository root down to the workspace, the same under the
// user's home, and in ~/.config/harness/skills/. Read unchanged and leniently: a skill is
// skipped only without a description, and each skipped file is named once with the reason.

import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fieldText, listField, readFrontMatter } from "../config/front_matter.ts";
import { skillKey, type SkillPlaces, type SkillRoot, skillRoots } from "./skill_roots.ts";
import { compareNames } from "../platform/name_order.ts";

/** One installed skill. */
export interface SkillDefinition {
  name: string;
  /** As written, literal `\n` turned into lines. */
  description: string;
  /** The skill's folder as found (through a link, the link's path). */
  folder: string;
  /** Its real folder: where `skill(name, file)` reads. */
  realFolder: string;
  /** Its SKILL.md. */
  file: string;
  scope: "project" | "user";
  /** The skills folder it was found in, for `/skills` and `harness skills`. */
  root: string;
  /** The Markdown body of SKILL.md. */
  body: string;
  /** The body's headings, for find_skill. */
  headings: string[];
  /** Every front matter field, unknown ones too (license, compatibility, metadata...). */
  fields: Record<string, unknown>;
  /** `allowed-tools` as written (`Bash(git:*)`, `Read`). */
  allowedTools?: string[];
  argumentHint?: string;
  /** Worth saying, did not stop it loading (a name that differs from its folder). */
  notes: string[];
}

/** A SKILL.md (or a skill folder) not loaded, and why. */
export interface SkippedSkill {
  file: string;
  reason: string;
}

/** What discovery found. */
export interface DiscoveredSkills {
  /** The nearest definition of each name, sorted by name. */
  skills: SkillDefinition[];
  skipped: SkippedSkill[];
}

/** Where to look and what may load. */
export interface SkillDiscoveryOptions extends SkillPlaces {
  /** Which project SKILL.md files may load; left out, none does. */
  trusted?: (files: readonly string[]) => Promise<{ load: readonly string[]; untrusted: string }>;
  /**
   * Whether a skill folder a link leads to may be read (inside the read grant). Left out, only
   * links that stay inside their own skills folder are followed.
   */
  readable?: (realPath: string) => boolean;
}

/** Bytes of one SKILL.md read at most. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** Folder entries looked at per discovery at most: a huge tree cannot stall start-up. */
export const MAX_SKILL_ENTRIES = 20_000;
const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && rel !== "..");
}

function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/** A skill folder found in a root, before its SKILL.md is read. */
interface FoundFolder {
  folder: string;
  real: string;
  root: SkillRoot;
}

/** The walk's state, shared by every root: one budget of entries, folders seen once. */
interface Walk {
  entries: number;
  seen: Set<string>;
  found: FoundFolder[];
  skipped: SkippedSkill[];
  readable: (real: string) => boolean;
}

/**
 * Whether a project's skills folder (or its dot folder) is a link that leaves the project
 * folder it is found in for a place the read grant does not cover: a cloned repository's
 * `.claude/skills -> ~/elsewhere` would make that folder readable through `skill`.
 */
function leavesProject(root: SkillRoot, rootReal: string, walk: Walk): boolean {
  if (root.scope !== "project") return false;
  const project = realPath(dirname(dirname(root.dir)));
  if (project !== undefined && inside(project, rootReal)) return false;
  if (walk.readable(rootReal)) return false;
  walk.skipped.push({
    file: root.dir,
    reason:
      `it links to "${rootReal}", outside the read grant: allow it with --allow-read=${rootReal}`,
  });
  return true;
}

/** Looks for skill folders under one root, at most three folders deep. */
function walkRoot(root: SkillRoot, walk: Walk): void {
  const rootReal = realPath(root.dir);
  if (rootReal === undefined || leavesProject(root, rootReal, walk)) return;
  const visit = (dir: string, real: string, depth: number) => {
    if (walk.seen.has(real)) return;
    walk.seen.add(real);
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(real)].sort((a, b) => compareNames(a.name, b.name));
    } catch (error) {
      walk.skipped.push({ file: dir, reason: `it cannot be listed: ${(error as Error).message}` });
      return;
    }
    if (depth > 0 && entries.some((e) => e.name === "SKILL.md" && !e.isDirectory)) {
      walk.found.push({ folder: dir, real, root });
      return;
    }
    for (const entry of entries) {
      if (++walk.entries > MAX_SKILL_ENTRIES || depth >= 3) return;
      if (SKIPPED_FOLDERS.has(entry.name) || entry.name.startsWith(".")) continue;
      if (!entry.isDirectory && !entry.isSymlink) continue;
      const path = join(dir, entry.name);
      const target = entry.isSymlink ? realPath(path) : join(real, entry.name);
      if (target === undefined) continue;
      if (entry.isSymlink) {
        try {
          if (!Deno.statSync(target).isDirectory) continue;
        } catch {
          continue;
        }
        if (!inside(rootReal, target) && !walk.readable(target)) {
          walk.skipped.push({
            file: path,
            reason:
              `it links to "${target}", outside the read grant: allow it with --allow-read=${target}`,
          });
          continue;
        }
      }
      visit(path, target, depth + 1);
    }
  };
  visit(root.dir, rootReal, 0);
}

/** The headings of a Markdown body, outside fenced code. */
function headingsOf(body: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of body.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) out.push(heading[1]!);
  }
  return out;
}

function readSkillText(file: string): { text: string } | { error: string } {
  try {
    const info = Deno.statSync(file);
    if (!info.isFile) return { error: "SKILL.md is not a regular file" };
    if (info.size > MAX_SKILL_FILE_BYTES) {
      return { error: `SKILL.md is over ${MAX_SKILL_FILE_BYTES / 1024} KiB` };
    }
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(file)) };
  } catch (error) {
    if (error instanceof TypeError) return { error: "SKILL.md is not UTF-8 text" };
    return { error: `SKILL.md cannot be read: ${(error as Error).message}` };
  }
}

/**
 * Reads one skill folder's SKILL.md.
 *
 * @param found The folder, its real path and the root it was found in.
 * @returns The skill, or why it is skipped.
 */
function readSkill(found: FoundFolder): { skill: SkillDefinition } | { skip: string } {
  const file = join(found.folder, "SKILL.md");
  const read = readSkillText(join(found.real, "SKILL.md"));
  if ("error" in read) return { skip: read.error };
  const front = readFrontMatter(read.text);
  const folderName = basename(found.folder);
  const name = fieldText(front, "name") ?? folderName;
  const description = fieldText(front, "description");
  if (description === undefined) {
    return { skip: 'it has no description: add a "description:" line to its front matter' };
  }
  const notes: string[] = [];
  if (skillKey(name) !== skillKey(folderName)) {
    notes.push(`its name "${name}" differs from its folder "${folderName}"`);
  }
  if (front.reading === "quoted" || front.reading === "lines") {
    notes.push(`its front matter is not valid YAML (${front.yamlError}): read line by line`);
  }
  const allowedTools = listField(front.fields["allowed-tools"] ?? front.fields.allowed_tools);
  const argumentHint = fieldText(front, "argument-hint");
  return {
    skill: {
      name,
      description,
      folder: found.folder,
      realFolder: found.real,
      file,
      scope: found.root.scope,
      root: found.root.dir,
      body: front.body,
      headings: headingsOf(front.body),
      fields: front.fields,
      ...(allowedTools ? { allowedTools } : {}),
      ...(argumentHint ? { argumentHint } : {}),
      notes,
    },
  };
}

/**
 * Finds and reads the skills of a workspace and the user.
 *
 * @param options The workspace, the user's folders, the trust check and the read grant.
 * @returns The skills (the nearest of each name) and what was skipped, each once.
 *
 * @example
 * ```ts
 * import { discoverSkills } from "./skill_files.ts";
 * const home = Deno.makeTempDirSync();
 * Deno.mkdirSync(`${home}/.claude/skills/pdf`, { recursive: true });
 * Deno.writeTextFileSync(`${home}/.claude/skills/pdf/SKILL.md`, "---\nname: pdf\ndescription: Read PDFs\n---\n# Use\n");
 * const found = await discoverSkills({ cwd: Deno.makeTempDirSync(), home });
 * if (found.skills[0]?.name !== "pdf" || found.skills[0].headings[0] !== "Use") throw new Error();
 * ```
 */
export async function discoverSkills(options: SkillDiscoveryOptions): Promise<DiscoveredSkills> {
  const walk: Walk = {
    entries: 0,
    seen: new Set(),
    found: [],
    skipped: [],
    readable: options.readable ?? (() => false),
  };
  for (const root of skillRoots(options)) walkRoot(root, walk);
  const project = walk.found.filter((f) => f.root.scope === "project")
    .map((f) => join(f.real, "SKILL.md"));
  let allowed = new Set<string>();
  let untrusted = "the project's skills load only in a trusted folder";
  if (project.length > 0 && options.trusted) {
    const trust = await options.trusted(project);
    allowed = new Set(trust.load);
    untrusted = trust.untrusted;
  }
  const byKey = new Map<string, SkillDefinition>();
  const skipped = walk.skipped;
  for (const found of walk.found) {
    const file = join(found.folder, "SKILL.md");
    if (found.root.scope === "project" && !allowed.has(join(found.real, "SKILL.md"))) {
      skipped.push({ file, reason: untrusted });
      continue;
    }
    const read = readSkill(found);
    if ("skip" in read) {
      skipped.push({ file, reason: read.skip });
      continue;
    }
    const key = skillKey(read.skill.name);
    const first = byKey.get(key);
    if (first) {
      skipped.push({ file, reason: `"${read.skill.name}" is defined first in ${first.file}` });
      continue;
    }
    byKey.set(key, read.skill);
  }
  const skills = [...byKey.values()].sort((a, b) => compareNames(a.name, b.name));
  return { skills, skipped };
}

/**
 * The files of a skill's folder (relative, sorted), at most `limit`, skipping .git and
 * node_modules: what `skill(name)` lists.
 *
 * @example
 * ```ts
 * import { skillFolderFiles } from "./skill_files.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.mkdirSync(`${dir}/scripts`);
 * Deno.writeTextFileSync(`${dir}/SKILL.md`, "x");
 * Deno.writeTextFileSync(`${dir}/scripts/run.py`, "x");
 * if (skillFolderFiles(dir).join() !== "SKILL.md,scripts/run.py") throw new Error();
 * ```
 */
export function skillFolderFiles(realFolder: string, limit = 200): string[] {
  const files: string[] = [];
  const visit = (dir: string, depth: number) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (files.length >= limit) return;
      if (SKIPPED_FOLDERS.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory && depth < 4) visit(path, depth + 1);
      else if (entry.isFile) files.push(relative(realFolder, path).split(sep).join("/"));
    }
  };
  visit(resolve(realFolder), 0);
  return files;
}
