// What the conversation is about, in the graph's terms: identifiers it names exactly, files
// it names (by path, file name or stem), and names whose word parts (`retryRequest` is
// "retry" + "request") share a stemmed keyword with it. The code map's ranking uses these.

import type { RankFocus } from "./rank_definitions.ts";

const STOPWORDS = new Set(
  ("the and for with that this from into where when what which while how does are was were " +
    "been being have has had not but can could should would will then than there their they " +
    "them its it's our your you about after before over under some each every other only " +
    "also just like look find show tell file files code function class method used uses use " +
    "somewhere here why who whose make makes made get gets set sets new one two").split(" "),
);

/** Lower-case word stem: "retries" and "retrying" both give "retri"/"retry" alike enough. */
export function stem(word: string): string {
  let w = word.toLowerCase();
  for (const suffix of ["ing", "ies", "ed", "es", "s"]) {
    if (w.length > suffix.length + 3 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length) + (suffix === "ies" ? "y" : "");
      break;
    }
  }
  return w;
}

/**
 * The word parts of an identifier or path: camelCase, snake_case, kebab-case and folders.
 *
 * @example
 * ```ts
 * import { wordParts } from "./conversation_focus.ts";
 * if (wordParts("retryRequest").join() !== "retry,request") throw new Error();
 * if (wordParts("src/core/pagination.ts").join() !== "src,core,pagination,ts") throw new Error();
 * ```
 */
export function wordParts(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.toLowerCase());
}

/**
 * Reads the focus out of recent conversation text.
 *
 * @param text The recent messages.
 * @param names Every defined name of the graph.
 * @param paths Every indexed path.
 */
export function conversationFocus(
  text: string,
  names: readonly string[],
  paths: Iterable<string>,
): Required<RankFocus> {
  const words = new Set(text.match(/[A-Za-z_$][\w$]{2,}/g) ?? []);
  const keywords = new Set(
    [...words].flatMap(wordParts).filter((w) => w.length >= 4 && !STOPWORDS.has(w)).map(stem),
  );
  const exact = new Set<string>();
  const related = new Map<string, number>();
  for (const name of names) {
    if (words.has(name)) {
      exact.add(name);
      continue;
    }
    let shared = 0;
    for (const part of wordParts(name)) if (part.length >= 4 && keywords.has(stem(part))) shared++;
    if (shared > 0) related.set(name, shared);
  }
  const lowerWords = new Set([...words].map((w) => w.toLowerCase()));
  const files = new Set<string>();
  for (const path of paths) {
    const base = path.slice(path.lastIndexOf("/") + 1);
    const fileStem = base.replace(/\.[^.]*$/, "").toLowerCase();
    // A path, a file name, or a file's stem used as a word ("the azure client").
    if (text.includes(path) || (base.length > 3 && text.includes(base))) files.add(path);
    else if (fileStem.length >= 4 && (lowerWords.has(fileStem) || keywords.has(stem(fileStem)))) {
      files.add(path);
    }
  }
  return { names: exact, files, related };
}
