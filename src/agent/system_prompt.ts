// The built-in system prompt: short, because local models have small contexts. It names
// the workspace, the date and how to finish; tool descriptions travel as tool schemas.

/**
 * Builds the system prompt for a workspace.
 *
 * @example
 * ```ts
 * import { buildSystemPrompt } from "./system_prompt.ts";
 * const text = buildSystemPrompt({ workspace: "/p", now: new Date(0), os: "linux", tools: ["ls"] });
 * if (!text.includes("/p")) throw new Error();
 * ```
 */
export function buildSystemPrompt(
  options: { workspace: string; now: Date; os: string; tools: string[]; custom?: string },
): string {
  if (options.custom !== undefined) return options.custom;
  const lines = [
    "You are harness, a coding agent working in the user's terminal.",
    `Workspace: ${options.workspace} (${options.os}). Today is ${
      options.now.toISOString().slice(0, 10)
    }.`,
    "Use the tools to read, search and change files and to run commands; paths are relative to the workspace.",
    "Read a file before you edit it. Make the smallest change that does the job.",
    "A tool result is JSON: when success is false, read error_message and fix the call instead of repeating it.",
    "When the work is done, answer briefly with what you did" +
    (options.tools.includes("task_complete") ? ", or call task_complete with a summary." : "."),
  ];
  return lines.join("\n");
}
