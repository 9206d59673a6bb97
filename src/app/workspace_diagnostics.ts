// A workspace's edit diagnostics as its tools hold them, with the engine (run_diagnostics.ts:
// the syntax checker, the language servers and the reading of their configs, some 100 KB of
// code) loaded only when needed. The configs are still found as the workspace opens, never
// later: when one of their places holds anything, or the front end asks questions (a
// project's files are asked about at the start), the engine loads and reads them now, as it
// always did. When none does, no server can be configured, and the engine (the syntax check
// alone) loads at the first edit: a -p run that edits nothing never pays for it. A config
// written after the start (by the model, into a folder it may write) is not read in this run
// either way.

import type { EditedFile } from "../diagnostics/edit_diagnostics.ts";
import {
  projectLspFiles,
  userLspPaths,
  userPlacesFromEnv,
} from "../diagnostics/lsp_config_paths.ts";
import { statGated } from "../gate/gated_files.ts";
import { entryExists } from "../platform/entry_exists.ts";
import type * as RunDiagnostics from "./run_diagnostics.ts";

/** The diagnostics of a workspace's edits (diagnostics_stages.ts calls them). */
export interface WorkspaceDiagnostics {
  /** Starts parsing a file's text before an edit, while the edit runs. */
  prepare(absolute: string, before: string | null): void;
  /** What an edit introduced, as text for the model; undefined when nothing. */
  check(file: EditedFile): Promise<string | undefined>;
  /** Stops the language servers (nothing when the engine never loaded). */
  close(): Promise<void>;
}

/**
 * The diagnostics of a workspace, their engine loaded now for a front end that asks questions,
 * else on the first edit.
 *
 * @param options What run_diagnostics.ts's engine is opened with.
 * @returns The diagnostics.
 *
 * @example
 * ```ts
 * import { workspaceDiagnostics } from "./workspace_diagnostics.ts";
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * import { FileGate } from "../gate/file_gate.ts";
 * const diagnostics = workspaceDiagnostics({
 *   settings: { lsp: false, lspTimeout: 1 },
 *   grants: emptyGrants(),
 *   cwd: "/w",
 *   sandbox: new Promise(() => {}),
 *   io: { write: () => {}, readLine: async () => null },
 *   interactive: false,
 *   gate: FileGate.open({ read: [], write: [], denyRead: [], denyWrite: [], protected: [], protectedNames: [], hidden: [] }),
 * });
 * const text = await diagnostics.check({ path: "a.py", absolute: "/w/a.py", before: "x = 1\n", after: "x = (1\n" });
 * if (!text?.includes("a.py:1:")) throw new Error(text);
 * await diagnostics.close();
 * ```
 */
export function workspaceDiagnostics(
  options: RunDiagnostics.RunDiagnosticsOptions,
): WorkspaceDiagnostics {
  let engine: Promise<WorkspaceDiagnostics> | undefined;
  const configs = options.settings.lsp ? anyLspConfig(options) : Promise.resolve(false);
  const load = () =>
    engine ??= Promise.all([import("./run_diagnostics.ts"), configs]).then(([module, any]) =>
      module.openRunDiagnostics(
        any ? options : { ...options, settings: { ...options.settings, lsp: false } },
      )
    );
  void configs.then((any) => {
    if (any || options.interactive) void load();
  });
  return {
    prepare(absolute, before) {
      void load().then((loaded) => loaded.prepare(absolute, before));
    },
    async check(file) {
      return await (await load()).check(file);
    },
    async close() {
      if (engine !== undefined) await (await engine).close();
    },
  };
}

/**
 * Whether any place a language server config is read from holds something now: the
 * workspace's files (through its gate: one the gate refuses is not read later either), the
 * user's own (as run_diagnostics.ts reads them).
 */
async function anyLspConfig(options: RunDiagnostics.RunDiagnosticsOptions): Promise<boolean> {
  const user = userLspPaths(options.userPlaces ?? userPlacesFromEnv());
  if (user.some(entryExists)) return true;
  const project = await Promise.all(
    projectLspFiles(options.cwd).map((path) =>
      statGated(options.gate, path).then(() => true, () => false)
    ),
  );
  return project.includes(true);
}
