// skillTurnHooks(): skills loaded before a compaction are sent again with the next message (the
// summary replaced their text), and a skill installed while the run goes on is announced with
// the next message, the configured hooks still heard.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cpSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { openRunSkills } from "../../src/app/run_skills.ts";
import { skillTurnHooks } from "../../src/app/skill_turn_hooks.ts";
import { type Message, toolResultMessage } from "../../src/messages.ts";
import { emptyGrants } from "../../src/sandbox/grants.ts";
import type { TurnHooks } from "../../src/agent/turn_hooks.ts";
import { realFile } from "../helpers/real_files.ts";

const signal = new AbortController().signal;

function install(home: string, fixture: string, name: string): void {
  const folder = join(home, ".claude/skills", name);
  mkdirSync(dirname(folder), { recursive: true });
  cpSync(dirname(realFile(fixture)), folder, { recursive: true });
}

async function open() {
  const home = Deno.makeTempDirSync();
  install(home, "skills/superpowers/skills/brainstorming/SKILL.md", "brainstorming");
  let messages: Message[] = [];
  const skills = await openRunSkills({
    cwd: Deno.makeTempDirSync(),
    grants: emptyGrants(),
    io: { readLine: () => Promise.resolve(null), write: () => {} },
    interactive: false,
    messages: () => messages,
    home,
    configDir: join(home, ".config/harness"),
  });
  return { home, skills, set: (m: Message[]) => (messages = m), get: () => messages };
}

Deno.test("skillTurnHooks() sends the skills loaded before a compaction again with the next message", async () => {
  const { skills, set, get } = await open();
  const hooks = skillTurnHooks(undefined, skills, get);
  const loaded = skills.tools.run("skill", { name: "brainstorming" });
  set([{ kind: "user", content: "plan" }, toolResultMessage("c1", "skill", loaded.result)]);
  await hooks.stopping("done", false, signal);
  set([{ kind: "user", content: "[compacted]" }]);
  const compacted = await hooks.sessionStarted("compact", signal);
  assert(compacted.context?.includes('<skill name="brainstorming" folder="'), compacted.context);
  set([{ kind: "user", content: `go\n\n${compacted.context}` }]);
  assertEquals((await hooks.sessionStarted("compact", signal)).context, undefined);
  await hooks.sessionStarted("clear", signal);
  set([]);
  assertEquals((await hooks.sessionStarted("compact", signal)).context, undefined);
});

Deno.test("skillTurnHooks() announces a skill installed since the start once, after the configured hooks", async () => {
  const { home, skills, get } = await open();
  const inner: TurnHooks = {
    promptSubmitted: () => Promise.resolve({ context: "from a hook", notices: [] }),
    stopping: () => Promise.resolve({ notices: [] }),
    sessionStarted: () => Promise.resolve({ notices: [] }),
  };
  const hooks = skillTurnHooks(inner, skills, get);
  assertEquals(await hooks.promptSubmitted("hi", signal), { context: "from a hook", notices: [] });
  install(home, "skills/skills/skills/mcp-builder/SKILL.md", "mcp-builder");
  const next = await hooks.promptSubmitted("again", signal);
  assert(next.context?.startsWith("from a hook\n\nNew skill installed since the session started"));
  assert(
    next.context?.includes("- mcp-builder: Guide for creating high-quality MCP"),
    next.context,
  );
  assertEquals((await hooks.promptSubmitted("third", signal)).context, "from a hook");
  assert(skills.tools.run("skill", { name: "mcp-builder" }).result.success);
});
