// The checkpoints of a run's conversations, for every front end: what they cover (the write
// grant inside the workspace; all of it when commands can write anywhere), where the shadow
// repository lives (the data folder, one per workspace), and the git program. A conversation
// gets its own TurnCheckpoints, with the records a resumed session brings, and their stages:
// in each turn, and the gate before a call that may change files.

import { join, relative } from "node:path";
import type { Settings } from "../config/settings.ts";
import { dataDir, workspaceDataDir } from "../config/folders.ts";
import type { Grants } from "../sandbox/grants.ts";
import type { CommandSandbox } from "../sandbox/command_sandbox.ts";
import { findProgram } from "../sandbox/command_sandbox_probe.ts";
import { CheckpointRepo } from "../checkpoints/checkpoint_repo.ts";
import { type TurnCheckpoint, TurnCheckpoints } from "../checkpoints/turn_checkpoints.ts";
import { ShadowGitError } from "../checkpoints/shadow_git.ts";
import type { PlacedStage } from "../agent/call_flight.ts";
import type { LoopEventSink } from "../agent/loop_events.ts";
import type { TurnStage } from "../agent/turn_stage.ts";
import { mayChangeFiles } from "../tools/tool_entry.ts";

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
 * import { emptyGrants } from "../sandbox/grants.ts";
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
 * Makes the checkpoints of one conversation, or undefined when they are off (`checkpoints`:
 * false). The repository opens on the first turn that may change files; then, when no write
 * grant reaches the workspace and commands are confined, nothing is ever snapshotted.
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
  if (!settings.checkpoints) return undefined;
  const maxFileBytes = settings.checkpointMaxFileSize;
  const owner = crypto.randomUUID().slice(0, 13);
  return new TurnCheckpoints({
    async open() {
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
        throw new ShadowGitError(
          "git was not found on PATH: install git to have /undo and /rewind",
        );
      }
      return await CheckpointRepo.open({
        git,
        workspace: options.cwd,
        gitDir: workspaceDataDir(join(options.dataDir ?? dataDir(), "checkpoints"), options.cwd),
        owner,
        maxFileBytes,
        ...(scope === undefined ? {} : { scope }),
      });
    },
    maxFileBytes,
    records,
  });
}

/** The checkpoint feature's stages: in each turn, and the gate before each call's run. */
export interface CheckpointStages {
  /**
   * Begins the turn's record before its message is sent, settles it each time the model is
   * asked again, and ends it (logging the files changed) when the turn ends.
   */
  turn: TurnStage;
  /** A call that may change files waits for the turn's snapshot before it runs. */
  gate: PlacedStage;
}

/**
 * The stages of a conversation's checkpoints.
 *
 * @param checkpoints The conversation's TurnCheckpoints ({@linkcode openCheckpoints}).
 * @returns The turn stage and the gate.
 */
export function checkpointStages(checkpoints: TurnCheckpoints): CheckpointStages {
  const warn = (sink: LoopEventSink) => {
    for (const message of checkpoints.takeWarnings()) sink({ type: "warning", message });
  };
  return {
    turn: {
      name: "checkpoints",
      send(message) {
        const { at, said } = message.position();
        checkpoints.begin(at, said);
        return Promise.resolve(undefined);
      },
      // The model is asked again: the files its calls changed are snapshotted meanwhile.
      request: () => checkpoints.settle(),
      async end(turn) {
        const checkpoint = await checkpoints.end();
        warn(turn.sink);
        if (checkpoint) turn.sink({ type: "checkpoint", checkpoint });
      },
    },
    gate: {
      name: "checkpoint",
      before: "run",
      async run(flight, scope) {
        if (!mayChangeFiles(flight.entry!.info)) return undefined;
        await checkpoints.beforeChange();
        checkpoints.changed();
        warn(scope.sink);
        return undefined;
      },
    },
  };
}
