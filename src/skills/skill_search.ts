// find_skill's search: BM25F over each skill's name, description and headings (a field's words
// count by its weight, so a word in the name says more than one in a heading), with light
// stemming and stop words, so "merging PDFs" finds "pdf-merge-split"; a query word also finds
// the words it is a prefix of and a few groups of words developers use for one need, at lower
// weights, and skills matching more of the query rank higher. In memory: a few hundred skills
// index in milliseconds.

import { compareNames } from "../platform/name_order.ts";

/** Something searchable: the parts of a skill find_skill looks at. */
export interface SearchableSkill {
  name: string;
  description: string;
  headings: readonly string[];
}

/** One match, best first. */
export interface SkillMatch<T extends SearchableSkill> {
  skill: T;
  score: number;
}

const STOP_WORDS = new Set(
  ("a an and are as at be but by can do does for from get got has have how i if in into is it " +
    "its let me my no not of on or our out so some than that the their them then there these " +
    "they this to up us use used using via was we what when where which while who why will with " +
    "would you your skill skills help please want need make one two three four five ten " +
    "first last before after each every all any more most other same such only just also very " +
    "too off over again once here now like keep stop start sure thing things way").split(" "),
);

/**
 * Words developers use for the same need, each group written once from general usage (not
 * from the benchmark's prompts): a query word also finds its group's other words, at a lower
 * weight.
 */
const RELATED_WORDS: readonly string[] = [
  "cut trim clip",
  "shrink smaller compress reduce",
  "combine merge join concatenate",
  "split separate divide",
  "random randomly intermittent flaky nondeterministic sometimes",
  "hang hangs stuck freeze forever timeout",
  "slow speed fast faster latency performance",
  "crash crashes segfault panic abort",
  "permission permissions access denied forbidden unauthorized",
  "login signin sign auth authentication",
  "delete remove drop",
  "find search lookup locate",
  "error errors exception failure fail fails failing",
  "test tests testing spec",
  "container containers docker",
  "cache caching memoize",
  "database db sql",
  "docs documentation",
  "recording video audio",
  "config configuration settings",
  "secret secrets credential credentials key token",
  "deploy deployment release ship",
  "schedule scheduled cron periodic recurring",
  "email mail smtp",
  "upgrade update bump",
  "translate translation localize localization i18n",
  "chart plot graph",
  "spreadsheet excel sheet workbook",
  "retrieve retrieval fetch",
];

/** Field weights: name, description, headings. */
const WEIGHTS = { name: 3, description: 2, headings: 1 } as const;
const K1 = 1.2;
/** How much a term the query's word is only a prefix of (or the other way) counts. */
const PREFIX_WEIGHT = 0.6;
/** How much a related word (RELATED_WORDS) counts. */
const RELATED_WEIGHT = 0.2;
/**
 * Lucene's classic coordination factor: a skill matching more of the query's words ranks above
 * one matching a single word many times (its score times the share matched, to this power).
 */
const COORD = 0.5;

/** Each stemmed word's related stems. */
const RELATED = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of RELATED_WORDS) {
    const stems = group.split(" ").map(stem);
    for (const word of stems) {
      const set = map.get(word) ?? new Set<string>();
      for (const other of stems) if (other !== word) set.add(other);
      map.set(word, set);
    }
  }
  return map;
})();
const B = 0.75;

/**
 * A word's stem: lowercase, common English endings removed ("merging" and "merges" become
 * "merg"), so forms of one word match.
 *
 * @example
 * ```ts
 * import { stem } from "./skill_search.ts";
 * if (stem("Merging") !== stem("merges") || stem("pdfs") !== "pdf") throw new Error();
 * ```
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length <= 3) return w;
  for (
    const suffix of [
      "ations",
      "ation",
      "ings",
      "ing",
      "ies",
      "ied",
      "ers",
      "er",
      "es",
      "ed",
      "s",
      "e",
    ]
  ) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length) + (suffix === "ies" || suffix === "ied" ? "y" : "");
      break;
    }
  }
  return w;
}

/**
 * The search terms of a text: words and numbers, stop words left out, stemmed.
 *
 * @example
 * ```ts
 * import { terms } from "./skill_search.ts";
 * if (terms("Merge the PDF-files").join() !== "merg,pdf,fil") throw new Error(terms("Merge the PDF-files").join());
 * ```
 */
export function terms(text: string): string[] {
  // "AccessDenied" and "node_modules" are words of their own.
  const split = text.replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2");
  return (split.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((word) => !STOP_WORDS.has(word))
    .map(stem);
}

interface Document<T> {
  skill: T;
  fields: Record<keyof typeof WEIGHTS, Map<string, number>>;
  lengths: Record<keyof typeof WEIGHTS, number>;
}

function counts(words: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const word of words) out.set(word, (out.get(word) ?? 0) + 1);
  return out;
}

/** A BM25F index of skills. */
export class SkillIndex<T extends SearchableSkill> {
  readonly #documents: Document<T>[];
  readonly #documentFrequency = new Map<string, number>();
  readonly #averages: Record<keyof typeof WEIGHTS, number>;

  /**
   * Indexes the skills.
   *
   * @example
   * ```ts
   * import { SkillIndex } from "./skill_search.ts";
   * const index = new SkillIndex([
   *   { name: "pdf-merge", description: "Merge PDF documents", headings: [] },
   *   { name: "csv-clean", description: "Clean CSV files", headings: ["Duplicates"] },
   * ]);
   * if (index.search("combine two pdf files")[0]?.skill.name !== "pdf-merge") throw new Error();
   * ```
   */
  constructor(skills: readonly T[]) {
    this.#documents = skills.map((skill) => {
      const words = {
        name: terms(skill.name),
        description: terms(skill.description),
        headings: terms(skill.headings.join("\n")),
      };
      for (const word of new Set([...words.name, ...words.description, ...words.headings])) {
        this.#documentFrequency.set(word, (this.#documentFrequency.get(word) ?? 0) + 1);
      }
      return {
        skill,
        fields: {
          name: counts(words.name),
          description: counts(words.description),
          headings: counts(words.headings),
        },
        lengths: {
          name: words.name.length,
          description: words.description.length,
          headings: words.headings.length,
        },
      };
    });
    const average = (field: keyof typeof WEIGHTS) =>
      this.#documents.reduce((sum, d) => sum + d.lengths[field], 0) /
        Math.max(1, this.#documents.length) || 1;
    this.#averages = {
      name: average("name"),
      description: average("description"),
      headings: average("headings"),
    };
  }

  /**
   * The query's terms, each with the indexed terms it is a prefix of or that are a prefix of it
   * (five letters or more: "retriev" finds "retrieval"), those at a lower weight.
   */
  #expand(words: readonly string[]): { term: string; weight: number }[] {
    const out = new Map<string, number>();
    for (const word of words) out.set(word, 1);
    for (const word of words) {
      for (const related of RELATED.get(word) ?? []) {
        if (!out.has(related)) out.set(related, RELATED_WEIGHT);
      }
      if (word.length < 5) continue;
      for (const known of this.#documentFrequency.keys()) {
        if (known === word || known.length < 5 || out.has(known)) continue;
        if (known.startsWith(word) || word.startsWith(known)) out.set(known, PREFIX_WEIGHT);
      }
    }
    return [...out].map(([term, weight]) => ({ term, weight }));
  }

  /**
   * The skills that match a query, best first.
   *
   * @param query What the model needs, in words.
   * @param limit How many at most (default 5).
   * @returns The matches with a score above zero.
   */
  search(query: string, limit = 5): SkillMatch<T>[] {
    const wanted = this.#expand([...new Set(terms(query))]);
    const total = this.#documents.length;
    const asked = wanted.filter((word) => word.weight === 1).length;
    const scored: SkillMatch<T>[] = [];
    for (const document of this.#documents) {
      let score = 0;
      let matched = 0;
      for (const word of wanted) {
        let weighted = 0;
        for (const field of Object.keys(WEIGHTS) as (keyof typeof WEIGHTS)[]) {
          const tf = (document.fields[field].get(word.term) ?? 0) * word.weight;
          if (tf === 0) continue;
          const norm = 1 - B + B * (document.lengths[field] / this.#averages[field]);
          weighted += WEIGHTS[field] * tf / norm;
        }
        if (weighted === 0) continue;
        const df = this.#documentFrequency.get(word.term) ?? 0;
        const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
        score += idf * weighted * (K1 + 1) / (weighted + K1);
        matched += word.weight;
      }
      score *= Math.pow(matched / Math.max(1, asked), COORD);
      if (score > 0) scored.push({ skill: document.skill, score });
    }
    return scored.sort((a, b) => b.score - a.score || compareNames(a.skill.name, b.skill.name))
      .slice(0, limit);
  }
}
