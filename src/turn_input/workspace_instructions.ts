// The instruction files of a workspace as a run reads them: the names of `instruction_files`,
// the user's file in harness's config folder, and each file through the run's file gate. The
// workspace's own files are read without a read grant (as Claude Code and Codex read them),
// a folder above the workspace only where the read grant covers it, and a file the gate
// refuses (a link out of the grant, --deny-read, harness's data) is skipped and named. The
// banner (before the run opens) and the system prompt read them the same way.

import type { Settings } from "../config/settings.ts";
import { configDir, dataDir, homeDir } from "../config/folders.ts";
import { type LoadedInstructions, loadInstructions } from "../config/project_instructions.ts";
import { FileGate } from "../gate/file_gate.ts";
import { readingRules } from "../gate/protected_set.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
/** A gate for reading when the run's is not open yet (the banner): the same read decisions. */
function readingGate(grants: Grants): FileGate {
  return FileGate.open(readingRules(grants, { config: configDir(), data: dataDir() }));
}

/**
 * Reads a workspace's instruction files.
 *
 * @param settings The run's settings (`instruction_files`).
 * @param grants The run's grants.
 * @param cwd The workspace.
 * @param gate The workspace's file gate (left out before the run opens: one for reading).
 * @returns The files in prompt order and the ones skipped, with why.
 *
 * @example
 * ```ts
 * import { loadWorkspaceInstructions } from "./workspace_instructions.ts";
 * import { DEFAULT_SETTINGS } from "../config/settings.ts";
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
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
  gate: FileGate = readingGate(grants),
): LoadedInstructions {
  return loadInstructions(cwd, {
    names: settings.instructionFiles,
    userDir: configDir(),
    home: homeDir(),
    refused(path, scope) {
      // The workspace's files (where they really are) need no read grant; the user's own
      // file in harness's config folder none at all, and it is the user's to read there,
      // where the gate hides the rest of that folder from tools and commands.
      const verdict = gate.check("read", path, { ungranted: cwd });
      if (verdict.ok) return undefined;
      const reason = verdict.refusal.reason;
      const own = scope === "user" && (reason === "not_granted" || reason === "hidden");
      return own ? undefined : verdict.refusal.message;
    },
  });
}
