// Skills are read whatever the read grant, so every way into a skill folder is a way past it: a
// cloned repository's skills folder that is a link out of the repository, a skill installed
// after the start in a folder --deny-read names, and a file of a skill's folder too large to
// hold. None may read what the grant and the gate keep out, or exhaust harness's memory.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverSkills } from "../../src/skills/skill_files.ts";
import { openRunSkills } from "../../src/app/run_skills.ts";
import { FileGate } from "../../src/gate/file_gate.ts";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";

const trustAll = (files: readonly string[]) => Promise.resolve({ load: files, untrusted: "" });

function skill(folder: string, name: string, extra: Record<string, string> = {}): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, "SKILL.md"),
    `---\nname: ${name}\ndescription: Does ${name}\n---\nGo.`,
  );
  for (const [file, text] of Object.entries(extra)) writeFileSync(join(folder, file), text);
}

Deno.test("attack: a project's skills folder linked out of the repository is read only inside the read grant", async () => {
  const cwd = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skills_repo_" }));
  const elsewhere = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skills_elsewhere_" }));
  try {
    mkdirSync(join(cwd, ".git"));
    skill(join(elsewhere, "skills", "notes"), "notes", { "id_rsa": "PRIVATE KEY\n" });
    mkdirSync(join(cwd, ".claude"));
    symlinkSync(join(elsewhere, "skills"), join(cwd, ".claude", "skills"));
    const readable = (path: string) => path === cwd || path.startsWith(`${cwd}/`);
    const found = await discoverSkills({ cwd, trusted: trustAll, readable });
    assertEquals(found.skills.map((s) => s.name), []);
    assertEquals(found.skipped.length, 1, JSON.stringify(found.skipped));
    match(found.skipped[0]!.reason, /outside the read grant: allow it with --allow-read=/);
    // Inside the repository, a linked skills folder is its own.
    const inside = join(cwd, "shared-skills");
    skill(join(inside, "notes"), "notes");
    Deno.removeSync(join(cwd, ".claude", "skills"));
    symlinkSync(inside, join(cwd, ".claude", "skills"));
    const own = await discoverSkills({ cwd, trusted: trustAll, readable });
    assertEquals(own.skills.map((s) => s.name), ["notes"]);
  } finally {
    Deno.removeSync(cwd, { recursive: true });
    Deno.removeSync(elsewhere, { recursive: true });
  }
});

Deno.test("attack: a skill installed after the start in a --deny-read folder is not announced or read", async () => {
  const home = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skills_home_" }));
  const cwd = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skills_cwd_" }));
  try {
    skill(join(home, ".claude/skills/open"), "open");
    const denied = join(home, ".claude/skills/vault");
    const gate = FileGate.open({
      read: [cwd],
      write: [],
      denyRead: [denied],
      denyWrite: [],
      protected: [],
      protectedNames: [],
      hidden: [],
    });
    const skills = await openRunSkills({
      cwd,
      grants: emptyGrants(),
      gate,
      io: { readLine: () => Promise.resolve(null), write: () => {} },
      interactive: false,
      messages: () => [],
      home,
      configDir: join(home, ".config/harness"),
    });
    assertEquals(skills.found.skills.map((s) => s.name), ["open"]);
    skill(denied, "vault");
    assertEquals((await skills.added()).map((s) => s.name), []);
    const run = skills.tools.run("skill", { name: "vault" });
    assertEquals(run.result.error_type, "not_found");
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(cwd, { recursive: true });
  }
});

Deno.test("attack: skill(name, file) of a huge file refuses it without reading it", async () => {
  const home = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skills_home_" }));
  const cwd = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skills_cwd_" }));
  try {
    const folder = join(home, ".claude/skills/big");
    skill(folder, "big");
    // Sparse: no disk, but reading it would hold all of it in memory.
    const file = await Deno.open(join(folder, "data.txt"), { write: true, create: true });
    await file.truncate(384 * 1024 * 1024);
    file.close();
    const skills = await openRunSkills({
      cwd,
      grants: emptyGrants(),
      io: { readLine: () => Promise.resolve(null), write: () => {} },
      interactive: false,
      messages: () => [],
      home,
      configDir: join(home, ".config/harness"),
    });
    const before = Deno.memoryUsage().rss;
    const run = skills.tools.run("skill", { name: "big", file: "data.txt" });
    const grew = Deno.memoryUsage().rss - before;
    assertEquals(run.result.error_type, "not_found");
    match(String(run.result.error_message), /"data\.txt" is over 128 KiB/);
    assert(grew < 128 * 1024 * 1024, `memory grew by ${Math.round(grew / 1048576)} MiB`);
  } finally {
    Deno.removeSync(home, { recursive: true });
    Deno.removeSync(cwd, { recursive: true });
  }
});
