// `harness agents` and `harness skills` through the real CLI: they list what is found with its
// format or scope and where it came from, name the files skipped and why (the project's until
// trusted), and `trust` records the project's files as they are now.

import { deepStrictEqual as assertEquals, match } from "node:assert/strict";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { cliSandbox } from "../../helpers/run_cli.ts";
import { realFile } from "../../helpers/real_files.ts";

Deno.test("harness agents lists the agent files found, and the project's once trusted", async () => {
  await using sandbox = await cliSandbox();
  mkdirSync(`${sandbox.cwd}/.git`);
  cpSync(realFile("places/clio"), sandbox.cwd, { recursive: true });
  mkdirSync(`${sandbox.home}/.config/harness/agents`, { recursive: true });
  writeFileSync(
    `${sandbox.home}/.config/harness/agents/mine.md`,
    "---\ndescription: My own agent\ntools: Read, Grep\n---\nHelp.",
  );
  writeFileSync(`${sandbox.cwd}/.claude/agents/broken.md`, new Uint8Array([0xff, 0xfe]));
  const listed = await sandbox.run(["agents"]);
  assertEquals(listed.code, 0, listed.stderr);
  match(
    listed.stdout,
    /Agents \(1\):\n {2}mine +harness +user +~\/\.config\/harness\/agents\/mine\.md +My own agent +tools: Read, Grep/,
  );
  match(
    listed.stdout,
    /\.codex\/agents\/reviewer\.toml: untrusted: run "harness agents trust" here/,
  );
  const trusted = await sandbox.run(["agents", "trust"]);
  assertEquals(trusted.code, 0, trusted.stderr);
  match(trusted.stdout, /Agents \(8\):/);
  match(
    trusted.stdout,
    /explorer +codex +project +\.codex\/agents\/custom-explorer\.toml +Fast codebase explorer/,
  );
  match(trusted.stdout, /\.claude\/agents\/broken\.md: it is not UTF-8 text/);
  const again = await sandbox.run(["agents"]);
  match(again.stdout, /Agents \(8\):/);
  const bad = await sandbox.run(["agents", "list"]);
  assertEquals(bad.code, 2);
  match(bad.stderr, /Unexpected argument "list" for "harness agents"/);
});

Deno.test("harness skills lists skills with where they came from and the ones skipped", async () => {
  await using sandbox = await cliSandbox();
  mkdirSync(`${sandbox.cwd}/.git`);
  cpSync(realFile("places/clio/.claude"), `${sandbox.cwd}/.claude`, { recursive: true });
  const userSkill = `${sandbox.home}/.claude/skills/debugging`;
  mkdirSync(userSkill, { recursive: true });
  cpSync(
    realFile("skills/superpowers/skills/systematic-debugging/SKILL.md"),
    `${userSkill}/SKILL.md`,
  );
  const listed = await sandbox.run(["skills"]);
  assertEquals(listed.code, 0, listed.stderr);
  match(
    listed.stdout,
    /systematic-debugging +user +~\/\.claude\/skills\/debugging +Use when encountering any bug/,
  );
  match(listed.stdout, /note: its name "systematic-debugging" differs from its folder "debugging"/);
  match(
    listed.stdout,
    /\.claude\/skills\/architect\/SKILL\.md: untrusted: run "harness skills trust" here/,
  );
  const trusted = await sandbox.run(["skills", "trust"]);
  match(
    trusted.stdout,
    /architect +project +\.claude\/skills\/architect +Turn this session into the Architect/,
  );
});
