// The REPL's slash commands that come from the workspace and the server: /init (a starter
// AGENTS.md), /model (list the server's models, switch keeping the conversation), the user's
// and project's custom commands (turn_input/custom_commands.ts) and the skills (app/run_skills.ts).

import type { Settings } from "../../config/settings.ts";
import { formatAgentError } from "../../errors.ts";
import type { Run } from "../../app/open_run.ts";
import type { CustomCommand } from "../../turn_input/custom_commands.ts";
import { expandCommand } from "../../turn_input/custom_commands.ts";
import { initPrompt } from "../../turn_input/init_prompt.ts";
import type { RunSkills } from "../../app/run_skills.ts";
import type { LoadedInstructions } from "../../config/project_instructions.ts";
import type { SlashCommand } from "../../ui/repl.ts";
import { terminalLine } from "../../platform/terminal_text.ts";

/**
 * The custom commands as slash commands: each sends its text as the user's message (its @
 * mentions attached). Names a built-in command has are left out. Then the skills, under the
 * names left (skillSlashCommands).
 *
 * @param commands The workspace's custom commands.
 * @param builtin The names of the built-in commands.
 * @param skills The workspace's skills, when any.
 * @returns The slash commands and a line for each name left out.
 */
export function customSlashCommands(
  commands: readonly CustomCommand[],
  builtin: ReadonlySet<string>,
  skills?: Pick<RunSkills, "commands" | "commandCall">,
): { commands: SlashCommand[]; skipped: string[] } {
  const skipped: string[] = [];
  const slash: SlashCommand[] = [];
  for (const command of commands) {
    if (builtin.has(command.name)) {
      skipped.push(`Custom command "${command.file}" is not offered: /${command.name} is built in`);
      continue;
    }
    const hint = command.argumentHint ? ` ${command.argumentHint}` : "";
    slash.push({
      name: command.name,
      summary: `${command.description}${hint} (${command.scope === "user" ? "yours" : "project"})`,
      run: async (args, repl) => {
        await repl.runTurn(expandCommand(command, args));
      },
    });
  }
  if (skills) {
    const taken = new Set([...builtin, ...slash.map((command) => command.name)]);
    slash.push(...skillSlashCommands(skills, taken));
  }
  return { commands: slash, skipped };
}

/**
 * The skills as slash commands (`/skill-name words`), as Claude Code offers them: each sends
 * the skill's text with the words put in. Names another command has are left out.
 *
 * @param skills The workspace's skills.
 * @param taken The names of the other commands.
 * @returns The slash commands.
 */
export function skillSlashCommands(
  skills: Pick<RunSkills, "commands" | "commandCall">,
  taken: ReadonlySet<string>,
): SlashCommand[] {
  return skills.commands(taken).map((skill) => ({
    name: skill.name,
    summary: `${skill.description}${skill.hint ? ` ${skill.hint}` : ""} (skill)`,
    run: async (args, repl) => {
      const text = skills.commandCall(`/${skill.name} ${args}`);
      if (text !== undefined) await repl.runTurn(text);
    },
  }));
}

/** /init: asks the model to write (or improve) the workspace's AGENTS.md from the code map. */
export function initCommand(
  instructions: LoadedInstructions,
  hasCodeMap: () => boolean,
): SlashCommand {
  return {
    name: "init",
    summary: "ask the model to write a starter AGENTS.md from the code map",
    run: async (_args, repl) => {
      // The workspace's own file (not the user's, not a parent folder's).
      const own = instructions.files.find((file) =>
        file.scope === "project" && !file.label.includes("/")
      );
      await repl.runTurn(initPrompt({
        ...(own ? { existing: own.label } : {}),
        codeMap: hasCodeMap(),
      }));
    },
  };
}

/** /model: lists the server's models, or switches to one keeping the conversation. */
export function modelCommand(run: Run, settings: Settings): SlashCommand {
  return {
    name: "model",
    summary: "list the server's models, or switch: /model NAME",
    run: async (args, repl) => {
      const { style } = repl;
      const { listServerModels, openServerModel } = await import("../../app/switch_model.ts");
      const current = run.provider.provider.model;
      const listed = await listServerModels(settings, run.provider);
      if (!listed.ok) {
        repl.write(`${style.red(terminalLine(formatAgentError(listed.error)))}\n`);
        return;
      }
      const name = args.trim();
      if (name === "") {
        const lines = listed.value.map((model) =>
          model === current ? `* ${style.bold(terminalLine(model))}` : `  ${terminalLine(model)}`
        );
        repl.write(
          `${lines.join("\n") || "The server lists no models"}\nType /model NAME to switch\n`,
        );
        return;
      }
      if (!listed.value.includes(name)) {
        repl.write(
          `${style.red(`No model "${terminalLine(name)}" on this server`)}: one of ${
            listed.value.map(terminalLine).join(", ")
          }\n`,
        );
        return;
      }
      if (name === current) {
        repl.write(`${style.dim(`Already using ${terminalLine(name)}`)}\n`);
        return;
      }
      const opened = await openServerModel(settings, run.provider, name);
      if (!opened.ok) {
        repl.write(`${style.red(terminalLine(formatAgentError(opened.error)))}\n`);
        return;
      }
      const tokenCounter = await run.useProvider(opened.value);
      repl.conversation.useModel(opened.value.provider, {
        tokenCounter,
        ...(opened.value.contextLength !== undefined
          ? { contextLength: opened.value.contextLength }
          : {}),
        ...(opened.value.contextSource !== undefined
          ? { contextSource: opened.value.contextSource }
          : {}),
      });
      const window = opened.value.contextLength === undefined
        ? "its window is not known"
        : `window ${opened.value.contextLength.toLocaleString("en-US")} tokens (${
          opened.value.contextSource ?? "stated by the server"
        })`;
      repl.write(
        `Now using ${style.bold(terminalLine(name))}: ${terminalLine(window)}; ` +
          "the conversation goes on\n",
      );
      for (const note of opened.value.notes ?? []) {
        repl.write(`${style.dim(terminalLine(note))}\n`);
      }
    },
  };
}
