// `harness agents`, `harness skills` and `harness plugin trust` print what a cloned repository
// holds (its file names and, once trusted, the text of its files) on the user's terminal: escape
// sequences in them (an OSC 52 clipboard write, a title, a colour) must show as text, never act.

import { ok as assert } from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { cliSandbox } from "../../helpers/run_cli.ts";

const ESC = "\x1b";
const CLIPBOARD = `${ESC}]52;c;cm0gLXJmIH4=${"\x07"}`;

Deno.test("attack: harness agents and harness skills print a repository's escapes as text", async () => {
  await using sandbox = await cliSandbox();
  mkdirSync(`${sandbox.cwd}/.git`);
  mkdirSync(`${sandbox.cwd}/.claude/agents`, { recursive: true });
  writeFileSync(
    `${sandbox.cwd}/.claude/agents/x${CLIPBOARD}.md`,
    `---\ndescription: Reviews ${ESC}[8mhidden${ESC}[0m\n---\nReview.`,
  );
  mkdirSync(`${sandbox.cwd}/.claude/skills/s${CLIPBOARD}`, { recursive: true });
  writeFileSync(
    `${sandbox.cwd}/.claude/skills/s${CLIPBOARD}/SKILL.md`,
    `---\nname: s${ESC}]0;title${"\x07"}\ndescription: Does ${ESC}[2Jthings\n---\nBody.`,
  );
  for (const args of [["agents"], ["agents", "trust"], ["skills"], ["skills", "trust"]]) {
    const out = await sandbox.run(args);
    assert(out.code === 0, out.stderr);
    assert(
      !`${out.stdout}${out.stderr}`.includes(ESC),
      `${args.join(" ")}: ${JSON.stringify(out)}`,
    );
    assert(out.stdout.includes("\\x1b"), `${args.join(" ")} shows the escape as text`);
  }
});

Deno.test("attack: harness plugin trust prints a plugin file's name with its escapes as text", async () => {
  await using sandbox = await cliSandbox();
  mkdirSync(`${sandbox.cwd}/plugins`);
  writeFileSync(
    `${sandbox.cwd}/plugins/x${CLIPBOARD}.ts`,
    'export default { name: "x", description: "d", parameters: {}, run: () => "" };\n',
  );
  const out = await sandbox.run(["plugin", "trust"]);
  assert(out.code === 0, out.stderr);
  assert(!`${out.stdout}${out.stderr}`.includes(ESC), JSON.stringify(out));
  assert(out.stdout.includes("x\\x1b]52"), out.stdout);
});
