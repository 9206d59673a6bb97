import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { skillCommandCall } from "../../src/app/run_skills.ts";
import { discoverSkills } from "../../src/skills/skill_files.ts";
import { SkillTools } from "../../src/skills/skill_tools.ts";

async function toolsWith(body: string): Promise<{ tools: SkillTools; dispose(): Promise<void> }> {
  const home = await Deno.makeTempDir();
  const folder = join(home, ".claude", "skills", "fix");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.writeTextFile(
    join(folder, "SKILL.md"),
    `---\nname: fix\ndescription: Fix an issue\nargument-hint: ISSUE FILE\n---\n${body}`,
  );
  const found = await discoverSkills({ cwd: await Deno.makeTempDir({ dir: home }), home });
  return {
    tools: new SkillTools(found.skills, { searchable: false, messages: () => [] }),
    dispose: () => Deno.remove(home, { recursive: true }),
  };
}

Deno.test("skillCommandCall() puts the words into $ARGUMENTS and $1..$9 as a Markdown command does", async () => {
  const { tools, dispose } = await toolsWith(
    "Fix issue $1 in $2; missing: [$3]. All: $ARGUMENTS\n",
  );
  try {
    const text = skillCommandCall('/fix 12 "src/a b.ts"', tools)!;
    match(text, /^<skill name="fix" folder="/);
    assert(text.includes('Fix issue 12 in src/a b.ts; missing: []. All: 12 "src/a b.ts"\n'), text);
    assert(!text.includes("ARGUMENTS:"), "placeholders used: nothing appended");
  } finally {
    await dispose();
  }
});

Deno.test("skillCommandCall() appends ARGUMENTS to a body without placeholders, and says to use it without words", async () => {
  const { tools, dispose } = await toolsWith("Fix the issue.\n");
  try {
    match(skillCommandCall("/fix 12", tools)!, /Fix the issue\.\n+ARGUMENTS: 12\n<\/skill>/);
    match(skillCommandCall("/fix", tools)!, /<\/skill>[^]*\n\nUse the skill "fix"\.$/);
    assertEquals(skillCommandCall("/Fix 12", tools), undefined);
  } finally {
    await dispose();
  }
});
