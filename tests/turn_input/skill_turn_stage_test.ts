// skillTurnStage(): skills loaded before a compaction are sent again with the next message (the
// summary replaced their text), and a skill installed while the run goes on is announced with
// the next message, after what the configured hooks said.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { cpSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { openRunSkills } from "../../src/app/run_skills.ts";
import { skillTurnStage } from "../../src/turn_input/skill_turn_stage.ts";
import { type Message, toolResultMessage } from "../../src/messages.ts";
import { emptyGrants } from "../../src/sandbox/grants/grants.ts";
import type { TurnStage } from "../../src/agent/turn_stage.ts";
import { outgoingMessage, readyMessage } from "../../src/agent/turn_kernel.ts";
import { realFile } from "../helpers/real_files.ts";

const turn = {
  sink: () => {},
  signal: new AbortController().signal,
  start: () => Promise.resolve(),
};

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

Deno.test("skillTurnStage() sends the skills loaded before a compaction again with the next message", async () => {
  const { skills, set, get } = await open();
  const stage = skillTurnStage(skills, get);
  const loaded = skills.tools.run("skill", { name: "brainstorming" });
  set([{ kind: "user", content: "plan" }, toolResultMessage("c1", "skill", loaded.result)]);
  await stage.answered!("done", false, turn);
  set([{ kind: "user", content: "[compacted]" }]);
  const compacted = await stage.started!("compact", turn);
  assert(compacted?.includes('<skill name="brainstorming" folder="'), compacted);
  set([{ kind: "user", content: `go\n\n${compacted}` }]);
  assertEquals(await stage.started!("compact", turn), undefined);
  await stage.started!("clear", turn);
  set([]);
  assertEquals(await stage.started!("compact", turn), undefined);
});

Deno.test("skillTurnStage() announces a skill installed since the start once, after the hooks' context", async () => {
  const { home, skills, get } = await open();
  const hooks: TurnStage = {
    name: "hooks",
    send(message) {
      message.notes.push("from a hook");
      return Promise.resolve(undefined);
    },
  };
  const stages = [hooks, skillTurnStage(skills, get)];
  const send = async (text: string) => {
    const message = outgoingMessage(get, { text, images: [], notes: [] });
    assertEquals(await readyMessage(message, stages, turn), undefined);
    return message.text;
  };
  assertEquals(await send("hi"), "hi\n\nfrom a hook");
  install(home, "skills/skills/skills/mcp-builder/SKILL.md", "mcp-builder");
  const next = await send("again");
  assert(next?.startsWith("again\n\nfrom a hook\n\nNew skill installed since the session started"));
  assert(next?.includes("- mcp-builder: Guide for creating high-quality MCP"), next ?? "");
  assertEquals(await send("third"), "third\n\nfrom a hook");
  assert(skills.tools.run("skill", { name: "mcp-builder" }).result.success);
});
