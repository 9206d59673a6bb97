// A run without a model, for `harness tool` and `harness policy explain`: one folder's policy
// rules and tools, opened as a run opens them. Kept apart from open_run.ts so a one-shot call
// never loads what a conversation needs (session log and SQLite, providers).

import { ok, type Result } from "../errors.ts";
import type { Settings } from "../config/settings.ts";
import type { Grants } from "../sandbox/grants.ts";
import type { FrontEnd } from "./front_end.ts";
import {
  loadWorkspaceRules,
  openWorkspace,
  type RunFailure,
  type Workspace,
} from "./open_workspace.ts";

/** A run without a model: the tools and rules of one folder (`harness tool`, policy explain). */
export interface ToolsRun {
  settings: Settings;
  grants: Grants;
  workspace: Workspace;
  close(): Promise<void>;
}

/** What a run without a model is opened with. */
export interface ToolsRunRequest {
  settings: Settings;
  grants: Grants;
  cwd: string;
  yes: boolean;
  /** --policies FILE, loaded after the user's and the project's files. */
  policies?: string;
}

/**
 * Opens the tools and rules of one folder without a model or a session log, as a run would
 * (`harness tool`, `harness policy explain`).
 *
 * @param request Settings, grants, folder and flags.
 * @param frontEnd How questions and messages reach the user.
 * @returns The run, or why it could not open (a broken policy file: exit 2).
 */
export async function openToolsRun(
  request: ToolsRunRequest,
  frontEnd: FrontEnd,
): Promise<Result<ToolsRun, RunFailure>> {
  const rules = await loadWorkspaceRules(request.cwd, request.policies);
  if (!rules.ok) return rules;
  const workspace = await openWorkspace(
    {
      settings: request.settings,
      grants: request.grants,
      cwd: request.cwd,
      yes: request.yes,
      ...(request.policies !== undefined ? { policies: request.policies } : {}),
    },
    rules.value,
    frontEnd,
    {
      provider: () => undefined,
      contextLength: () => undefined,
      // No model here: the server is the configured one (none is looked for).
      server: () =>
        Promise.resolve({
          ...(request.settings.discover ? {} : { baseUrl: request.settings.baseUrl }),
          provider: request.settings.provider ?? "auto",
        }),
    },
  );
  return ok({
    settings: request.settings,
    grants: request.grants,
    workspace,
    close: () => workspace.close(),
  });
}
