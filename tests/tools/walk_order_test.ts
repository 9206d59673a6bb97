// firstInWalkOrder against the walk itself: the built-in walk's order of a real tree with
// names that sort around "/" ("a-b", "a.b", "a b", "a"), and every cap. Then the pieces the
// capped listing of fd's output is made of (compareWithKey, pathsBefore, WalkOrderTop)
// against a plain sort by walkOrderKey, on generated paths with those names, surrogate
// pairs, private-use characters and names longer than pathsBefore spells out; and all of them
// against the walk of a real tree whose names hold tabs, line breaks, \x01 and U+2028.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { walkTree } from "../../src/tools/search/walk_tree.ts";
import {
  compareWithKey,
  firstInWalkOrder,
  pathsBefore,
  walkOrderKey,
  WalkOrderTop,
} from "../../src/tools/search/walk_order.ts";

Deno.test("firstInWalkOrder gives the walk's order, whole and capped, from any order", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const files = [
      "a/x",
      "a/b/y",
      "a-b/x",
      "a.b/x",
      "a b/c",
      "ab",
      "a0",
      "A/z",
      "é/x",
      "z/deep/er/still/f",
      "z/deep/er/f",
      "z/deep.f",
      "z/deep-f",
    ];
    for (const file of files) {
      await Deno.mkdir(`${dir}/${file.split("/").slice(0, -1).join("/")}`, { recursive: true });
      await Deno.writeTextFile(`${dir}/${file}`, "");
    }
    const walked: string[] = [];
    walkTree(dir, "", {
      includeHidden: false,
      respectGitignore: false,
      visit(entry) {
        if (entry.kind !== "dir") walked.push(entry.path);
      },
    });
    assertEquals(walked.length, files.length);
    const shuffled = [...walked].reverse();
    shuffled.push(...shuffled.splice(0, 5));
    for (let limit = 0; limit <= walked.length + 1; limit++) {
      assertEquals(firstInWalkOrder(shuffled, limit), walked.slice(0, limit), `limit ${limit}`);
    }
    assertEquals(firstInWalkOrder(shuffled, Infinity), walked);
    // The sort key the other searches use agrees.
    const byKey = [...shuffled].sort((p, q) => walkOrderKey(p) < walkOrderKey(q) ? -1 : 1);
    assertEquals(byKey, walked);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("firstInWalkOrder puts a file before the contents of a folder sorting after it", () => {
  assertEquals(firstInWalkOrder(["a/b/c", "a/b", "a"], 3), ["a", "a/b", "a/b/c"]);
  assertEquals(firstInWalkOrder([], 5), []);
});

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Distinct paths from characters that sort around "/", a surrogate pair and U+E000. */
function generatedPaths(next: () => number, count: number): string[] {
  const units = ["a", "b", "-", ".", " ", "!", "z", "é", "0", "~", "\u{1F600}", "\uE000", "A"];
  const pick = () => units[Math.floor(next() * units.length)]!;
  const paths = new Set<string>();
  while (paths.size < count) {
    const depth = 1 + Math.floor(next() * 4);
    const names: string[] = [];
    for (let i = 0; i < depth; i++) {
      // Some names are longer than pathsBefore spells out (48 code units).
      let name = pick();
      const length = Math.floor(next() * (next() < 0.2 ? 70 : 4));
      for (let j = 0; j < length; j++) name += pick();
      names.push(name);
    }
    paths.add(names.join("/"));
  }
  return [...paths];
}

function byKey(paths: readonly string[]): string[] {
  return [...paths].sort((p, q) => walkOrderKey(p) < walkOrderKey(q) ? -1 : 1);
}

Deno.test("compareWithKey and pathsBefore order paths as their walk-order keys do", () => {
  const next = random(7);
  const paths = generatedPaths(next, 400);
  const listing = `${paths.join("\0")}\0`;
  for (let round = 0; round < 40; round++) {
    const pivot = paths[Math.floor(next() * paths.length)]!;
    const key = walkOrderKey(pivot);
    const before = paths.filter((path) => walkOrderKey(path) < key);
    let at = 0;
    for (const path of paths) {
      const sign = Math.sign(compareWithKey(listing, at, at + path.length, key));
      assertEquals(sign, Math.sign(walkOrderKey(path) < key ? -1 : path === pivot ? 0 : 1), path);
      at += path.length + 1;
    }
    // Every path before the pivot is found; past 48 code units a match may only share them.
    const found = (`\0${listing}`.match(pathsBefore(key)) ?? []).map((match) => match.slice(1));
    const exact = found.filter((path) => walkOrderKey(path) < key);
    assertEquals(exact, before, JSON.stringify(pivot));
    for (const path of found) {
      if (walkOrderKey(path) >= key) assertEquals(path.slice(0, 48), pivot.slice(0, 48));
    }
  }
});

Deno.test("WalkOrderTop keeps the first paths of a listing fed in any order", () => {
  const next = random(11);
  const paths = generatedPaths(next, 3000);
  const sorted = byKey(paths);
  // Shuffled, in walk order and in reverse (every path then tightens the bound).
  const shuffled = [...paths].sort(() => next() - 0.5);
  for (const order of [shuffled, sorted, [...sorted].reverse()]) {
    for (const limit of [0, 1, 7, 500, 2999, 3000, Infinity]) {
      const top = new WalkOrderTop(limit);
      const listing = `${order.join("\0")}\0`;
      let at = 0;
      for (const path of order) {
        top.offer(listing, at, at + path.length);
        at += path.length + 1;
      }
      assertEquals(top.first(), sorted.slice(0, limit), `limit ${limit}`);
    }
  }
});

Deno.test("the walk-order pieces agree with the walk on names with control characters", async () => {
  // Characters below "/" that a name may hold (tab, line breaks, \x01, space, "!", "-", "."),
  // U+2028 and a surrogate pair: a real tree, walked, then its listing shuffled.
  const dir = await Deno.makeTempDir();
  try {
    const names = ["a", "a\tb", "a\nb", "a\x01", "a b", "a!", "a-", "a.", "a\u2028", "a\u{1F600}"];
    for (const folder of names) {
      await Deno.mkdir(`${dir}/${folder}/${folder}`, { recursive: true });
      for (const name of names) {
        if (name === folder) continue;
        await Deno.writeTextFile(`${dir}/${folder}/${name}`, "");
        await Deno.writeTextFile(`${dir}/${folder}/${folder}/${name}`, "");
      }
    }
    const walked: string[] = [];
    walkTree(dir, "", {
      includeHidden: false,
      respectGitignore: false,
      visit(entry) {
        if (entry.kind !== "dir") walked.push(entry.path);
      },
    });
    assertEquals(walked.length, 2 * names.length * (names.length - 1));
    const next = random(5);
    const shuffled = [...walked].sort(() => next() - 0.5);
    assertEquals(byKey(shuffled), walked);
    for (const limit of [1, 10, 95, walked.length]) {
      assertEquals(firstInWalkOrder(shuffled, limit), walked.slice(0, limit), `limit ${limit}`);
    }
    const listing = `${shuffled.join("\0")}\0`;
    for (const pivot of [walked[0]!, walked[37]!, walked[121]!, walked.at(-1)!]) {
      const key = walkOrderKey(pivot);
      const found = (`\0${listing}`.match(pathsBefore(key)) ?? []).map((match) => match.slice(1));
      assertEquals(byKey(found), walked.slice(0, walked.indexOf(pivot)), JSON.stringify(pivot));
      let at = 0;
      for (const path of shuffled) {
        const sign = Math.sign(compareWithKey(listing, at, at + path.length, key));
        assertEquals(sign, Math.sign(walked.indexOf(path) - walked.indexOf(pivot)), path);
        at += path.length + 1;
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
