import assert from "node:assert/strict";
import { posix } from "node:path";
import { posixPath } from "../../src/platform/paths.ts";

// Segments that exercise normalisation: dots, empties, names with dots, and a space.
const SEGMENTS = ["", ".", "..", "a", "b", "c.d", "..e", ".f", "g h"];

/** Deterministic pseudo-random paths built from SEGMENTS (a fixed seed, so failures repeat). */
function* samplePaths(count: number): Generator<string> {
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < count; i++) {
    const parts = Array.from({ length: next(5) }, () => SEGMENTS[next(SEGMENTS.length)]!);
    const lead = next(3) === 0 ? "/" : "";
    const trail = next(4) === 0 ? "/" : "";
    yield lead + parts.join("/") + trail;
  }
}

const FIXED = ["", "/", "//", "/a//b/", "./", "../", "a/..", "/..", "/a/../..", "a/../../b", "x/"];

Deno.test("posixPath.join() agrees with node:path.posix.join", () => {
  const paths = [...FIXED, ...samplePaths(3000)];
  for (let i = 0; i < paths.length; i++) {
    const a = paths[i]!, b = paths[(i * 7 + 3) % paths.length]!;
    assert.equal(posixPath.join(a), posix.join(a), `join(${JSON.stringify(a)})`);
    assert.equal(posixPath.join(a, b), posix.join(a, b), `join(${JSON.stringify([a, b])})`);
  }
  assert.equal(posixPath.join(), posix.join());
});

Deno.test("posixPath.resolve() agrees with node:path.posix.resolve", () => {
  const paths = [...FIXED, ...samplePaths(3000)];
  for (let i = 0; i < paths.length; i++) {
    const a = paths[i]!, b = paths[(i * 11 + 5) % paths.length]!;
    const args = ["/w/x", a, b];
    assert.equal(posixPath.resolve(...args), posix.resolve(...args), JSON.stringify(args));
    assert.equal(posixPath.resolve(a), posix.resolve(a), JSON.stringify(a));
  }
});

Deno.test("posixPath.relative() agrees with node:path.posix.relative", () => {
  const paths = [...FIXED, ...samplePaths(2000)];
  for (let i = 0; i < paths.length; i++) {
    const from = paths[i]!, to = paths[(i * 13 + 1) % paths.length]!;
    assert.equal(
      posixPath.relative(from, to),
      posix.relative(from, to),
      `relative(${JSON.stringify([from, to])})`,
    );
  }
  assert.equal(posixPath.relative("/w", "/w"), "");
  assert.equal(posixPath.relative("/w/a", "/w/ab"), "../ab");
});

Deno.test("posixPath.isAbsolute() agrees with node:path.posix.isAbsolute", () => {
  for (const path of [...FIXED, ...samplePaths(200)]) {
    assert.equal(posixPath.isAbsolute(path), posix.isAbsolute(path), JSON.stringify(path));
  }
});

// Segments that exercise names: dots in every place, and doubled separators.
const NAMES = ["", ".", "..", "a", "b.c", "..e", ".f", "g.", "a.b.c", "...", "/"];

/** Deterministic pseudo-random paths built from NAMES, with leading and doubled separators. */
function* namePaths(count: number): Generator<string> {
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < count; i++) {
    const parts = Array.from({ length: next(5) }, () => NAMES[next(NAMES.length)]!);
    yield (next(3) === 0 ? "/" : "") + parts.join("/") + ["", "/", "//"][next(3)]!;
  }
}

Deno.test("posixPath's dirname, basename, extname and normalize agree with node:path.posix", () => {
  const fixed = [...FIXED, "//a", "//a/b", "/a.", ".a", "a..", "a/.b.", "a.b/"];
  for (const path of [...fixed, ...namePaths(20000)]) {
    const name = JSON.stringify(path);
    assert.equal(posixPath.dirname(path), posix.dirname(path), `dirname(${name})`);
    assert.equal(posixPath.basename(path), posix.basename(path), `basename(${name})`);
    assert.equal(posixPath.extname(path), posix.extname(path), `extname(${name})`);
    assert.equal(posixPath.normalize(path), posix.normalize(path), `normalize(${name})`);
  }
  assert.equal(posixPath.delimiter, posix.delimiter);
});
