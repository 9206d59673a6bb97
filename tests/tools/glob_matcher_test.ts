// compileGlob's own matcher for `*.ext` and `**/*.ext` against picomatch, on generated paths
// with dot-names, dots, slashes, spaces, new lines and other scripts; and picomatch stays out
// of the search tools' static imports.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import picomatch from "picomatch";
import { fileURLToPath } from "node:url";
import { compileGlob } from "../../src/tools/search/glob_matcher.ts";
import { staticImports } from "../helpers/module_graph.ts";

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

Deno.test("compileGlob's *.ext and **/*.ext answer as picomatch does", async () => {
  for (const pattern of ["*.ts", "**/*.ts", "*.x", "**/*.x", "*.a_1", "**/*.b.ts"]) {
    const ours = await compileGlob(pattern);
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

Deno.test("glob and grep_search load picomatch only for a pattern that needs it", async () => {
  // In a tool's worker its import cost about 20 ms of every call (issue 45, item 2).
  const root = fileURLToPath(new URL("../..", import.meta.url));
  for (const plugin of ["plugins/glob.ts", "plugins/grep_search.ts"]) {
    const loaded = [...await staticImports(root, plugin)];
    assertEquals(loaded.filter((path) => path.includes("picomatch")), [], plugin);
  }
  // A pattern the own matcher does not answer still gets picomatch's answer.
  const brace = await compileGlob("src/**/*.{ts,md}");
  assertEquals([brace.matches("src/a/b.md"), brace.matches("a/b.md"), brace.base], [
    true,
    false,
    "src",
  ]);
});
