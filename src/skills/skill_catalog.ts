// The skills section of the system prompt: a short, fixed list (name and one line each) within a
// budget of max(1% of the window, 300 tokens) together with the skill tools' schemas. When the
// lines do not all fit, the section names as many skills as fit and find_skill searches the
// rest, so an installed skill never becomes invisible. Built once per session: a skill added
// later is announced as a message, never by changing the prompt (the server's cache keeps it).

import type { SkillDefinition } from "./skill_files.ts";
import { compareNames } from "../platform/name_order.ts";

/** The heading of the section, which /context and tests look for. */
export const SKILLS_HEADING = "# Skills";

/** The smallest budget, in tokens, for the section and the skill tools together. */
export const MIN_SKILL_BUDGET = 300;

/** What the section holds. */
export interface SkillCatalog {
  /** The section ("" without skills). */
  text: string;
  /** Skills shown with their line. */
  described: number;
  /** Skills shown by name only. */
  named: number;
  total: number;
  /** Not every skill's line fits: find_skill is offered to search them all. */
  searchable: boolean;
}

/**
 * The tokens skills may cost in the first request: max(1% of the window, 300).
 *
 * @param window The model's context window, when known.
 *
 * @example
 * ```ts
 * import { skillBudget } from "./skill_catalog.ts";
 * if (skillBudget(8192) !== 300 || skillBudget(131072) !== 1310 || skillBudget(undefined) !== 300) throw new Error();
 * ```
 */
export function skillBudget(window: number | undefined): number {
  return Math.max(MIN_SKILL_BUDGET, Math.floor((window ?? 0) / 100));
}

/**
 * A description as one short line: `<example>` blocks left out, whitespace joined, the first
 * sentence when it is long enough, at most `max` characters.
 *
 * @example
 * ```ts
 * import { oneLine } from "./skill_catalog.ts";
 * const line = oneLine("Use when merging PDFs.\n\n<example>user: merge</example> More text here.", 80);
 * if (line !== "Use when merging PDFs.") throw new Error(line);
 * ```
 */
export function oneLine(description: string, max = 100): string {
  const text = description.replace(/<example>[^]*?<\/example>/gi, " ").replace(/\s+/g, " ")
    .trim();
  const sentence = /^(.{20,}?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  return sentence.length > max ? `${sentence.slice(0, max - 3).trimEnd()}...` : sentence;
}

const INTRO =
  "Skills are folders of instructions for particular tasks. Before a task one of them serves, " +
  "call skill with its name to read it; it may name scripts to run with run_command.";

/**
 * The catalog of skills within a token budget. Project skills come first, then the user's,
 * each by name.
 *
 * @param skills The installed skills.
 * @param options `budget`: tokens for the section; `tokens`: the model's count of a text.
 * @returns The section and what it shows.
 *
 * @example
 * ```ts
 * import { skillCatalog } from "./skill_catalog.ts";
 * const skill = (name: string) => ({ name, description: `Does ${name} things.`, scope: "user" as const });
 * const tokens = (text: string) => Math.ceil(text.length / 4);
 * const small = skillCatalog([skill("pdf")], { budget: 300, tokens });
 * if (!small.text.includes("- pdf: Does pdf things.") || small.searchable) throw new Error(small.text);
 * const many = skillCatalog(Array.from({ length: 200 }, (_, i) => skill(`s${i}`)), { budget: 300, tokens });
 * if (!many.searchable || tokens(many.text) > 300 || many.named === 0) throw new Error(many.text);
 * ```
 */
export function skillCatalog(
  skills: readonly Pick<SkillDefinition, "name" | "description" | "scope">[],
  options: { budget: number; tokens: (text: string) => number },
): SkillCatalog {
  const total = skills.length;
  if (total === 0) return { text: "", described: 0, named: 0, total, searchable: false };
  const ordered = [...skills].sort((a, b) =>
    a.scope === b.scope ? compareNames(a.name, b.name) : a.scope === "project" ? -1 : 1
  );
  const lines = ordered.map((skill) => `- ${skill.name}: ${oneLine(skill.description)}`);
  const full = [SKILLS_HEADING, INTRO, ...lines].join("\n");
  if (options.tokens(full) <= options.budget) {
    return { text: full, described: total, named: 0, total, searchable: false };
  }
  // Names only, as many as fit; find_skill searches every skill's description.
  const head = (shown: number) =>
    `${SKILLS_HEADING}\n${total} skills are installed. Call find_skill with what a task needs ` +
    "to find the skill for it, then skill with its name to read it." +
    (shown === 0
      ? ""
      : ` ${shown === total ? "They are" : "Among them"}: ${
        ordered.slice(0, shown).map((s) => s.name).join(", ")
      }${shown === total ? "" : ` and ${total - shown} more`}.`);
  let low = 0;
  let high = total;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (options.tokens(head(mid)) <= options.budget) low = mid;
    else high = mid - 1;
  }
  return { text: head(low), described: 0, named: low, total, searchable: true };
}
