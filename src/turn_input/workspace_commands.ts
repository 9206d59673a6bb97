// The custom commands of a workspace: the user's own, and the project's (.harness/commands/,
// .claude/commands/) once the user trusts their content, asked as project plugins are (the
// REPL asks; a front end that cannot ask skips them with a line).

import { configDir } from "../config/folders.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { checkProjectTrust, type TrustIO } from "../permissions/project_trust.ts";
import {
  commandFiles,
  commandFolders,
  type CustomCommand,
  loadCustomCommands,
} from "./custom_commands.ts";

/** How the project's command files are named in trust questions. */
const COMMAND_WORDING = {
  noun: "project command",
  why: "Project commands are prompts this repository wrote for you to send",
  question: "Trust and offer them?",
  withoutTrust: "Not offering them",
  skipping: "Skipping",
};

/**
 * Loads a workspace's custom commands, asking about the project's files that are new or
 * changed since the user last trusted them.
 *
 * @param cwd The workspace.
 * @param options The trust questions' I/O, whether the user can answer, and the workspace's
 *   file gate.
 * @returns The commands (sorted by name) and lines about files skipped.
 */
export async function loadWorkspaceCommands(
  cwd: string,
  options: {
    io: TrustIO;
    interactive: boolean;
    userConfigDir?: string;
    gate?: FileGate;
    /** The trust store (default: the user's, in harness's config folder). */
    trustStoreFile?: string;
  },
): Promise<{ commands: CustomCommand[]; problems: string[] }> {
  const folders = commandFolders(cwd, options.userConfigDir ?? configDir());
  // The project's files pass the workspace's gate (no read grant needed inside it; a file
  // --deny-read covers, or a moved entry, is skipped with why) before they are even hashed.
  const problems: string[] = [];
  const project = folders.filter((folder) => folder.scope === "project")
    .flatMap((folder) => commandFiles(folder.dir).map((found) => found.file))
    .filter((file) => {
      const verdict = options.gate?.check("read", file, { ungranted: cwd });
      if (!verdict || verdict.ok) return true;
      problems.push(`Skipping command file "${file}": ${verdict.refusal.message}`);
      return false;
    });
  let trusted = new Set<string>();
  if (project.length > 0) {
    const trust = await checkProjectTrust(project, {
      io: options.io,
      interactive: options.interactive,
      cwd,
      wording: COMMAND_WORDING,
      ...(options.trustStoreFile ? { storeFile: options.trustStoreFile } : {}),
    });
    trusted = new Set(trust.load);
  }
  const loaded = loadCustomCommands(folders, { allow: (file) => trusted.has(file) });
  return { ...loaded, problems: [...problems, ...loaded.problems] };
}
