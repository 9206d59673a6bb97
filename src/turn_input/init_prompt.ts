// /init: the message that asks the model to write a starter AGENTS.md for the workspace from
// the code map, or to improve the one there. The file is written with write_file, so the user
// approves it at the prompt with its diff like any other change.

/**
 * The /init message.
 *
 * @param options `existing`: the label of the workspace's instruction file, when it has one;
 *   `codeMap`: whether the code_map tool is offered.
 * @returns The user message to send.
 *
 * @example
 * ```ts
 * import { initPrompt } from "./init_prompt.ts";
 * const text = initPrompt({ codeMap: true });
 * if (!text.includes("code_map") || !text.includes("AGENTS.md")) throw new Error(text);
 * ```
 */
export function initPrompt(options: { existing?: string; codeMap: boolean }): string {
  const survey = options.codeMap
    ? "Call code_map first to see the files and their main definitions, then read the README and the build or package files it shows"
    : "List the workspace with get_file_tree or ls, then read the README and the build or package files";
  const target = options.existing === undefined
    ? "Then write AGENTS.md at the workspace root with write_file."
    : `The workspace already has ${options.existing}: read it, keep what is still true, and write the improved file back to AGENTS.md with write_file.`;
  return [
    "Write a starter AGENTS.md for this repository: the instructions a coding agent should follow here.",
    `${survey}. ${target}`,
    "Keep it short (under 60 lines) and specific to this code; no general advice. Cover:",
    "- what the project is, in one or two sentences;",
    "- how to build, run, lint and test it (exact commands, including how to run one test);",
    "- where things live: the main folders and entry points;",
    "- the code style and conventions the code already follows;",
    "- anything an agent must not do (generated files, secrets, slow or destructive commands).",
    "Do not invent commands you have not seen in the repository.",
  ].join("\n");
}
