// What the code tools answer, computed from the graph store: the code map (ranked outline cut
// to a token budget), definitions by name (exact, then case-insensitive, then fuzzy) and
// references by name. Every answer is filtered by `visible`, so a path the current read grant
// does not cover never shows, even if an earlier run indexed it.

import type { GraphStore, StoredDefinition, StoredReference } from "./graph_store.ts";
import { rankDefinitions, type RankFocus } from "./rank_definitions.ts";

/** Decides whether a workspace-relative path may be shown. */
export type PathFilter = (path: string) => boolean;

/** A rendered code map. */
export interface CodeMap {
  text: string;
  files: number;
  definitions: number;
  /** Estimated tokens of `text`. */
  tokens: number;
  /** Definitions left out for the budget. */
  omitted: number;
}

/** Rough tokens of a text: four characters a token, as the context budget counts. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function under(prefix: string | undefined): PathFilter {
  if (!prefix) return () => true;
  const clean = prefix.replace(/^\.\/?/, "").replace(/\/+$/, "");
  if (clean === "") return () => true;
  return (path) => path === clean || path.startsWith(`${clean}/`);
}

/**
 * The most relevant definitions, grouped by file, cut to `maxTokens`.
 *
 * @param store The workspace's graph.
 * @param options Budget, optional folder or file, conversation focus, and the path filter.
 */
export function buildCodeMap(
  store: GraphStore,
  options: { maxTokens: number; path?: string; focus?: RankFocus; visible: PathFilter },
): CodeMap {
  const inScope = under(options.path);
  const keep = (path: string) => options.visible(path) && inScope(path);
  const definitions = store.allDefinitions().filter((d) => keep(d.path));
  const references = store.allReferences().filter((r) => options.visible(r.path));
  const ranked = rankDefinitions(definitions, references, options.focus);
  const byFile = new Map<string, StoredDefinition[]>();
  let tokens = 0;
  let chosen = 0;
  for (const d of ranked) {
    const line = `  ${lineRange(d)}: ${d.signature}\n`;
    const header = byFile.has(d.path) ? 0 : estimateTextTokens(`${d.path}\n`);
    const cost = header + estimateTextTokens(line);
    if (tokens + cost > options.maxTokens) continue;
    tokens += cost;
    chosen++;
    const list = byFile.get(d.path) ?? [];
    list.push(d);
    byFile.set(d.path, list);
  }
  const parts: string[] = [];
  for (const [path, list] of byFile) {
    parts.push(path);
    for (const d of list.sort((a, b) => a.line - b.line)) {
      parts.push(`  ${lineRange(d)}: ${d.signature}`);
    }
  }
  const text = parts.join("\n");
  return {
    text,
    files: byFile.size,
    definitions: chosen,
    tokens: estimateTextTokens(text),
    omitted: ranked.length - chosen,
  };
}

function lineRange(d: StoredDefinition): string {
  return d.endLine > d.line ? `${d.line}-${d.endLine}` : `${d.line}`;
}

/** Definitions found by name. */
export interface DefinitionMatches {
  matches: StoredDefinition[];
  total: number;
  /** "exact", "case-insensitive" or "fuzzy". */
  match: "exact" | "case-insensitive" | "fuzzy" | "none";
}

/** Levenshtein distance, stopping early past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/** Case, `_`, `-` and `$` do not matter when a name is looked up loosely. */
function loose(name: string): string {
  return name.toLowerCase().replace(/[_\-$]/g, "");
}

/**
 * How far `name` is from what was asked (lower is closer; Infinity is no match): same
 * letters in another case or style, then prefix, then substring, then a few edits.
 *
 * @example
 * ```ts
 * import { nameDistance } from "./code_queries.ts";
 * if (nameDistance("truncate_middle", "truncateMiddle") !== 0) throw new Error();
 * if (!(nameDistance("evaluatePolicies", "evaluatePolicy") < 10)) throw new Error();
 * if (nameDistance("zzz", "evaluatePolicy") !== Infinity) throw new Error();
 * ```
 */
export function nameDistance(asked: string, name: string): number {
  const a = loose(asked);
  const n = loose(name);
  if (a === n) return 0;
  const gap = Math.abs(a.length - n.length) / 10;
  if (a.length >= 3 && (n.startsWith(a) || a.startsWith(n) && n.length >= 4)) return 1 + gap;
  if (a.length >= 4 && (n.includes(a) || a.includes(n) && n.length >= 4)) return 2 + gap;
  const limit = Math.max(2, Math.floor(Math.max(a.length, n.length) * 0.3));
  const distance = editDistance(a, n, limit);
  return distance <= limit ? 3 + distance : Infinity;
}

const KIND_ORDER = ["class", "interface", "function", "method", "type", "enum", "module"];

function kindRank(kind: string): number {
  const at = KIND_ORDER.indexOf(kind);
  return at < 0 ? KIND_ORDER.length : at;
}

const TEST_PATH = /(^|\/)(tests?|__tests__|spec|fixtures?|testdata)\/|[._-](test|spec)\.[a-z]+$/;

/**
 * Definitions named `name`: exact matches, else case-insensitive ones, else the closest
 * names (see {@linkcode nameDistance}); among equals, classes and functions before
 * variables, code before tests, short paths first.
 */
export function findDefinitions(
  store: GraphStore,
  options: { name: string; kind?: string; limit: number; visible: PathFilter },
): DefinitionMatches {
  const ofKind = (d: StoredDefinition) =>
    options.visible(d.path) && (options.kind === undefined || d.kind === options.kind);
  const order = (a: StoredDefinition, b: StoredDefinition) =>
    kindRank(a.kind) - kindRank(b.kind) ||
    Number(TEST_PATH.test(a.path)) - Number(TEST_PATH.test(b.path)) ||
    a.path.split("/").length - b.path.split("/").length ||
    (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line);
  const answer = (all: StoredDefinition[], match: DefinitionMatches["match"]) => ({
    matches: all.slice(0, options.limit),
    total: all.length,
    match,
  });
  const exact = store.definitionsNamed(options.name).filter(ofKind).sort(order);
  if (exact.length > 0) return answer(exact, "exact");
  const lower = options.name.toLowerCase();
  const names = store.definedNames();
  const caseless = names.filter((n) => n.toLowerCase() === lower)
    .flatMap((n) => store.definitionsNamed(n)).filter(ofKind).sort(order);
  if (caseless.length > 0) return answer(caseless, "case-insensitive");
  const scored = names
    .map((n) => ({ n, score: nameDistance(options.name, n) }))
    .filter((s) => s.score !== Infinity)
    .sort((a, b) => a.score - b.score || (a.n < b.n ? -1 : 1));
  const fuzzy = scored.flatMap((s) => store.definitionsNamed(s.n).filter(ofKind).sort(order));
  return answer(fuzzy, fuzzy.length > 0 ? "fuzzy" : "none");
}

/** References to `name`, capped, with the total. */
export function findReferences(
  store: GraphStore,
  options: { name: string; limit: number; visible: PathFilter },
): { matches: StoredReference[]; total: number } {
  const all = store.referencesNamed(options.name).filter((r) => options.visible(r.path));
  return { matches: all.slice(0, options.limit), total: all.length };
}
