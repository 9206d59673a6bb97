// The turn seams skills use (agent/turn_hooks.ts), around the configured hooks: with each user
// message, skills installed since the start are announced (the system prompt stays as it was,
// so the server's cache keeps the prefix), and after a compaction the skills loaded before it
// are sent again with the next message, since the summary replaced their text.

import type { TurnHooks } from "../agent/turn_hooks.ts";
import type { Message } from "../messages.ts";
import { oneLine } from "../skills/skill_catalog.ts";
import type { SkillDefinition } from "../skills/skill_files.ts";
import { skillsInMessages } from "../skills/skill_tools.ts";
import type { RunSkills } from "./run_skills.ts";

/** The note a skill installed mid-session goes to the model with. */
export function announceSkills(skills: readonly SkillDefinition[]): string {
  return [
    `New skill${skills.length === 1 ? "" : "s"} installed since the session started ` +
    "(call skill with the name to read one):",
    ...skills.map((skill) => `- ${skill.name}: ${oneLine(skill.description)}`),
  ].join("\n");
}

/**
 * The conversation's turn hooks with the skills' added.
 *
 * @param inner The configured hooks, if any.
 * @param skills The workspace's skills.
 * @param messages The conversation's messages.
 */
export function skillTurnHooks(
  inner: TurnHooks | undefined,
  skills: RunSkills,
  messages: () => readonly Message[],
): TurnHooks {
  let loaded = new Set<string>();
  const remember = () => {
    for (const name of skills.tools.takeLoaded()) loaded.add(name);
    for (const name of skillsInMessages(messages())) loaded.add(name);
  };
  const join = (a: string | undefined, b: string) => a === undefined ? b : `${a}\n\n${b}`;
  return {
    async promptSubmitted(prompt, signal) {
      const verdict = inner ? await inner.promptSubmitted(prompt, signal) : { notices: [] };
      remember();
      const added = await skills.added();
      if (added.length === 0 || verdict.block !== undefined || verdict.stop !== undefined) {
        return verdict;
      }
      if (skills.tools.list().length === 0) {
        const names = added.map((skill) => skill.name).join(", ");
        return {
          ...verdict,
          notices: [
            ...verdict.notices,
            `Skill installed: ${names}; it is offered from the next start`,
          ],
        };
      }
      return { ...verdict, context: join(verdict.context, announceSkills(added)) };
    },
    stopping(answer, active, signal) {
      remember();
      return inner ? inner.stopping(answer, active, signal) : Promise.resolve({ notices: [] });
    },
    async sessionStarted(source, signal) {
      const verdict = inner ? await inner.sessionStarted(source, signal) : { notices: [] };
      if (source !== "compact") {
        if (source === "clear") loaded = new Set();
        return verdict;
      }
      for (const name of skills.tools.takeLoaded()) loaded.add(name);
      const present = skillsInMessages(messages());
      const again = [...loaded].filter((name) => !present.has(name))
        .flatMap((name) => skills.tools.get(name) ?? []);
      if (again.length === 0) return verdict;
      const text = [
        "The skills you loaded before the conversation was compacted, as you read them:",
        ...again.map((skill) => skills.tools.text(skill)),
      ].join("\n\n");
      return { ...verdict, context: join(verdict.context, text) };
    },
  };
}
