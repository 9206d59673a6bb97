// readListing (how glob reads fd's listing) against the plain definition: keep the paths the
// walk shows and the pattern keeps, count them, sort by walk-order key, take the first. The
// bulk reading (a plain suffix, no hidden or odd names) must agree with it on large listings
// in any order, on one whose byte-spread sample misjudges how far the first paths reach, and
// must hand over to the path-by-path reading whenever a name needs the pattern's own test.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { type ListingOptions, readListing } from "../../src/tools/search/fd_listing.ts";
import { compileGlob } from "../../src/tools/search/glob_matcher.ts";
import { walkOrderKey } from "../../src/tools/search/walk_order.ts";

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** What readListing must answer, by definition. */
function expected(
  paths: readonly string[],
  options: ListingOptions,
  shows: (path: string) => boolean,
): { count: number; files: string[] } {
  const kept = [...paths, ...options.also].filter((path) => shows(path) && options.keep(path));
  const keys = kept.map((path) => [walkOrderKey(path), path] as const);
  keys.sort((p, q) => p[0] < q[0] ? -1 : 1);
  return { count: kept.length, files: keys.slice(0, options.limit).map(([, path]) => path) };
}

/** Distinct `.md` paths with names that sort around "/", unicode and long names. */
function markdownPaths(next: () => number, count: number): string[] {
  const units = ["a", "b", "-", ".", " ", "(", "z", "é", "0", "~", "\u{1F600}", "A"];
  const paths = new Set<string>();
  while (paths.size < count) {
    const depth = 1 + Math.floor(next() * 4);
    const names: string[] = [];
    for (let i = 0; i < depth; i++) {
      let name = ["a", "b", "p"][Math.floor(next() * 3)]!;
      const length = Math.floor(next() * (next() < 0.1 ? 60 : 5));
      for (let j = 0; j < length; j++) name += units[Math.floor(next() * units.length)];
      names.push(name);
    }
    paths.add(`${names.join("/")}.md`);
  }
  return [...paths];
}

async function options(pattern: string, extra: Partial<ListingOptions> = {}) {
  const glob = await compileGlob(pattern);
  return {
    root: "",
    below: 0,
    includeHidden: false,
    keep: (path: string) => glob.matches(path),
    ...(glob.suffix === undefined ? {} : { suffix: glob.suffix }),
    limit: 2000,
    also: [],
    ...extra,
  } satisfies ListingOptions;
}

const visible = (path: string) =>
  !path.split("/").some((name) => name.startsWith(".") || name === "_darcs");

Deno.test("readListing reads a large plain listing as the definition does, in any order", async () => {
  const next = random(5);
  const paths = markdownPaths(next, 12_000);
  const orders = [shuffled(paths, next), [...paths].sort(), [...paths].sort().reverse()];
  for (const limit of [1, 500, 2000, 2999]) {
    const given = await options("**/*.md", { limit });
    const want = expected(paths, given, visible);
    for (const order of orders) {
      assertEquals(readListing(`${order.join("\0")}\0`, given), want, `limit ${limit}`);
    }
  }
});

Deno.test("readListing's bulk reading survives a sample that misjudges the first paths", async () => {
  // The paths first in walk order are long and few, the rest short and many: a sample
  // spread by bytes lands mostly in the long ones and sets its bound too early.
  const long = Array.from({ length: 600 }, (_, i) => `a/${"x".repeat(300)}${i}.md`);
  const short = Array.from({ length: 9000 }, (_, i) => `b/${i}.md`);
  const paths = [...long, ...short];
  const given = await options("**/*.md");
  const read = readListing(`${shuffled(paths, random(3)).join("\0")}\0`, given);
  assertEquals(read, expected(paths, given, visible));
  assertEquals(read.files.slice(0, 600), expected(long, given, visible).files);
});

Deno.test("readListing tests each path where a name needs it, and counts what fd missed", async () => {
  const next = random(9);
  const plain = markdownPaths(next, 9000);
  const odd = [
    ".hidden.md", // a .gitignore `!` rule brought it back
    "a/.h/x.md",
    "_darcs/p.md",
    "b/_darcs/q.md",
    "_darcsx/r.md",
    "c/README.MD", // fd's --extension ignores case, the pattern does not
    "line\nbreak.md",
    "tab\tname.md",
  ];
  for (const extra of odd) {
    const paths = [...plain, extra];
    const given = await options("**/*.md");
    const read = readListing(`${shuffled(paths, next).join("\0")}\0`, given);
    assertEquals(read, expected(paths, given, visible), JSON.stringify(extra));
  }
  // Denied files the walk would list count too, merged into the first ones.
  const given = await options("**/*.md", { also: ["a/denied.md", "zz/denied.txt"] });
  const read = readListing(`${plain.join("\0")}\0`, given);
  assertEquals(read, expected(plain, given, visible));
  // A pattern that is no suffix, and a hidden pattern, take the path-by-path reading.
  for (const pattern of ["a*/**/*.md", "**/.*"]) {
    const hidden = await options(pattern, { includeHidden: pattern.includes(".*") });
    const all = [...plain, ...odd];
    const shows = (path: string) => hidden.includeHidden || visible(path);
    assertEquals(readListing(`${all.join("\0")}\0`, hidden), expected(all, hidden, shows));
  }
});

Deno.test("readListing strips the root fd printed paths under", async () => {
  const next = random(13);
  const paths = markdownPaths(next, 9000).map((path) => `src/${path}`);
  const given = await options("*.md", { root: "/w", below: "src/".length });
  const printed = `${paths.map((path) => `/w/${path}`).join("\0")}\0`;
  assertEquals(readListing(printed, given), expected(paths, given, visible));
});
