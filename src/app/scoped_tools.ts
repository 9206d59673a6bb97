// The tools of a narrowed scope, built from its grants: a subagent's (child_scope.ts) and plan
// mode's (plan_mode_grants.ts). Nothing is merged: the scope gets a file gate built from its
// grants, a command sandbox probed for them (with plan mode's throwaway folders), and a tool
// host of the workspace's plugins whose workers are started with them. The tools that run in
// harness itself with the workspace's grants (the code index, the skills) join only a scope
// that reads what the workspace reads; MCP servers, started with the workspace's grants, join
// none. A scope with the workspace's own grants uses the workspace's tools as they are.

import type { Settings } from "../config/settings.ts";
import type { FileGate } from "../gate/file_gate.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import type { CommandSandbox } from "../sandbox/commands/command_sandbox.ts";
import { probeCommandSandbox, withScratch } from "../sandbox/commands/command_sandbox_probe.ts";
import { protectionFromGate } from "../sandbox/commands/command_sandbox_protection.ts";
import { planGateRules } from "../sandbox/grants/plan_mode_grants.ts";
import { grantCovers } from "../sandbox/grants/permission_value.ts";
import type { ToolHost } from "../sandbox/workers/tool_host.ts";
import type { ToolSource } from "../tools/tool_entry.ts";
import type { ToolScope } from "../sandbox/grants/tool_offer.ts";
import { ToolSet } from "../tools/tool_set.ts";
import { openWorkspaceGate } from "./workspace_gate.ts";

/** What a narrowed scope runs under. */
export interface ScopeRequest {
  grants: Grants;
  /** Plan mode's throwaway folders for commands. */
  scratch?: readonly string[];
  /** Plan mode's plan folder: the one place its tools write. */
  planFolder?: string;
  /** A subagent's scope: a path the workspace's grants allow is its agent file's refusal. */
  subagent?: boolean;
}

/** The tools of one scope. */
export interface ScopedSet {
  set: ToolSet;
  grants: Grants;
  gate: FileGate;
  /** The scope's own tool host (the workspace's for the workspace's grants). */
  host: ToolHost;
  commandSandbox: Promise<CommandSandbox>;
  /** Whether these are the workspace's own tools (the scope narrowed nothing). */
  own: boolean;
}

/** The workspace's tools that narrowed scopes are built beside. */
export interface ScopedBase {
  settings: Settings;
  /** The workspace's grants. */
  grants: Grants;
  cwd: string;
  /** The root of saved outputs, as the workspace's gate has it. */
  outputsRoot: string;
  host: ToolHost;
  /** Every tool of the workspace. */
  set: ToolSet;
  gate: FileGate;
  commandSandbox: Promise<CommandSandbox>;
  /** Sources run in harness with the workspace's grants that only read (code tools, skills). */
  readers: readonly ToolSource[];
}

function runs(grants: Grants): boolean {
  return grants.allow.run === true || grants.allow.run.length > 0;
}

function sameReads(a: Grants, b: Grants): boolean {
  return JSON.stringify([a.allow.read, a.deny.read]) ===
    JSON.stringify([b.allow.read, b.deny.read]);
}

/** The tool sets of a workspace's narrowed scopes, each built once and closed with it. */
export class ScopedTools {
  readonly #base: ScopedBase;
  readonly #sets = new Map<string, ScopedSet>();

  constructor(base: ScopedBase) {
    this.#base = base;
  }

  /**
   * The tools of a scope, built on first use.
   *
   * @param request Its grants, and plan mode's folders.
   * @returns Its set, gate, host and command sandbox.
   */
  open(request: ScopeRequest): ScopedSet {
    const base = this.#base;
    const scope = [request.grants, request.scratch ?? [], request.planFolder ?? ""];
    // Nothing narrowed (a subagent with the workspace's grants): the workspace's own tools.
    if (JSON.stringify(scope) === JSON.stringify([base.grants, [], ""])) {
      const { set, gate, host, commandSandbox } = base;
      return { set, grants: base.grants, gate, host, commandSandbox, own: true };
    }
    const key = JSON.stringify([...scope, request.subagent === true]);
    const known = this.#sets.get(key);
    if (known) return known;
    const opened = this.#build(request);
    this.#sets.set(key, opened);
    return opened;
  }

  #build(request: ScopeRequest): ScopedSet {
    const base = this.#base;
    const { grants, planFolder, subagent } = request;
    // Refusals name what narrowed the grants (plan mode, the agent's file), not a flag.
    const user = base.gate.rules;
    const gate = openWorkspaceGate({
      settings: base.settings,
      grants,
      cwd: base.cwd,
      outputsRoot: base.outputsRoot,
      adjust: (rules) => {
        const planned = planFolder ? planGateRules(rules, planFolder) : rules;
        return subagent
          ? { ...planned, narrowedFrom: { read: user.read, write: user.write } }
          : planned;
      },
    });
    const commandSandbox = this.#sandbox(request, gate);
    const outside = planFolder !== undefined && !grantCovers("read", [base.cwd], planFolder);
    const host = base.host.narrowed({
      grants,
      gate,
      commandSandbox,
      ...(outside ? { planFolder } : {}),
      narrowing: {
        ...(planFolder ? { planFolder } : {}),
        ...(subagent ? { narrowedFrom: base.grants } : {}),
      },
    });
    const readers = sameReads(grants, base.grants) ? base.readers : [];
    return { set: new ToolSet([host, ...readers]), grants, gate, host, commandSandbox, own: false };
  }

  /** The scope's command sandbox: probed for its grants, with plan mode's throwaway folders. */
  #sandbox(request: ScopeRequest, gate: FileGate): Promise<CommandSandbox> {
    const { settings, cwd } = this.#base;
    if (!runs(request.grants)) {
      return Promise.resolve({
        mode: settings.commandSandbox,
        confinement: { kind: "unused" },
        env: {},
        protection: protectionFromGate(gate.rules, cwd),
      });
    }
    const probed = probeCommandSandbox(settings.commandSandbox, {
      grants: request.grants,
      env: Deno.env.toObject(),
      workspace: cwd,
      gateRules: gate.rules,
    });
    const scratch = request.scratch;
    return scratch ? probed.then((sandbox) => withScratch(sandbox, scratch)) : probed;
  }

  /** Closes every scope's host (and so its workers and jobs). */
  async close(): Promise<void> {
    const sets = [...this.#sets.values()];
    this.#sets.clear();
    await Promise.all(sets.map((scoped) => scoped.host.close()));
  }
}

/**
 * The grants a conversation's tools run under now: plan mode's while its calls run in a
 * narrowed set, else its own (or the workspace's).
 *
 * @param tools The conversation's tool scope.
 * @param grants The workspace's grants.
 * @returns The scope its subagents start from.
 */
export function scopeNow(tools: ToolScope, grants: Grants): ScopeRequest {
  const calls = tools.calls;
  if (calls === undefined) return { grants: tools.grants ?? grants };
  return {
    grants: calls.grants,
    ...(calls.scratch ? { scratch: calls.scratch } : {}),
    ...(calls.planFolder ? { planFolder: calls.planFolder } : {}),
  };
}
