// The edit diagnostics (src/diagnostics/) on each call's path: after a successful write_file,
// edit_file, replace_lines or insert_lines, the file's new problems go into the same result.
// The texts before and after come from the tool's own preview, run in its sandbox (through the
// call's file port, as the approval prompt's diff does) just before the run, so harness reads
// no file here; the text before is parsed while the tool runs, and the check after reparses
// only the edit.

import { resolve } from "../platform/paths.ts";
import type { CallFlight, PlacedStage } from "../agent/call_flight.ts";
import type { WorkspaceDiagnostics } from "./workspace_diagnostics.ts";
import { FILE_WRITE_TOOLS, isTool } from "../tools/builtin_tools.ts";
import type { FileChange } from "../tools/file_change.ts";
import type { ToolRun } from "../tools/tool_entry.ts";

/**
 * The diagnostics' stages: one before the run (the preview, and the text before parsed), one
 * after it (the problems the edit introduced, added to its result).
 *
 * @param diagnostics The workspace's engine.
 * @param workspace Where the calls' paths are relative to.
 * @returns The stages, to place on each call's path.
 */
export function diagnosticsStages(
  diagnostics: WorkspaceDiagnostics,
  workspace: string,
): PlacedStage[] {
  /** What each edit call's preview said it would change. */
  const changes = new WeakMap<CallFlight, FileChange>();
  return [
    {
      name: "diagnostics_before",
      before: "run",
      async run(flight, scope) {
        const entry = flight.entry;
        if (!entry?.preview || !isTool(entry.info, FILE_WRITE_TOOLS)) return undefined;
        const preview = await entry.preview(flight.args, scope.state(), scope.files)
          .catch(() => undefined);
        if (!preview || !("change" in preview)) return undefined;
        changes.set(flight, preview.change);
        diagnostics.prepare(resolve(workspace, preview.change.path), preview.change.before);
        return undefined;
      },
    },
    {
      name: "diagnostics",
      after: "run",
      async run(flight) {
        const change = changes.get(flight);
        if (!change || !flight.run?.result.success) return undefined;
        const text = await check(diagnostics, resolve(workspace, change.path), change);
        if (text === undefined) return undefined;
        flight.run = withNote(flight.run, text);
        flight.result = flight.run.result;
        return undefined;
      },
    },
  ];
}

/** The problems an edit introduced, as a note; undefined when none (or the check failed). */
function check(
  diagnostics: WorkspaceDiagnostics,
  absolute: string,
  change: FileChange,
): Promise<string | undefined> {
  const { path, before, after } = change;
  return diagnostics.check({ path, absolute, before, after }).catch(() => undefined);
}

/** The run with a note after its output (the size in its metadata follows). */
function withNote(run: ToolRun, text: string): ToolRun {
  const data = `${run.result.data ?? ""}\n\n${text}`;
  return {
    ...run,
    result: {
      ...run.result,
      data,
      metadata: { ...run.result.metadata, data_size_bytes: new TextEncoder().encode(data).length },
    },
  };
}
