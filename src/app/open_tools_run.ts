// The tools and rules of one folder without a model or a session log: `harness tool` and
// `harness policy explain`. Apart from open_run.ts, so a one-shot call loads no provider,
// conversation or session store.

import { ok, type Result } from "../errors.ts";
import type { Settings } from "../config/settings.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import type { FrontEnd } from "./front_end.ts";
import {
  loadWorkspaceRules,
  openWorkspace,
  type RunFailure,
  type Workspace,
  type WorkspaceRequest,
} from "./open_workspace.ts";

/** A run without a model: the tools and rules of one folder. */
export interface ToolsRun {
  settings: Settings;
  grants: Grants;
  workspace: Workspace;
  close(): Promise<void>;
}

/**
 * Opens the tools and rules of one folder as a run would, without a model or a session log.
 *
 * @param request Settings, grants, folder, --yes and --policies.
 * @param frontEnd How questions and messages reach the user.
 * @returns The open tools, or why they could not open (exit 2 for a broken policy file).
 */
export async function openToolsRun(
  request: Omit<WorkspaceRequest, "mcpServers">,
  frontEnd: FrontEnd,
): Promise<Result<ToolsRun, RunFailure>> {
  const rules = await loadWorkspaceRules(request.cwd, request.policies);
  if (!rules.ok) return rules;
  const { settings, grants, cwd, yes, policies } = request;
  const workspace = await openWorkspace(
    { settings, grants, cwd, yes, ...(policies !== undefined ? { policies } : {}) },
    rules.value,
    frontEnd,
    {
      provider: () => undefined,
      contextLength: () => undefined,
      // No model here: the server is the configured one (none is looked for).
      server: () =>
        Promise.resolve({
          ...(settings.discover ? {} : { baseUrl: settings.baseUrl }),
          provider: settings.provider ?? "auto",
        }),
    },
  );
  return ok({ settings, grants, workspace, close: () => workspace.close() });
}
