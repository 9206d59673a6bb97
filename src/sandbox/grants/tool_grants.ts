// Grants the configuration gives one built-in tool beyond the user's permission flags:
// web_search's network access to the search engine the user configured (and nothing else),
// with the settings that tool reads from `ctx.config`. The tool's worker gets exactly this
// network grant, whatever --allow-net says (--deny-net still wins); no other tool gets it.

import type { ToolPermissions } from "../../tools/define_tool.ts";
import type { Grants } from "./grants.ts";

/** One built-in tool's own grant and settings. */
export interface ToolGrant {
  /** Hosts (`host` or `host:port`) the tool's worker may connect to. */
  net: string[];
  /** What the tool reads from `ctx.config` (its worker only). */
  config: Readonly<Record<string, string>>;
}

/** Grants by built-in tool name. */
export type ToolGrants = Readonly<Record<string, ToolGrant>>;

/**
 * The grants and declared permissions that decide a tool's sandbox: for a built-in tool with a
 * grant of its own, the user's grants plus its hosts, and a declaration of exactly those hosts
 * (so its worker reaches only them); for any other tool, undefined.
 *
 * @param grants The user's grants.
 * @param toolGrants The configuration's grants by tool name.
 * @param tool The tool's name and whether it is built in.
 * @returns What to narrow the tool's sandbox with, or undefined for the usual rule.
 *
 * @example
 * ```ts
 * import { grantFor } from "./tool_grants.ts";
 * import { parseGrantFlags } from "../../cli/grant_flags.ts";
 * const parsed = parseGrantFlags([], { cwd: "/w" });
 * if (!parsed.ok) throw new Error();
 * const engine = { web_search: { net: ["127.0.0.1:8888"], config: {} } };
 * const own = grantFor(parsed.value.grants, engine, { name: "web_search", builtin: true });
 * if (JSON.stringify(own?.declared) !== '{"net":["127.0.0.1:8888"]}') throw new Error();
 * if (grantFor(parsed.value.grants, engine, { name: "web_search", builtin: false })) throw new Error();
 * ```
 */
export function grantFor(
  grants: Grants,
  toolGrants: ToolGrants | undefined,
  tool: { name: string; builtin: boolean },
): { grants: Grants; declared: ToolPermissions } | undefined {
  if (!tool.builtin || !toolGrants || !Object.hasOwn(toolGrants, tool.name)) return undefined;
  const own = toolGrants[tool.name]!;
  const userNet = grants.allow.net;
  const net = userNet === true ? true : [...new Set([...userNet, ...own.net])];
  return {
    grants: { ...grants, allow: { ...grants.allow, net } },
    declared: { net: [...own.net] },
  };
}
