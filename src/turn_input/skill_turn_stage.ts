// The skills' turn stage (agent/turn_stage.ts): with each user message, skills installed since
// the start are announced (the system prompt stays as it was, so the server's cache keeps the
// prefix), and after a compaction the skills loaded before it are sent again with the next
// message, since the summary replaced their text.

import type { TurnStage } from "../agent/turn_stage.ts";
import type { Message } from "../messages.ts";
import { oneLine } from "../skills/skill_catalog.ts";
import type { SkillDefinition } from "../skills/skill_files.ts";
// Types only: the module that parses skills (and YAML) loads with the skill tools, not here.
import type { SkillTools } from "../skills/skill_tools.ts";

/** What the stage reads of a workspace's skills (app/run_skills.ts's RunSkills has it). */
export interface TurnSkills {
  tools: SkillTools;
  /** Skills installed since the start, each returned once. */
  added(): Promise<SkillDefinition[]>;
}

/**
 * The note a skill installed mid-session goes to the model with.
 *
 * @example
 * ```ts
 * import { announceSkills } from "./skill_turn_stage.ts";
 * const note = announceSkills([{ name: "pdf", description: "Fill PDF forms" } as never]);
 * if (!note.includes("- pdf: Fill PDF forms")) throw new Error(note);
 * ```
 */
export function announceSkills(skills: readonly SkillDefinition[]): string {
  return [
    `New skill${skills.length === 1 ? "" : "s"} installed since the session started ` +
    "(call skill with the name to read one):",
    ...skills.map((skill) => `- ${skill.name}: ${oneLine(skill.description)}`),
  ].join("\n");
}

/**
 * The turn stage of a workspace's skills, placed after the hooks' (a message they refuse
 * announces nothing).
 *
 * @param skills The workspace's skills.
 * @param messages The conversation's messages.
 * @returns The stage.
 */
export function skillTurnStage(
  skills: TurnSkills,
  messages: () => readonly Message[],
): TurnStage {
  let loaded = new Set<string>();
  const remember = () => {
    for (const name of skills.tools.takeLoaded()) loaded.add(name);
    for (const name of skills.tools.inMessages(messages())) loaded.add(name);
  };
  return {
    name: "skills",
    async send(message, turn) {
      if (message.text === null) return undefined;
      remember();
      const added = await skills.added();
      if (added.length === 0) return undefined;
      if (skills.tools.list().length === 0) {
        const names = added.map((skill) => skill.name).join(", ");
        const said = `Skill installed: ${names}; it is offered from the next start`;
        turn.sink({ type: "warning", message: said });
      } else {
        message.notes.push(announceSkills(added));
      }
      return undefined;
    },
    answered() {
      remember();
      return Promise.resolve(undefined);
    },
    started(source) {
      if (source === "clear") loaded = new Set();
      if (source !== "compact") return Promise.resolve(undefined);
      for (const name of skills.tools.takeLoaded()) loaded.add(name);
      const present = skills.tools.inMessages(messages());
      const again = [...loaded].filter((name) => !present.has(name))
        .flatMap((name) => skills.tools.get(name) ?? []);
      if (again.length === 0) return Promise.resolve(undefined);
      return Promise.resolve([
        "The skills you loaded before the conversation was compacted, as you read them:",
        ...again.map((skill) => skills.tools.text(skill)),
      ].join("\n\n"));
    },
  };
}
