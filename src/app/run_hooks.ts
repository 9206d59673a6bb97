// The hooks of a run, for every front end: the user's hooks run as the user's own scripts; a
// trusted project's run through the command sandbox (bubblewrap, sandbox-exec) under the
// run's grants, and not at all where no sandbox works. Their outcomes reach the agent through
// the stages of hook_stages.ts, placed on each call's path and in each turn.

import type { Settings } from "../config/settings.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { type CommandSandbox, spawnCommand } from "../sandbox/commands/command_sandbox.ts";
import { probeCommandSandbox } from "../sandbox/commands/command_sandbox_probe.ts";
import { HookRunner, type HookSource } from "../hooks/hook_runner.ts";
import { type HookSpawner, spawnAsUser } from "../hooks/run_hook_command.ts";
import type { PlacedStage } from "../agent/call_flight.ts";
import type { TurnStage } from "../agent/turn_stage.ts";
import { hookCallStages, hookTurnStage } from "./hook_stages.ts";
import type { FileGate } from "../gate/file_gate.ts";
import { movedSentence } from "../sandbox/workers/moved_entries.ts";

/** The hooks of a run, as the conversation takes them: stages. */
export interface RunHooks {
  runner: HookRunner;
  /** PreToolUse before approval, PostToolUse after the run. */
  call: PlacedStage[];
  /** UserPromptSubmit, SessionStart and Stop. */
  turn: TurnStage;
}

/** What a run's hooks need besides the settings. */
export interface RunHooksOptions {
  cwd: string;
  grants: Grants;
  /** --yes: hooks see permission_mode "bypassPermissions". */
  yes: boolean;
  model: string;
  /** The session id hooks see (it may change with /clear or /resume). */
  sessionId(): string;
  /** The command sandbox's check (probed here, when it found none, for a project's hooks). */
  sandbox?: Promise<CommandSandbox>;
  /** The model's window in tokens, when known (what hooks add for the model is cut to a share). */
  contextLength?: () => number | undefined;
  /** The run's file gate: after hooks ran, it checks what they may have moved (issue 38). */
  gate?: FileGate;
}

/**
 * The run's hooks, or undefined when no hook is configured.
 *
 * @param settings The user's hooks and the trusted project's.
 * @param options Folder, grants, mode, model and session id.
 * @returns The runner and its stages.
 */
export function openRunHooks(
  settings: Pick<Settings, "hooks" | "projectHooks">,
  options: RunHooksOptions,
): RunHooks | undefined {
  const sources: HookSource[] = [];
  if (settings.hooks && Object.keys(settings.hooks).length > 0) {
    sources.push({ origin: "user", hooks: settings.hooks, spawn: spawnAsUser });
  }
  if (settings.projectHooks && Object.keys(settings.projectHooks).length > 0) {
    sources.push({
      origin: "project",
      hooks: settings.projectHooks,
      spawn: projectSpawner(options),
    });
  }
  if (sources.length === 0) return undefined;
  const gate = options.gate;
  const runner = new HookRunner({
    sources,
    cwd: options.cwd,
    sessionId: options.sessionId,
    permissionMode: options.yes ? "bypassPermissions" : "default",
    model: options.model,
    ...(options.contextLength ? { contextLength: options.contextLength } : {}),
    ...(gate ? { afterHooks: () => movedNotice(gate) } : {}),
  });
  return { runner, call: hookCallStages(runner, options.cwd), turn: hookTurnStage(runner) };
}

/** The sentence for entries a hook moved (each said once), or undefined. */
function movedNotice(gate: FileGate): string | undefined {
  const moved = gate.verify();
  return moved.length === 0 ? undefined : movedSentence(moved);
}

/**
 * How a project's hooks start: confined by the command sandbox built from the run's grants,
 * with the sandbox's clean environment. Without a working sandbox they do not run.
 */
async function projectSpawner(
  options: RunHooksOptions,
): Promise<HookSpawner | { refused: string }> {
  // The run's check, when it found a sandbox (it does not look without --allow-run).
  const checked = await options.sandbox;
  const sandbox = checked?.confinement.kind === "bwrap" ||
      checked?.confinement.kind === "sandbox-exec"
    ? checked
    : await probeCommandSandbox("required", {
      grants: options.grants,
      env: Deno.env.toObject(),
      workspace: options.cwd,
    }).then((probed) =>
      // The run's protection (its file gate's protected set) holds without --allow-run too.
      checked?.protection ? { ...probed, protection: checked.protection } : probed
    );
  const { confinement } = sandbox;
  if (confinement.kind !== "bwrap" && confinement.kind !== "sandbox-exec") {
    const why = confinement.kind === "none" ? confinement.reason : "no command sandbox";
    return { refused: `a project's hooks run only inside the command sandbox, and ${why}` };
  }
  const spawn: HookSpawner = (request) =>
    spawnCommand(sandbox, options.grants, {
      program: request.program,
      args: request.args,
      cwd: request.cwd,
      env: request.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    });
  return spawn;
}
