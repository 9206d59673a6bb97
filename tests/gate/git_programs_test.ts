// What git would run or read, as a repository's config names it: every key whose command
// starts with a path, core.hooksPath wherever it points, and included config files read in turn.

import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { join } from "node:path";
import { gitProgramPaths, parseGitConfig } from "../../src/gate/git_programs.ts";

Deno.test("parseGitConfig() reads sections, subsections, quotes, comments and continued lines", () => {
  const text = [
    "# comment",
    "[core]",
    '\tfsmonitor = "./a b.sh" ; trailing',
    "\tbare",
    '[diff "x"]',
    "\ttextconv = ./conv \\",
    "  --flag",
    "[alias.Old]",
    "\tst = !./st.sh",
    "[core] editor = ./ed",
  ].join("\n");
  assertEquals(parseGitConfig(text).map((e) => `${e.name}=${e.value}`), [
    "core.fsmonitor=./a b.sh",
    "core.bare=true",
    "diff.x.textconv=./conv   --flag",
    "alias.old.st=!./st.sh",
    "core.editor=./ed",
  ]);
});

Deno.test("gitProgramPaths() finds hooksPath anywhere, drivers, aliases and included files", async () => {
  const w = await Deno.realPath(await Deno.makeTempDir());
  const elsewhere = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(join(w, ".git"));
    for (const name of ["watch.sh", "clean.sh", "st.sh", "extra.cfg"]) {
      await Deno.writeTextFile(join(w, name), "");
    }
    await Deno.writeTextFile(
      join(w, "extra.cfg"),
      '[merge "m"]\n\tdriver = ./clean.sh %O %A\n',
    );
    await Deno.writeTextFile(
      join(w, ".git", "config"),
      [
        "[core]",
        "\tfsmonitor = ./watch.sh",
        `\thooksPath = ${elsewhere}/hooks`,
        "\tpager = less",
        '[filter "f"]',
        "\tclean = ./clean.sh %f",
        "[alias]",
        "\tst = !./st.sh",
        '[remote "origin"]',
        "\turl = ./st.sh",
        "[include]",
        "\tpath = ../extra.cfg",
      ].join("\n"),
    );
    const found = gitProgramPaths([join(w, ".git", "config")], { workTree: w });
    assertEquals(found.map((p) => [p.path, p.source.split(" in ")[0]]), [
      [join(w, "watch.sh"), "core.fsmonitor"],
      [join(elsewhere, "hooks"), "core.hookspath"],
      [join(w, "clean.sh"), "filter.f.clean"],
      [join(w, "st.sh"), "alias.st"],
      [join(w, "extra.cfg"), "include.path"],
      [join(w, "clean.sh"), "merge.m.driver"],
    ]);
  } finally {
    await Deno.remove(w, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});
