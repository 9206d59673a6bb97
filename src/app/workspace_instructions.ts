// The instruction files of a workspace as a run reads them: the names of `instruction_files`,
// the user's file in harness's config folder, and nothing a --deny-read entry covers. The
// banner (before the run opens) and the system prompt read them the same way.

import type { Settings } from "../config/settings.ts";
import { configDir, homeDir } from "../config/folders.ts";
import { type LoadedInstructions, loadInstructions } from "../config/project_instructions.ts";
import type { Grants } from "../sandbox/grants.ts";
import { covers } from "../sandbox/permission_value.ts";

/**
 * Reads a workspace's instruction files.
 *
 * @param settings The run's settings (`instruction_files`).
 * @param grants The run's grants: a file --deny-read covers is not read.
 * @param cwd The workspace.
 * @returns The files in prompt order and the ones skipped.
 *
 * @example
 * ```ts
 * import { loadWorkspaceInstructions } from "./workspace_instructions.ts";
 * import { DEFAULT_SETTINGS } from "../config/settings.ts";
 * import { emptyGrants } from "../sandbox/grants.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/AGENTS.md`, "Run the tests.");
 * const grants = emptyGrants();
 * grants.deny.read = [`${dir}/AGENTS.md`];
 * const loaded = loadWorkspaceInstructions(DEFAULT_SETTINGS, grants, dir);
 * if (loaded.files.some((f) => f.scope === "project") || loaded.skipped.length !== 1) throw new Error();
 * ```
 */
export function loadWorkspaceInstructions(
  settings: Pick<Settings, "instructionFiles">,
  grants: Grants,
  cwd: string,
): LoadedInstructions {
  const deny = grants.deny.read;
  return loadInstructions(cwd, {
    names: settings.instructionFiles,
    userDir: configDir(),
    home: homeDir(),
    denied: (path) => deny === true || deny.some((entry) => covers("read", entry, path)),
  });
}
