// What a child conversation (a subagent started by the `task` tool) may reach, narrowed from its
// parent's by construction: its tools are the parent's intersected with the agent's list, its
// grants the parent's intersected with the agent's paths, its deny lists the parent's, and its
// approvals never looser. A pure function: the child's tool workers and command sandbox are
// then built from the result as the parent's are, so nothing is merged and nothing widens.

import { err, ok, type Result } from "../errors.ts";
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
export type ChildRefusal =
  | { kind: "unknown_tools"; agent: string; names: string[]; known: string[] }
  | { kind: "too_deep"; agent: string; depth: number; limit: number };

/** Options of {@linkcode childScope}. */
export interface ChildScopeOptions {
  /** Relative agent paths start here. */
  workspace: string;
  /** How deep children may nest (`max_agent_depth`): 1 allows children, not grandchildren. */
  maxDepth: number;
  /** Every tool name harness knows here; a name outside it is refused, not ignored. */
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
 * way. Tool names the agent lists that harness does not know are refused (a typo must not
 * silently drop a restriction the author meant); known ones the parent lacks are left out.
 *
 * @param parent The scope of the conversation that calls `task`.
 * @param agent What the agent file asks for.
 * @param options The workspace, the depth limit and the known tool names.
 * @returns The child's scope, or why it cannot start.
 *
 * @example
 * ```ts
 * import { childScope } from "./child_scope.ts";
 * import { parseGrantFlags } from "../cli/grant_flags.ts";
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
): Result<Scope, ChildRefusal> {
  const depth = parent.depth + 1;
  if (depth > options.maxDepth) {
    return err({ kind: "too_deep", agent: agent.name, depth, limit: options.maxDepth });
  }
  const unknown = (agent.tools ?? []).filter((name) => !options.known.has(name));
  if (unknown.length > 0) {
    const known = [...options.known].sort();
    return err({ kind: "unknown_tools", agent: agent.name, names: unknown, known });
  }
  // `task` only when the agent names it and a grandchild would still be within the limit.
  const mayDelegate = (agent.tools ?? []).includes(TASK_TOOL) && depth + 1 <= options.maxDepth;
  const asked = new Set(agent.tools ?? parent.tools);
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
  });
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
  switch (refusal.kind) {
    case "unknown_tools":
      return `Agent "${refusal.agent}" names tools harness does not have: ${
        refusal.names.map((name) => JSON.stringify(name)).join(", ")
      }: use harness's tool names (${refusal.known.join(", ")}) in its tools list`;
    case "too_deep":
      return `Agent "${refusal.agent}" cannot start: it would be at depth ${refusal.depth} and ` +
        `max_agent_depth is ${refusal.limit}: do the work in this conversation, or raise ` +
        `max_agent_depth in your config`;
    default: {
      const never: never = refusal;
      throw new Error(`unknown refusal ${JSON.stringify(never)}`);
    }
  }
}
