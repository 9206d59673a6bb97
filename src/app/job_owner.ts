// A conversation's tools with its session named on every call, so run_command and the job
// tools start and see that session's background jobs only (JobTable.scope): an ACP editor's
// conversations share one workspace and its tool host, and none reads or stops another's.

import type { ToolRunner } from "../tools/tool_runner.ts";

/**
 * The runner with `owner` on every call's `jobOwner`; its other parts pass through.
 *
 * @param runner The conversation's tools.
 * @param owner Names the session (the same name reaches the same jobs).
 * @returns The same tools.
 *
 * @example
 * ```ts
 * import { withJobOwner } from "./job_owner.ts";
 * import type { ToolRunner } from "../tools/tool_runner.ts";
 * let seen: string | undefined;
 * const inner: ToolRunner = {
 *   list: () => [],
 *   validate: () => Promise.resolve({ ok: true, value: {} }),
 *   run: (_name, _args, options) => {
 *     seen = options.jobOwner;
 *     return Promise.reject(new Error("not run"));
 *   },
 *   close: () => Promise.resolve(),
 * };
 * await withJobOwner(inner, "s1").run("job_list", {}, { state: {} }).catch(() => {});
 * if (seen !== "s1") throw new Error(seen);
 * ```
 */
export function withJobOwner(runner: ToolRunner, owner: string): ToolRunner {
  const owned: ToolRunner = {
    list: () => runner.list(),
    validate: (name, args) => runner.validate(name, args),
    close: () => runner.close(),
    run: (name, args, options) => runner.run(name, args, { ...options, jobOwner: owner }),
  };
  // The optional parts pass through: the approval prompt's diff comes from preview.
  if (runner.ready) owned.ready = () => runner.ready!();
  if (runner.unavailableReason) owned.unavailableReason = (name) => runner.unavailableReason!(name);
  if (runner.preview) owned.preview = (name, args, state) => runner.preview!(name, args, state);
  return owned;
}
