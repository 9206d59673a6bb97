// What a child conversation (a subagent started by the `task` tool) may reach, narrowed from its
// parent's by construction: its tools are the parent's intersected with the agent's list, its
// grants the parent's intersected with the agent's paths, its deny lists the parent's, and its
// approvals never looser. A pure function: the child's tool workers and command sandbox are
// then built from the result as the parent's are, so nothing is merged and nothing widens.

import { err, ok, type Result } from "../../errors.ts";
import type { Grants } from "./grants.ts";
import type { Grant, PermissionName } from "./permission_name.ts";
import { covers, normalisePermissionValue } from "./permission_value.ts";

/** The tool that starts a child; a child gets it only when its agent names it. */
export const TASK_TOOL = "task";

/** What one conversation may reach. */
export interface Scope {
  /** The tools it is offered, by harness name. */
  tools: readonly string[];
  grants: Grants;
  /** 0 for the user's conversation, 1 for its children, 2 for theirs. */
  depth: number;
  /** Calls the policy would ask about run without asking (`--yes`). */
  autoApprove: boolean;
  /** Plan mode's throwaway folders for commands (plan_mode_grants.ts), when in plan mode. */
  scratch?: readonly string[];
}

/** What an agent file asks for (agent readers turn each format's fields into this). */
export interface AgentReach {
  name: string;
  /** Harness tool names; absent: every tool the parent has (except `task`). */
  tools?: readonly string[];
  /** Paths the agent may read, relative to the workspace; absent: the parent's. */
  read?: readonly string[];
  /** Paths the agent may write, relative to the workspace; absent: the parent's. */
  write?: readonly string[];
  /** The agent asks to run without approvals; it gets that only when the parent has it. */
  autoApprove?: boolean;
}

/** Why a child cannot start. */
export type ChildRefusal = { kind: "too_deep"; agent: string; depth: number; limit: number };

/** A tool an agent names that its child does not get, and why. */
export interface LeftOutTool {
  name: string;
  /** `unknown`: harness has no such tool; `not_offered`: the parent does not have it;
   * `too_deep`: `task` past max_agent_depth. */
  why: "unknown" | "not_offered" | "too_deep";
}

/** A child's scope and the tools its agent named that it does not get. */
export interface ChildScope extends Scope {
  leftOut: readonly LeftOutTool[];
}

/** Options of {@linkcode childScope}. */
export interface ChildScopeOptions {
  /** Relative agent paths start here. */
  workspace: string;
  /** How deep children may nest (`max_agent_depth`): 1 allows children, not grandchildren. */
  maxDepth: number;
  /** Every tool name harness knows here; a name outside it is reported as unknown. */
  known: ReadonlySet<string>;
}

/**
 * The intersection of two grants of one permission: what both allow. A folder in one and a
 * file inside it in the other give the file.
 *
 * @example
 * ```ts
 * import { intersectGrant } from "./child_scope.ts";
 * const both = intersectGrant("read", ["/w"], ["/w/src", "/etc"]);
 * if (JSON.stringify(both) !== '["/w/src"]') throw new Error(JSON.stringify(both));
 * ```
 */
export function intersectGrant(kind: PermissionName, a: Grant, b: Grant): Grant {
  if (a === true) return b === true ? true : [...b];
  if (b === true) return [...a];
  const kept = [
    ...a.filter((x) => b.some((y) => covers(kind, y, x))),
    ...b.filter((y) => a.some((x) => covers(kind, x, y))),
  ];
  return [...new Set(kept)];
}

function narrowedGrants(parent: Grants, agent: AgentReach, workspace: string): Grants {
  const copy = (grant: Grant): Grant => (grant === true ? true : [...grant]);
  const allow = { ...parent.allow };
  const deny = { ...parent.deny };
  for (const kind of Object.keys(allow) as PermissionName[]) {
    allow[kind] = copy(parent.allow[kind]);
    deny[kind] = copy(parent.deny[kind]);
  }
  for (const kind of ["read", "write"] as const) {
    const paths = agent[kind];
    if (paths === undefined) continue;
    const asked = paths.map((path) => normalisePermissionValue(kind, path, workspace));
    allow[kind] = intersectGrant(kind, parent.allow[kind], asked);
  }
  return { allow, deny };
}

/**
 * The scope of a child started with `agent` from `parent`: never wider than the parent in any
 * way. A tool list is a list of what the agent may use, so a name harness does not know (real
 * agent files name tools of other programs: NotebookRead, KillShell) or one the parent lacks is
 * left out and reported in `leftOut`, never mapped to something else.
 *
 * @param parent The scope of the conversation that calls `task`.
 * @param agent What the agent file asks for.
 * @param options The workspace, the depth limit and the known tool names.
 * @returns The child's scope with what it left out, or why it cannot start.
 *
 * @example
 * ```ts
 * import { childScope } from "./child_scope.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const r = parseGrantFlags(["--allow-read=.", "--allow-write=."], { cwd: "/w" });
 * if (!r.ok) throw new Error();
 * const parent = { tools: ["read_file", "write_file", "task"], grants: r.value.grants, depth: 0, autoApprove: false };
 * const child = childScope(parent, { name: "docs", tools: ["read_file", "write_file"], write: ["docs"] }, {
 *   workspace: "/w", maxDepth: 1, known: new Set(["read_file", "write_file", "task"]),
 * });
 * if (!child.ok || JSON.stringify(child.value.grants.allow.write) !== '["/w/docs"]') throw new Error();
 * if (child.value.tools.includes("task") || child.value.depth !== 1) throw new Error();
 * ```
 */
export function childScope(
  parent: Scope,
  agent: AgentReach,
  options: ChildScopeOptions,
): Result<ChildScope, ChildRefusal> {
  const depth = parent.depth + 1;
  if (depth > options.maxDepth) {
    return err({ kind: "too_deep", agent: agent.name, depth, limit: options.maxDepth });
  }
  // `task` only when the agent names it and a grandchild would still be within the limit.
  const mayDelegate = depth + 1 <= options.maxDepth;
  const offered = new Set(parent.tools);
  const leftOut: LeftOutTool[] = [];
  for (const name of new Set(agent.tools ?? [])) {
    if (!options.known.has(name)) leftOut.push({ name, why: "unknown" });
    else if (!offered.has(name)) leftOut.push({ name, why: "not_offered" });
    else if (name === TASK_TOOL && !mayDelegate) leftOut.push({ name, why: "too_deep" });
  }
  const asked = new Set(agent.tools ?? parent.tools.filter((name) => name !== TASK_TOOL));
  const tools = parent.tools.filter((name) =>
    asked.has(name) && (name !== TASK_TOOL || mayDelegate)
  );
  const grants = narrowedGrants(parent.grants, agent, options.workspace);
  // A child of a parent in plan mode stays in it, with no scratch it cannot read.
  const scratch = parent.scratch &&
    intersectGrant("read", parent.scratch, grants.allow.read) as readonly string[];
  return ok({
    tools,
    grants,
    depth,
    autoApprove: parent.autoApprove && agent.autoApprove !== false,
    ...(scratch ? { scratch } : {}),
    leftOut,
  });
}

/**
 * What a child runs without, in one line for the user and the `task` result; undefined when
 * it got every tool its agent named.
 *
 * @example
 * ```ts
 * import { describeLeftOut } from "./child_scope.ts";
 * const line = describeLeftOut("explorer", [{ name: "KillShell", why: "unknown" }]);
 * if (!line?.includes('"KillShell" (harness has no such tool)')) throw new Error(line);
 * ```
 */
export function describeLeftOut(
  agent: string,
  leftOut: readonly LeftOutTool[],
): string | undefined {
  if (leftOut.length === 0) return undefined;
  const why: Record<LeftOutTool["why"], string> = {
    unknown: "harness has no such tool",
    not_offered: "this conversation does not offer it",
    too_deep: "max_agent_depth allows no deeper subagent",
  };
  const parts = leftOut.map((tool) => `"${tool.name}" (${why[tool.why]})`);
  return `Agent "${agent}" runs without ${parts.join(", ")}`;
}

/**
 * The refusal as one line for the model (the `task` result) and the user.
 *
 * @example
 * ```ts
 * import { describeChildRefusal } from "./child_scope.ts";
 * const line = describeChildRefusal({ kind: "too_deep", agent: "a", depth: 2, limit: 1 });
 * if (!line.includes("max_agent_depth")) throw new Error(line);
 * ```
 */
export function describeChildRefusal(refusal: ChildRefusal): string {
  return `Agent "${refusal.agent}" cannot start: it would be at depth ${refusal.depth} and ` +
    `max_agent_depth is ${refusal.limit}: do the work in this conversation, or raise ` +
    `max_agent_depth in your config`;
}
