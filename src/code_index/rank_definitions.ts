// Ranks a workspace's definitions by how the rest of the code uses them, personalised to what
// the conversation is about: files are nodes, a reference from file A to a name defined in
// file B is an edge A -> B, PageRank runs with extra weight on the files and names the
// conversation mentions (the approach of aider's repo map), and each file's rank flows to
// the definitions its references point at. Pure: takes rows, returns an order.

import type { StoredDefinition, StoredReference } from "./graph_store.ts";

/** What the conversation is about. */
export interface RankFocus {
  /** Workspace-relative paths the conversation read, wrote or named. */
  files?: ReadonlySet<string>;
  /** Identifiers the conversation mentioned. */
  names?: ReadonlySet<string>;
  /** Names sharing word parts with the conversation's keywords, with how many they share. */
  related?: ReadonlyMap<string, number>;
}

/** A definition with its score. */
export interface RankedDefinition extends StoredDefinition {
  score: number;
}

const DAMPING = 0.85;
/** Tests and fixtures rank below the code they test unless the conversation is about them. */
const TEST_PATH = /(^|\/)(tests?|__tests__|spec|fixtures?|testdata)\/|[._-](test|spec)\.[a-z]+$/;

/**
 * Method names of the languages' standard libraries: a call `xs.push(1)` is far more often a
 * use of the built-in than of a workspace method of that name, so such edges weigh little.
 */
const BUILTIN_NAMES = new Set(
  ("push pop shift unshift map filter reduce forEach join split slice splice size length get " +
    "set has add delete clear keys values entries toString then catch finally test exec match " +
    "replace trim find some every includes indexOf write read close open log error warn info " +
    "debug run next append extend len print format new Println Printf Sprintf Errorf String " +
    "equals hashCode println printf clone unwrap expect iter collect into from to_string " +
    "is_empty insert remove contains parse call apply bind send emit on off start stop " +
    "resolve reject all any sort reverse concat assign create update init main each encode " +
    "decode").split(
      " ",
    ),
);
const ITERATIONS = 40;

/**
 * Weight of the edges for one name: names the conversation mentions and long compound names
 * (`runAgentLoop`, `parse_flags`) count ten times; private-looking names and names defined in
 * many files a tenth; standard-library method names a twentieth.
 */
function nameWeight(name: string, definers: number, focus: RankFocus): number {
  let weight = 1;
  if (focus.names?.has(name)) weight *= 10;
  else if (focus.related?.has(name)) weight *= 3;
  if (name.startsWith("_")) weight *= 0.1;
  if (definers > 5) weight *= 0.1;
  if (BUILTIN_NAMES.has(name)) weight *= 0.05;
  if (name.length >= 8 && /[a-z][A-Z]|[a-z]_[a-z]/.test(name)) weight *= 10;
  return weight;
}

/**
 * PageRank over `nodes` with weighted `edges`, personalised by `start` (uniform when empty).
 *
 * @example
 * ```ts
 * import { pageRank } from "./rank_definitions.ts";
 * const r = pageRank(["a", "b", "c"], [["a", "c", 1], ["b", "c", 1]], new Map());
 * if (!(r.get("c")! > r.get("a")!)) throw new Error();
 * ```
 */
export function pageRank(
  nodes: readonly string[],
  edges: ReadonlyArray<readonly [string, string, number]>,
  start: ReadonlyMap<string, number>,
): Map<string, number> {
  const n = nodes.length;
  if (n === 0) return new Map();
  const index = new Map(nodes.map((node, i) => [node, i]));
  const out = new Float64Array(n);
  const targets: Array<Array<[number, number]>> = nodes.map(() => []);
  for (const [from, to, weight] of edges) {
    const a = index.get(from);
    const b = index.get(to);
    if (a === undefined || b === undefined || weight <= 0) continue;
    targets[a]!.push([b, weight]);
    out[a]! += weight;
  }
  const teleport = new Float64Array(n);
  let startTotal = 0;
  for (const [node, weight] of start) {
    const i = index.get(node);
    if (i !== undefined && weight > 0) {
      teleport[i]! += weight;
      startTotal += weight;
    }
  }
  if (startTotal === 0) teleport.fill(1 / n);
  else for (let i = 0; i < n; i++) teleport[i]! /= startTotal;
  let rank = Float64Array.from(teleport);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const next = new Float64Array(n);
    let dangling = 0;
    for (let a = 0; a < n; a++) {
      if (out[a] === 0) {
        dangling += rank[a]!;
        continue;
      }
      for (const [b, weight] of targets[a]!) next[b]! += DAMPING * rank[a]! * weight / out[a]!;
    }
    for (let i = 0; i < n; i++) {
      next[i]! += (1 - DAMPING + DAMPING * dangling) * teleport[i]!;
    }
    rank = next;
  }
  return new Map(nodes.map((node, i) => [node, rank[i]!]));
}

/**
 * Orders definitions from most to least relevant.
 *
 * @param definitions Every definition of the workspace.
 * @param references Every reference of the workspace.
 * @param focus Files and names of the conversation.
 * @returns The definitions with scores, best first (ties in path and line order).
 */
export function rankDefinitions(
  definitions: readonly StoredDefinition[],
  references: readonly StoredReference[],
  focus: RankFocus = {},
): RankedDefinition[] {
  const definers = new Map<string, Set<string>>();
  for (const d of definitions) {
    let files = definers.get(d.name);
    if (!files) definers.set(d.name, files = new Set());
    files.add(d.path);
  }
  // (referencing file, name) -> count
  const uses = new Map<string, Map<string, number>>();
  for (const r of references) {
    if (!definers.has(r.name)) continue;
    let names = uses.get(r.path);
    if (!names) uses.set(r.path, names = new Map());
    names.set(r.name, (names.get(r.name) ?? 0) + 1);
  }
  const files = new Set<string>(definitions.map((d) => d.path));
  for (const path of uses.keys()) files.add(path);
  const edges: Array<[string, string, number, string]> = [];
  for (const [from, names] of uses) {
    for (const [name, count] of names) {
      const targets = definers.get(name)!;
      const weight = nameWeight(name, targets.size, focus) * Math.sqrt(count);
      for (const to of targets) if (to !== from) edges.push([from, to, weight, name]);
    }
  }
  const start = new Map<string, number>();
  for (const path of focus.files ?? []) if (files.has(path)) start.set(path, 1);
  const fileRank = pageRank([...files], edges.map(([a, b, w]) => [a, b, w] as const), start);
  const outWeight = new Map<string, number>();
  for (const [from, , weight] of edges) outWeight.set(from, (outWeight.get(from) ?? 0) + weight);
  const defScore = new Map<string, number>();
  for (const [from, to, weight, name] of edges) {
    const key = `${to}\0${name}`;
    const share = (fileRank.get(from) ?? 0) * weight / (outWeight.get(from) ?? 1);
    defScore.set(key, (defScore.get(key) ?? 0) + share);
  }
  const ranked = definitions.map((d) => {
    // Within one file's outgoing edges the weights only share out its rank; applied again
    // here they also say how much a name's uses are worth at all (a built-in `push` little).
    let score = (defScore.get(`${d.path}\0${d.name}`) ?? 0) *
      nameWeight(d.name, definers.get(d.name)?.size ?? 1, {});
    // Unreferenced definitions keep a little of their file's rank so a focused file shows.
    score += (fileRank.get(d.path) ?? 0) * 1e-3;
    // Names the conversation mentions come first, then what its files define (scores from
    // the graph are below 1, so these boosts order before any graph score).
    if (focus.names?.has(d.name)) score += 2;
    else if (focus.related?.has(d.name)) score += 0.25 * focus.related.get(d.name)!;
    if (focus.files?.has(d.path)) score = score * 3 + (fileRank.get(d.path) ?? 0);
    else if (TEST_PATH.test(d.path)) score *= 0.3;
    return { ...d, score };
  });
  return ranked.sort((a, b) =>
    b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line)
  );
}
