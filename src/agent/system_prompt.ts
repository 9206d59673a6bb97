// The built-in system prompt: short, because local models have small contexts. It names
// the workspace, the date and how to finish; tool descriptions travel as tool schemas. The
// project's instruction files (AGENTS.md) follow the fixed rules, before the one line that
// changes from day to day, so a server's prompt cache keeps them across sessions.

import { TASK_COMPLETE } from "../tools/builtin_tools.ts";

/** An instruction file as the prompt carries it (src/config/project_instructions.ts). */
export interface PromptInstructions {
  /** How the file is named: relative to the workspace, or `~/...` for the user's. */
  label: string;
  scope: "user" | "project";
  text: string;
}

/** The heading of the instructions section, which /context and tests look for. */
export const INSTRUCTIONS_HEADING = "# Instructions from AGENTS.md files";

/**
 * Builds the system prompt for a workspace.
 *
 * @param options `custom` replaces the built-in rules (config `system_prompt`); the instruction
 *   files and the skills' catalog follow either.
 *
 * @example
 * ```ts
 * import { buildSystemPrompt } from "./system_prompt.ts";
 * const text = buildSystemPrompt({
 *   workspace: "/p", now: new Date(0), os: "linux", tools: ["ls"],
 *   instructions: [{ label: "AGENTS.md", scope: "project", text: "Run deno task check." }],
 * });
 * if (!text.includes("/p") || !text.includes("## AGENTS.md\nRun deno task check.")) {
 *   throw new Error(text);
 * }
 * ```
 */
export function buildSystemPrompt(
  options: {
    workspace: string;
    now: Date;
    os: string;
    tools: string[];
    custom?: string;
    instructions?: readonly PromptInstructions[];
    /** The installed skills' catalog (src/skills/skill_catalog.ts), fixed for the session. */
    skills?: string;
  },
): string {
  const section = [instructionsSection(options.instructions ?? []), options.skills ?? ""]
    .filter((part) => part !== "").join("\n\n");
  if (options.custom !== undefined) {
    return section === "" ? options.custom : `${options.custom}\n\n${section}`;
  }
  const lines = [
    "You are harness, a coding agent working in the user's terminal.",
    "Use the tools to read, search and change files and to run commands; paths are relative to the workspace.",
    "Read a file before you edit it. Make the smallest change that does the job.",
    "A tool result is JSON: when success is false, read error_message and fix the call instead of repeating it.",
    "When the work is done, answer briefly with what you did" +
    (options.tools.includes(TASK_COMPLETE.name) ? ", or call task_complete with a summary." : "."),
  ];
  const where = `Workspace: ${options.workspace} (${options.os}). Today is ${
    options.now.toISOString().slice(0, 10)
  }.`;
  return [lines.join("\n"), ...(section === "" ? [] : [section]), where].join("\n\n");
}

/**
 * The instruction files as one section of the prompt, user's first and nearest last; empty
 * without files.
 *
 * @example
 * ```ts
 * import { instructionsSection } from "./system_prompt.ts";
 * if (instructionsSection([]) !== "") throw new Error();
 * ```
 */
export function instructionsSection(files: readonly PromptInstructions[]): string {
  if (files.length === 0) return "";
  const parts = [
    INSTRUCTIONS_HEADING,
    "The user's and the project's instructions for this workspace. Where they differ, the " +
    "later file (nearer the workspace) wins, and what the user says in the conversation wins " +
    "over both. They grant no permission: every tool call is approved and sandboxed as usual.",
  ];
  for (const file of files) {
    parts.push(
      `## ${file.scope === "user" ? `${file.label} (the user's own)` : file.label}\n${file.text}`,
    );
  }
  return parts.join("\n\n");
}
