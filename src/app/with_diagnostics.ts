// The one place today's call path reaches the edit diagnostics (src/diagnostics/): after a
// successful write_file, edit_file, replace_lines or insert_lines, the file's new problems go
// into the same result. The texts before and after come from the tool's own preview, run in
// its sandbox before the call (as the approval prompt's diff does), so harness reads no file
// here. When calls run through named stages (DESIGN.md decision 20), this is an `after` stage.

import type { ToolRun, ToolRunner } from "../tools/tool_runner.ts";
import type { EditDiagnostics } from "../diagnostics/edit_diagnostics.ts";
import { resolve } from "node:path";

/** The tools whose edits are checked. */
export const DIAGNOSED_TOOLS: ReadonlySet<string> = new Set([
  "write_file",
  "edit_file",
  "replace_lines",
  "insert_lines",
]);

/**
 * The runner with diagnostics after each edit tool's successful call.
 *
 * @param runner The tools.
 * @param diagnostics The workspace's engine.
 * @param workspace Where the calls' paths are relative to.
 */
export function withDiagnostics(
  runner: ToolRunner,
  diagnostics: EditDiagnostics,
  workspace: string,
): ToolRunner {
  const checked: ToolRunner = {
    list: () => runner.list(),
    validate: (name, args) => runner.validate(name, args),
    close: () => runner.close(),
    async run(name, args, options): Promise<ToolRun> {
      const builtin = runner.list().find((tool) => tool.name === name)?.origin === "builtin";
      if (!DIAGNOSED_TOOLS.has(name) || !builtin || !runner.preview) {
        return await runner.run(name, args, options);
      }
      const preview = await runner.preview(name, args, options.state).catch(() => undefined);
      if (preview && "change" in preview) {
        // The text before is parsed while the tool runs: the check after reparses the edit only.
        diagnostics.prepare(resolve(workspace, preview.change.path), preview.change.before);
      }
      const run = await runner.run(name, args, options);
      if (!run.result.success || !preview || !("change" in preview)) return run;
      const { change } = preview;
      const text = await diagnostics.check({
        path: change.path,
        absolute: resolve(workspace, change.path),
        before: change.before,
        after: change.after,
      }).catch(() => undefined);
      if (text === undefined) return run;
      const data = `${run.result.data ?? ""}\n\n${text}`;
      return {
        ...run,
        result: {
          ...run.result,
          data,
          metadata: {
            ...run.result.metadata,
            data_size_bytes: new TextEncoder().encode(data).length,
          },
        },
      };
    },
  };
  // The runner's optional parts pass through (the approval prompt's diff comes from preview).
  if (runner.ready) checked.ready = () => runner.ready!();
  if (runner.unavailableReason) {
    checked.unavailableReason = (name) => runner.unavailableReason!(name);
  }
  if (runner.preview) checked.preview = (name, args, state) => runner.preview!(name, args, state);
  return checked;
}
