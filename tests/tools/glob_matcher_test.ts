// compileGlob's own matcher for `*.ext` and `**/*.ext` against picomatch, on generated paths
// with dot-names, dots, slashes, spaces, new lines and other scripts.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import picomatch from "picomatch";
import { compileGlob } from "../../src/tools/search/glob_matcher.ts";

const PARTS = [
  "a",
  ".a",
  "ts",
  ".ts",
  "x.ts",
  ".x.ts",
  "x.TS",
  "a.b.ts",
  "x ts",
  "é.ts",
  "\n.ts",
  ".",
  "..",
  "x.tsx",
  "ts.x",
  "-.ts",
  "x..ts",
  "\r.ts",
  "\u2028x.ts",
  "x\n.ts",
  "\n",
  "a\u2029b.ts",
  "x.ts\r",
];

/** Every path of one to three parts from PARTS. */
function paths(): string[] {
  const out: string[] = [...PARTS];
  for (const a of PARTS) {
    for (const b of PARTS) {
      out.push(`${a}/${b}`);
      for (const c of ["x.ts", ".x.ts", "a"]) out.push(`${a}/${b}/${c}`);
    }
  }
  return out;
}

Deno.test("compileGlob's *.ext and **/*.ext answer as picomatch does", () => {
  for (const pattern of ["*.ts", "**/*.ts", "*.x", "**/*.x", "*.a_1", "**/*.b.ts"]) {
    const ours = compileGlob(pattern);
    const theirs = picomatch(pattern, {
      dot: false,
      basename: !pattern.includes("/"),
      windows: false,
    });
    for (const path of paths()) {
      assertEquals(ours.matches(path), theirs(path), `${pattern} on ${JSON.stringify(path)}`);
    }
  }
});
