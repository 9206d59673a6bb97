// SkillTools: skill(name) and skill(name, file) on real skill folders, never twice in one
// conversation, never escaping the skill's folder, never running what the skill says; and
// find_skill on the benchmark's 200 skills and 50 prompts (written before the search).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Message, toolResultMessage } from "../../src/messages.ts";
import { discoverSkills } from "../../src/skills/skill_files.ts";
import { skillsInMessages, SkillTools } from "../../src/skills/skill_tools.ts";
import { realFile } from "../helpers/real_files.ts";
import { benchPrompts, writeBenchSkills } from "../helpers/skill_bench.ts";

/** A home with one real skill (webapp-testing) given a scripts/ folder, and its tools. */
async function setup(extra?: (folder: string) => void) {
  const home = Deno.makeTempDirSync();
  const folder = join(home, ".claude/skills/webapp-testing");
  mkdirSync(dirname(folder), { recursive: true });
  cpSync(dirname(realFile("skills/skills/skills/webapp-testing/SKILL.md")), folder, {
    recursive: true,
  });
  mkdirSync(join(folder, "scripts"));
  writeFileSync(join(folder, "scripts/with_server.py"), "print('serve')\n");
  extra?.(folder);
  const found = await discoverSkills({ cwd: Deno.makeTempDirSync(), home });
  const messages: Message[] = [];
  const tools = new SkillTools(found.skills, { searchable: false, messages: () => messages });
  return { tools, messages, folder, home };
}

Deno.test("skill(name) returns the body, the folder and its files", async () => {
  const { tools, folder } = await setup();
  const run = tools.run("skill", { name: "Webapp Testing" });
  assert(run.result.success);
  const text = run.result.data!;
  assert(text.startsWith(`<skill name="webapp-testing" folder="${folder}">`), text.slice(0, 100));
  assert(
    text.includes("Files in its folder (read one with skill and file): scripts/with_server.py"),
  );
  assert(text.includes("Nothing in it has run"));
});

Deno.test("skill(name) does not send a skill twice in one conversation, and again after it left", async () => {
  const { tools, messages } = await setup();
  const first = tools.run("skill", { name: "webapp-testing" });
  messages.push(toolResultMessage("c1", "skill", first.result));
  assertEquals(skillsInMessages(messages), new Set(["webapp-testing"]));
  const second = tools.run("skill", { name: "webapp-testing" });
  assert(second.result.data!.startsWith('Skill "webapp-testing" is already in this conversation'));
  assert(second.result.data!.length < 200);
  messages.length = 0; // compacted away
  assert(tools.run("skill", { name: "webapp-testing" }).result.data!.startsWith("<skill "));
});

Deno.test("skill(name, file) reads a file of the skill's folder and nothing outside it", async () => {
  const outside = Deno.makeTempDirSync();
  writeFileSync(join(outside, "secret.txt"), "secret");
  const { tools } = await setup((folder) => {
    symlinkSync(join(outside, "secret.txt"), join(folder, "scripts/linked.txt"));
    writeFileSync(join(folder, "big.txt"), "x".repeat(200 * 1024));
  });
  const read = tools.run("skill", { name: "webapp-testing", file: "./scripts/with_server.py" });
  assertEquals(
    read.result.data,
    `File "scripts/with_server.py" of skill "webapp-testing":\nprint('serve')\n`,
  );
  for (
    const file of ["../../../../etc/passwd", "scripts/linked.txt", join(outside, "secret.txt")]
  ) {
    const refused = tools.run("skill", { name: "webapp-testing", file });
    assertEquals(refused.result.error_type, "not_found", file);
    assert(refused.result.error_message!.includes("is not a file of skill"), file);
  }
  const big = tools.run("skill", { name: "webapp-testing", file: "big.txt" });
  assert(big.result.error_message!.includes("over 128 KiB"));
});

Deno.test("skill(name) never runs a skill's !`command` lines or scripts while reading it", async () => {
  const marker = join(Deno.makeTempDirSync(), "ran");
  const { tools } = await setup((folder) => {
    const text = Deno.readTextFileSync(join(folder, "SKILL.md"));
    writeFileSync(join(folder, "SKILL.md"), `${text}\n\nContext: !\`touch ${marker}\`\n`);
  });
  const run = tools.run("skill", { name: "webapp-testing" });
  assert(run.result.data!.includes(`!\`touch ${marker}\``));
  // run() answers at once; a command it started would also be a child process this test
  // leaks, which the resource sanitizer reports.
  assert(!(await Deno.stat(marker).then(() => true, () => false)), "the command ran");
});

Deno.test("skill and find_skill say what to do next on a wrong call", async () => {
  const { tools } = await setup();
  const unknown = tools.run("skill", { name: "pdf" });
  assertEquals(unknown.result.error_message, 'No skill "pdf": installed: webapp-testing');
  assertEquals(tools.validate("skill", {}), {
    ok: false,
    error: ['"name" is required: a non-empty string'],
  });
  assertEquals(tools.validate("skill", { name: "x", path: "y" }), {
    ok: false,
    error: ['unknown argument "path": skill takes name, file'],
  });
  assertEquals(tools.list().map((tool) => tool.name), ["skill"]);
});

Deno.test("find_skill puts the right skill in its first three results for 45 or more of the 50 prompts", async () => {
  const home = Deno.makeTempDirSync();
  writeBenchSkills(join(home, ".claude/skills"));
  const found = await discoverSkills({ cwd: Deno.makeTempDirSync(), home });
  assertEquals(found.skills.length, 200);
  const tools = new SkillTools(found.skills, { searchable: true, messages: () => [] });
  const misses: string[] = [];
  for (const { expected, prompt } of benchPrompts()) {
    const run = tools.run("find_skill", { query: prompt });
    const top = run.result.data!.split("\n").slice(0, 3).map((line) =>
      /^\d+\. ([^:]+):/.exec(line)?.[1]
    );
    if (!top.includes(expected)) misses.push(`${expected} <- ${prompt}`);
  }
  assert(misses.length <= 5, `${50 - misses.length}/50; missed:\n${misses.join("\n")}`);
  assertEquals(tools.list().map((tool) => tool.name), ["skill", "find_skill"]);
});
