// discoverSkills() on real SKILL.md folders (tests/fixtures/real_files) laid out in temp
// workspaces and homes: the folders of each agent, names and places, links, trust, and one line
// per skill that cannot be loaded.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { discoverSkills } from "../../src/skills/skill_files.ts";
import { skillRoots } from "../../src/skills/skill_roots.ts";
import { realFile, realFiles } from "../helpers/real_files.ts";

const trustAll = (files: readonly string[]) => Promise.resolve({ load: files, untrusted: "" });

function repo(): string {
  const dir = Deno.makeTempDirSync({ prefix: "skills_" });
  mkdirSync(join(dir, ".git"));
  return dir;
}

/** Copies the folder of a real SKILL.md to `target`. */
function place(fixture: string, target: string): void {
  mkdirSync(dirname(target), { recursive: true });
  cpSync(dirname(realFile(fixture)), target, { recursive: true });
}

Deno.test("discoverSkills() finds real skills in .claude, .codex and .gemini of a project", async () => {
  const cwd = repo();
  cpSync(realFile("places/clio"), cwd, { recursive: true });
  place(
    "skills/gemini-cli/.gemini/skills/docs-writer/SKILL.md",
    join(cwd, ".gemini/skills/docs-writer"),
  );
  const found = await discoverSkills({ cwd, trusted: trustAll });
  assertEquals(found.skills.map((s) => s.name), [
    "architect",
    "code-quality-reviewer",
    "create-mcp-tool",
    "docs-writer",
  ]);
  assertEquals(found.skipped, []);
  assert(found.skills.every((skill) => skill.scope === "project"));
});

Deno.test("discoverSkills() reads skill/ beside skills/, and a name that differs from its folder with a note", async () => {
  const cwd = repo();
  const home = Deno.makeTempDirSync();
  place(
    "skills/superpowers/skills/brainstorming/SKILL.md",
    join(home, ".config/opencode/skill/brainstorming"),
  );
  place(
    "skills/claude-code-templates/cli-tool/components/skills/development/git-commit-helper/SKILL.md",
    join(home, ".claude/skills/git-commit-helper"),
  );
  const found = await discoverSkills({ cwd, home });
  assertEquals(found.skills.map((s) => s.name), ["brainstorming", "Git Commit Helper"]);
  const helper = found.skills[1]!;
  assertEquals(helper.notes, []);
  place("skills/superpowers/skills/writing-plans/SKILL.md", join(home, ".claude/skills/plans"));
  const renamed = await discoverSkills({ cwd, home });
  const plans = renamed.skills.find((s) => s.name === "writing-plans")!;
  assertEquals(plans.notes, ['its name "writing-plans" differs from its folder "plans"']);
});

Deno.test("discoverSkills() follows a linked skill folder only inside the read grant", async () => {
  const cwd = repo();
  const home = Deno.makeTempDirSync();
  const elsewhere = Deno.makeTempDirSync();
  place("skills/skills/skills/webapp-testing/SKILL.md", join(elsewhere, "webapp-testing"));
  mkdirSync(join(home, ".claude/skills"), { recursive: true });
  symlinkSync(join(elsewhere, "webapp-testing"), join(home, ".claude/skills/webapp-testing"));
  const outside = await discoverSkills({ cwd, home });
  assertEquals(outside.skills, []);
  assertEquals(outside.skipped.length, 1);
  assert(
    outside.skipped[0]!.reason.includes("outside the read grant: allow it with --allow-read="),
  );
  const granted = await discoverSkills({
    cwd,
    home,
    readable: (path) => path.startsWith(Deno.realPathSync(elsewhere)),
  });
  assertEquals(granted.skills.map((s) => s.name), ["webapp-testing"]);
  assertEquals(granted.skills[0]!.folder, join(home, ".claude/skills/webapp-testing"));
});

Deno.test("discoverSkills(): the project's skill wins over the user's; untrusted project skills are named", async () => {
  const cwd = repo();
  const home = Deno.makeTempDirSync();
  place("skills/skills/skills/mcp-builder/SKILL.md", join(cwd, ".agents/skills/mcp-builder"));
  place("skills/skills/skills/mcp-builder/SKILL.md", join(home, ".agents/skills/mcp-builder"));
  const trusted = await discoverSkills({ cwd, home, trusted: trustAll });
  assertEquals(trusted.skills.map((s) => s.scope), ["project"]);
  assert(trusted.skipped[0]!.reason.startsWith('"mcp-builder" is defined first in'));
  const untrusted = await discoverSkills({ cwd, home });
  assertEquals(untrusted.skills.map((s) => s.scope), ["user"]);
  assertEquals(untrusted.skipped[0]!.reason, "the project's skills load only in a trusted folder");
});

Deno.test("discoverSkills() names each skill it cannot load once, with the reason, and loads the rest", async () => {
  const cwd = repo();
  const home = Deno.makeTempDirSync();
  const skills = join(home, ".claude/skills");
  place(
    "skills/superpowers/skills/systematic-debugging/SKILL.md",
    join(skills, "systematic-debugging"),
  );
  mkdirSync(join(skills, "quiet"), { recursive: true });
  writeFileSync(join(skills, "quiet/SKILL.md"), "---\nname: quiet\n---\nNo description.");
  mkdirSync(join(skills, "binary"), { recursive: true });
  writeFileSync(join(skills, "binary/SKILL.md"), new Uint8Array([0xff, 0xfe, 0x00]));
  mkdirSync(join(skills, "node_modules/dep"), { recursive: true });
  writeFileSync(join(skills, "node_modules/dep/SKILL.md"), "---\ndescription: hidden\n---\n");
  const found = await discoverSkills({ cwd, home });
  assertEquals(found.skills.map((s) => s.name), ["systematic-debugging"]);
  assertEquals(found.skipped.map((s) => [s.file.slice(skills.length + 1), s.reason]), [
    ["binary/SKILL.md", "SKILL.md is not UTF-8 text"],
    ["quiet/SKILL.md", 'it has no description: add a "description:" line to its front matter'],
  ]);
});

Deno.test("skillRoots() looks from the repository root down and in the user's folders, skill/ beside skills/", () => {
  const root = repo();
  const cwd = join(root, "pkg");
  mkdirSync(cwd);
  const roots = skillRoots({ cwd, home: "/h", configDir: "/h/.config/harness" }).map((r) => r.dir);
  for (const dot of [".agents", ".claude", ".opencode", ".gemini"]) {
    assert(roots.includes(join(root, dot, "skills")), dot);
    assert(roots.includes(join(cwd, dot, "skill")), dot);
    assert(
      roots.includes(join("/h", dot === ".opencode" ? ".config/opencode" : dot, "skills")),
      dot,
    );
  }
  assert(roots.indexOf(join(cwd, ".claude/skills")) < roots.indexOf(join(root, ".claude/skills")));
  assert(roots.includes("/h/.config/harness/skills"));
});

Deno.test("discoverSkills() loads every real SKILL.md of the corpus", async () => {
  const rows = realFiles().filter((row) => row.fixture.endsWith("/SKILL.md"));
  assert(rows.length >= 15, `${rows.length}`);
  const home = Deno.makeTempDirSync();
  rows.forEach((row, i) => place(row.fixture, join(home, ".claude/skills", `${i}`)));
  const found = await discoverSkills({ cwd: repo(), home });
  assertEquals(found.skipped, []);
  assertEquals(found.skills.length, rows.length);
  for (const skill of found.skills) assert(skill.description.length > 10, skill.name);
});
