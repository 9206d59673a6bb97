// The one place a run is assembled, for every front end: the run's policy rules, session log
// and provider, and its workspace (tools, approval) opened while the provider opens (after
// it, for the REPL, whose questions need the terminal the provider's progress uses). Ways to
// start or load conversations, and close() for everything opened.

import { type AgentError, err, formatAgentError, ok, type Result } from "../errors.ts";
import type { Settings } from "../config/settings.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { createNullSessionStore } from "../sessions/null_session_store.ts";
import type * as OpenSessionStore from "../sessions/open_session_store.ts";
import type { SessionStore } from "../sessions/session_store_types.ts";
import { isNoServerError } from "../providers/discover_server.ts";
import { tracePhase } from "../platform/startup_trace.ts";
import { TokenCounter } from "../providers/token_counter.ts";
import type { FrontEnd } from "./front_end.ts";
import { EXIT } from "./exit_codes.ts";
import { openProvider } from "./open_provider.ts";
import type { OpenedProvider } from "./provider_openers.ts";
import { loadWorkspaceRules, type RunFailure, type Workspace } from "./open_workspace.ts";
import { type WorkspaceExtras, Workspaces, type WorkspacesRequest } from "./workspaces.ts";
import { type RunSessions, runSessions } from "./run_sessions.ts";
import { loadOwnModule } from "../platform/own_modules.ts";

export type { RunFailure, Workspace } from "./open_workspace.ts";
export type { WorkspaceExtras } from "./workspaces.ts";

/** What a front end asks to open. */
export interface RunRequest {
  settings: Settings;
  grants: Grants;
  /** The run's folder; left out by ACP, which opens a workspace per session folder. */
  cwd?: string;
  /** --yes: approve every call the sandbox allows (policy denies still apply). */
  yes: boolean;
  /** --policies FILE. */
  policies?: string;
  /** --no-session: the null session store. */
  noSession: boolean;
  /** The provider, opening since the settings were loaded; opened here when left out. */
  provider?: Promise<Result<OpenedProvider, AgentError>>;
  /** A write to the session log failed (disk full); the run goes on. */
  onWriteError?(error: AgentError): void;
}

/** An open run. */
export interface Run {
  settings: Settings;
  grants: Grants;
  provider: OpenedProvider;
  store: SessionStore;
  /**
   * The workspace of a folder, opened once (per folder and extras); the run's own folder was
   * opened with the run. A broken policy file fails it.
   */
  workspace(cwd: string, extras?: WorkspaceExtras): Promise<Result<Workspace, RunFailure>>;
  /** Closes a workspace and forgets it: the next call for its folder opens it again. */
  closeWorkspace(workspace: Workspace): Promise<void>;
  /** The conversations of a workspace. */
  sessions(workspace: Workspace): RunSessions;
  /**
   * Uses another provider from now on (/model): new conversations and the workspaces' tools
   * get it; the previous one is closed. A conversation already going on switches itself.
   *
   * @returns The new model's token count, which its conversations share.
   */
  useProvider(provider: OpenedProvider): Promise<TokenCounter>;
  /** Closes every workspace, the session log and the provider. */
  close(): Promise<void>;
}

/**
 * Opens a run: its folder's policy rules (a broken file fails first, exit 2), the session
 * log, the provider (after an offer to run a model here when no server answers) and the
 * folder's workspace, opened while the provider opens unless the front end asks questions.
 *
 * @param request Settings, grants, folder and flags.
 * @param frontEnd How the front end asks and shows.
 * @returns The run, or why it could not open (printed by the front end, with its exit code).
 */
export async function openRun(
  request: RunRequest,
  frontEnd: FrontEnd,
): Promise<Result<Run, RunFailure>> {
  const rules = request.cwd === undefined
    ? undefined
    : await loadWorkspaceRules(request.cwd, request.policies);
  if (rules && !rules.ok) return rules;
  const store = await openStore(request);
  if (!store.ok) return store;
  tracePhase("session store opened");
  const stopped = frontEnd.storeOpened?.(store.value);
  if (stopped !== undefined) {
    store.value.close();
    return err({ exit: stopped });
  }
  const workspaces = new Workspaces(workspacesRequest(request), frontEnd);
  if (rules?.ok && request.cwd !== undefined) workspaces.useRules(request.cwd, rules.value);
  // The REPL asks its questions once the provider no longer writes its progress.
  if (request.cwd !== undefined && !frontEnd.interactive) void workspaces.open(request.cwd);
  const opened = await openProviderFor(request.settings, frontEnd, request.provider);
  if (!opened.ok) {
    await workspaces.closeAll();
    store.value.close();
    return opened;
  }
  workspaces.setProvider(opened.value);
  frontEnd.providerOpened?.(opened.value.notes ?? []);
  // One count per run: what the server taught about its tokens outlives /clear and /resume.
  let tokenCounter = new TokenCounter();
  const run: Run = {
    settings: request.settings,
    grants: request.grants,
    provider: opened.value,
    store: store.value,
    workspace: (cwd, extras) => workspaces.open(cwd, extras),
    closeWorkspace: (workspace) => workspaces.close(workspace),
    sessions: (workspace) =>
      runSessions({
        settings: request.settings,
        grants: request.grants,
        cwd: workspace.cwd,
        store: store.value,
        get opened() {
          return run.provider;
        },
        tools: workspace.tools,
        approval: workspace.approval,
        yes: request.yes,
        instructions: workspace.instructions.files,
        get tokenCounter() {
          return tokenCounter;
        },
      }),
    async useProvider(provider) {
      const previous = run.provider;
      run.provider = provider;
      // Another model's tokenizer: its conversations learn its own ratio.
      tokenCounter = new TokenCounter();
      workspaces.setProvider(provider);
      if (previous !== provider) await previous.close?.();
      return tokenCounter;
    },
    async close() {
      await workspaces.closeAll();
      store.value.close();
      await run.provider.close?.();
    },
  };
  if (request.cwd !== undefined) void workspaces.open(request.cwd);
  return ok(run);
}

/** The session log, or the null store with --no-session. */
async function openStore(request: RunRequest): Promise<Result<SessionStore, RunFailure>> {
  if (request.noSession) return ok(createNullSessionStore());
  // Loaded here (own_modules.ts): a run with --no-session never loads SQLite.
  const { openSessionStore } = await loadOwnModule<typeof OpenSessionStore>(
    "src/sessions/open_session_store.ts",
  );
  const store = openSessionStore(
    request.onWriteError ? { onWriteError: request.onWriteError } : {},
  );
  if (!store.ok) return err({ message: formatAgentError(store.error), exit: EXIT.runtime });
  return store;
}

/**
 * Opens the provider (or takes the one opening ahead). When harness looked for a server and
 * none answered, the front end may offer the default model in this process; declining or a
 * failed download fails the run.
 */
async function openProviderFor(
  settings: Settings,
  frontEnd: FrontEnd,
  ahead: Promise<Result<OpenedProvider, AgentError>> | undefined,
): Promise<Result<OpenedProvider, RunFailure>> {
  const progress = frontEnd.progress ?? {};
  let opened = await (ahead ?? openProvider(settings, progress));
  const notes: string[] = [];
  if (!opened.ok && settings.discover && isNoServerError(opened.error) && frontEnd.offerModelHere) {
    const here = await frontEnd.offerModelHere(opened.error);
    if (!here.ok) return err({ message: here.error.message, exit: EXIT.runtime });
    settings.modelFile = here.value.modelFile;
    settings.discover = false;
    notes.push(here.value.note);
    opened = await openProvider(settings, progress);
  }
  if (!opened.ok) {
    return err({
      message: formatAgentError(opened.error),
      exit: opened.error.kind === "usage" ? EXIT.usage : EXIT.runtime,
    });
  }
  tracePhase("provider opened");
  return ok({ ...opened.value, notes: [...notes, ...(opened.value.notes ?? [])] });
}

/** What every workspace of a run is opened with. */
function workspacesRequest(
  request: Pick<RunRequest, "settings" | "grants" | "yes" | "policies">,
): WorkspacesRequest {
  return {
    settings: request.settings,
    grants: request.grants,
    yes: request.yes,
    ...(request.policies !== undefined ? { policies: request.policies } : {}),
  };
}
