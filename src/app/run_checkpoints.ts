// The checkpoints of a run's conversations, for every front end: what they may read and write
// (the workspace's file gate), what they cover (the write grant inside the workspace; all of
// it when commands can write anywhere), where the shadow repository lives (the data folder,
// one per workspace) and the git program. A workspace's checkpoints are shared by its
// conversations; each conversation gets its own TurnCheckpoints, with the records a resumed
// session brings, and their stages: in each turn, and around a call that may change files.

import { join, relative } from "../platform/paths.ts";
import type { Settings } from "../config/settings.ts";
import { dataDir, workspaceDataDir } from "../config/folders.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import type { CommandSandbox } from "../sandbox/commands/command_sandbox.ts";
import { findProgram } from "../sandbox/commands/command_sandbox_probe.ts";
import type { TurnCheckpoint } from "../checkpoints/turn_record.ts";
import { TurnCheckpoints } from "../checkpoints/turn_checkpoints.ts";
import type { CallFlight, PlacedStage } from "../agent/call_flight.ts";
import type { ConversationStages } from "../agent/conversation_parts.ts";
import type { LoopEventSink } from "../agent/loop_events.ts";
import type { TurnStage } from "../agent/turn_stage.ts";
import { mayChangeFiles } from "../tools/tool_entry.ts";
import type { CheckpointAccess } from "../checkpoints/checkpoint_paths.ts";
import { WorkspaceCheckpoints } from "../checkpoints/workspace_checkpoints.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { openWorkspaceGate } from "./workspace_gate.ts";

/** What a run's checkpoints need. */
export interface RunCheckpointsOptions {
  cwd: string;
  grants: Grants;
  /** How commands are confined (unconfined commands can write anywhere). */
  sandbox?: Promise<CommandSandbox>;
  /** The data folder (default: harness's). */
  dataDir?: string;
  /** PATH to find git on (default: this process's). */
  path?: string;
  /** The first session's id, named to other sessions that start in the folder. */
  session?: string;
  /** Watch the folders for commands (default: where the platform's watcher can). */
  watch?: boolean;
  /** The workspace's file gate (default: one built from the grants alone). */
  gate?: FileGate;
}

/**
 * The folders of the workspace a run can change: undefined for all of it, a list of
 * workspace-relative folders, or none (no write grant reaches the workspace).
 *
 * @param grants The run's grants.
 * @param cwd The workspace.
 * @param commandsWriteAnywhere Commands can run unconfined.
 * @returns The scope.
 *
 * @example
 * ```ts
 * import { checkpointScope } from "./run_checkpoints.ts";
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * const grants = emptyGrants();
 * grants.allow.write = ["/w/src", "/elsewhere"];
 * const scope = checkpointScope(grants, "/w", false);
 * if (JSON.stringify(scope) !== '["src"]') throw new Error(JSON.stringify(scope));
 * grants.allow.write = ["/"];
 * if (checkpointScope(grants, "/w", false) !== undefined) throw new Error();
 * ```
 */
export function checkpointScope(
  grants: Grants,
  cwd: string,
  commandsWriteAnywhere: boolean,
): string[] | undefined | "none" {
  const write = grants.allow.write;
  if (write === true || commandsWriteAnywhere) return undefined;
  const scope: string[] = [];
  for (const path of write) {
    const inside = relative(cwd, path);
    if (inside === "" || inside === "..") return undefined;
    if (inside.startsWith("../") || inside.startsWith("..\\")) {
      if (relative(path, cwd).startsWith("..")) continue; // beside the workspace
      return undefined; // above it
    }
    scope.push(inside.replaceAll("\\", "/"));
  }
  return scope.length > 0 ? scope : "none";
}

/**
 * What checkpoints may read and write: what the workspace's file gate allows. A snapshot
 * never takes a file the session may not read (a --deny-read secret, anything outside the
 * read grant, harness's data folder stays out of the shadow repository), and a restore never
 * writes where the session may not (outside the write grant, the protected set).
 *
 * @param gate The workspace's file gate.
 * @returns The checks.
 *
 * @example
 * ```ts
 * import { gateAccess } from "./run_checkpoints.ts";
 * import { openWorkspaceGate } from "./workspace_gate.ts";
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * const grants = emptyGrants();
 * grants.allow.read = ["/w"];
 * grants.allow.write = ["/w"];
 * grants.deny.read = ["/w/.env"];
 * const settings = { plugins: [], namedPluginDirs: [], writableGit: false };
 * const access = gateAccess(openWorkspaceGate({ settings, grants, cwd: "/w" }));
 * if (!access.mayRead("/w/a.ts") || access.mayRead("/w/.env") || access.mayRead("/etc/x")) throw new Error();
 * if (access.mayWrite("/w/.git/config")) throw new Error();
 * ```
 */
export function gateAccess(gate: FileGate): CheckpointAccess {
  return {
    mayRead: (path) => gate.check("read", path).ok,
    mayWrite: (path) => gate.check("write", path).ok && gate.check("read", path).ok,
  };
}

/**
 * The checkpoints of one workspace in this run, shared by its conversations; undefined when
 * they are off (`checkpoints`: false). Its live claim is taken now, so another session working
 * in the folder is named at the first turn; a run that can change no file takes none.
 *
 * @param settings `checkpoints` and `checkpoint_max_file_size`.
 * @param options Workspace, grants, sandbox.
 * @returns The workspace's checkpoints.
 */
export function openWorkspaceCheckpoints(
  settings: Pick<Settings, "checkpoints" | "checkpointMaxFileSize">,
  options: RunCheckpointsOptions,
): WorkspaceCheckpoints | undefined {
  if (!settings.checkpoints) return undefined;
  const data = options.dataDir ?? dataDir();
  const runs = options.grants.allow.run === true || options.grants.allow.run.length > 0;
  return new WorkspaceCheckpoints({
    mayChange: runs || checkpointScope(options.grants, options.cwd, false) !== "none",
    workspace: options.cwd,
    gitDir: workspaceDataDir(join(data, "checkpoints"), options.cwd),
    owner: crypto.randomUUID().slice(0, 13),
    ...(options.session ? { session: options.session } : {}),
    maxFileBytes: settings.checkpointMaxFileSize,
    access: gateAccess(
      options.gate ??
        openWorkspaceGate({ settings: NO_PLUGINS, grants: options.grants, cwd: options.cwd }),
    ),
    ...(options.watch === undefined ? {} : { watch: options.watch }),
    prepare: () => prepare(options),
  });
}

/** The settings of a gate built from the grants alone (no run, no plugin folders known). */
const NO_PLUGINS = { plugins: [], namedPluginDirs: [], writableGit: false };

/** Finds git and the folders to checkpoint, or why no turn can change a file. */
async function prepare(
  options: RunCheckpointsOptions,
): Promise<{ git: string; scope?: readonly string[] } | { inactive: string }> {
  const run = options.grants.allow.run === true || options.grants.allow.run.length > 0;
  const sandbox = run ? await options.sandbox : undefined;
  const confined = sandbox?.confinement.kind === "bwrap" ||
    sandbox?.confinement.kind === "sandbox-exec";
  const scope = checkpointScope(options.grants, options.cwd, run && !confined);
  if (scope === "none") {
    return { inactive: "no write grant reaches the workspace, so no turn can change a file" };
  }
  const git = findProgram("git", options.path ?? Deno.env.get("PATH"));
  if (git === undefined) {
    const { ShadowGitError } = await import("../checkpoints/shadow_git.ts");
    throw new ShadowGitError("git was not found on PATH: install git to have /undo and /rewind");
  }
  return { git, ...(scope === undefined ? {} : { scope }) };
}

/**
 * The checkpoints of one conversation over its workspace's.
 *
 * @param workspace The workspace's checkpoints ({@linkcode openWorkspaceCheckpoints}).
 * @param records A resumed session's records.
 * @param options `closesWorkspace`: closing the conversation's checkpoints closes the workspace's.
 * @returns The conversation's TurnCheckpoints.
 */
export function conversationCheckpoints(
  workspace: WorkspaceCheckpoints,
  records: readonly TurnCheckpoint[] = [],
  options: { closesWorkspace?: boolean } = {},
): TurnCheckpoints {
  const notice = workspace.takeNotice();
  return new TurnCheckpoints({
    open: () => workspace.open(),
    othersWorking: () => workspace.othersWorking(),
    records,
    ...(notice ? { notices: [notice] } : {}),
    ...(options.closesWorkspace ? { close: () => workspace.close() } : {}),
  });
}

/**
 * Makes the checkpoints of one conversation with a workspace of its own (tests, one-off
 * runs), or undefined when they are off; closing them closes the workspace's.
 *
 * @param settings `checkpoints` and `checkpoint_max_file_size`.
 * @param options Workspace, grants and sandbox.
 * @param records A resumed session's records.
 * @returns The conversation's TurnCheckpoints.
 */
export function openCheckpoints(
  settings: Pick<Settings, "checkpoints" | "checkpointMaxFileSize">,
  options: RunCheckpointsOptions,
  records: readonly TurnCheckpoint[] = [],
): TurnCheckpoints | undefined {
  const workspace = openWorkspaceCheckpoints(settings, options);
  if (workspace === undefined) return undefined;
  return conversationCheckpoints(workspace, records, { closesWorkspace: true });
}

/** The checkpoint feature's stages: in each turn, and around each call's run. */
export interface CheckpointStages {
  /** Begins the turn's record before its message is sent, and ends it when the turn ends. */
  turn: TurnStage;
  /**
   * Before a call that may change files runs, the state of what it names (or a mark for a
   * command); the record is logged then, so a turn cut short can be undone.
   */
  gate: PlacedStage;
  /** After such a call ran: the state of what it changed, logged again. */
  after: PlacedStage;
}

/**
 * The stages of a conversation's checkpoints.
 *
 * @param checkpoints The conversation's TurnCheckpoints ({@linkcode conversationCheckpoints}).
 * @returns The turn stage and the stages around the run.
 */
export function checkpointStages(checkpoints: TurnCheckpoints): CheckpointStages {
  const logged = (sink: LoopEventSink, checkpoint?: TurnCheckpoint) => {
    for (const message of checkpoints.takeWarnings()) sink({ type: "warning", message });
    if (checkpoint) sink({ type: "checkpoint", checkpoint });
  };
  const changes = (flight: CallFlight) => mayChangeFiles(flight.entry!.info);
  return {
    turn: {
      name: "checkpoints",
      send(message, turn) {
        const { at, said } = message.position();
        checkpoints.begin(at, said);
        // Said before anything changes: another session working in the folder.
        logged(turn.sink);
        return Promise.resolve(undefined);
      },
      async end(turn) {
        logged(turn.sink, await checkpoints.end());
      },
    },
    gate: {
      name: "checkpoint",
      before: "run",
      async run(flight, scope) {
        if (!changes(flight)) return undefined;
        const { info } = flight.entry!;
        const call = { id: flight.call.id, name: info.name, args: flight.args, info };
        const progress = (message: string) => scope.sink({ type: "warning", message });
        logged(scope.sink, await checkpoints.beforeCall(call, progress));
        return undefined;
      },
    },
    after: {
      name: "checkpoint_after",
      after: "run",
      async run(flight, scope) {
        if (changes(flight)) logged(scope.sink, await checkpoints.afterCall(flight.call.id));
        return undefined;
      },
    },
  };
}

/**
 * A conversation's stages when checkpoints are its only feature (benchmarks, tests of undo).
 *
 * @param checkpoints The conversation's TurnCheckpoints.
 * @returns Its stages: the checkpoints' around each call and in each turn.
 */
export function checkpointedStages(checkpoints: TurnCheckpoints): ConversationStages {
  const { gate, after, turn } = checkpointStages(checkpoints);
  return { call: [gate, after], turn: [turn], checkpoints };
}
