// Checks policy rules against the tools that exist, once the tool list is known: a typo in a
// tool name (`"run_comand"`) or an argument name (`"paht"`) would leave a deny rule that never
// matches while `policy explain` reports the wrong decision. Pure.
//
// A tool name that is close to a real one is an error with a suggestion; a name far from
// every tool is accepted, since rules in the user's file may name tools that only another
// project's plugins or an MCP server (`SERVER__tool`) provide. An argument name that the
// named tool (or no tool the glob matches) has is always an error: the tool is right there.

import type { LoadedRule } from "./policy.ts";
import type { PolicyFileError } from "./policy_text.ts";
import picomatch from "picomatch";

/** What the check needs to know of a tool: its name and JSON Schema parameters. */
export interface KnownTool {
  name: string;
  parameters: Record<string, unknown>;
}

/**
 * Finds the first rule naming a tool or argument that does not exist.
 *
 * @param rules Loaded rules (with `positions` from parsePolicyText).
 * @param tools The tools of this run.
 * @returns A `config_invalid` error naming the file, the line and a suggestion, or undefined.
 *
 * @example
 * ```ts
 * import { checkRuleNames } from "./check_rule_names.ts";
 * const tools = [{ name: "run_command", parameters: { properties: { command: {} } } }];
 * const rules = [{ tool: "run_comand", action: "deny" as const, file: "p.jsonc", index: 1 }];
 * const problem = checkRuleNames(rules, tools);
 * if (!problem?.reason.includes('did you mean "run_command"?')) throw new Error();
 * ```
 */
export function checkRuleNames(
  rules: readonly LoadedRule[],
  tools: readonly KnownTool[],
): PolicyFileError | undefined {
  const names = tools.map((tool) => tool.name);
  for (const rule of rules) {
    const where = (at: string | undefined) => at === undefined ? "" : `${at}: `;
    const fail = (at: string | undefined, message: string): PolicyFileError => ({
      kind: "config_invalid",
      file: rule.file,
      reason: `${where(at)}${message}`,
    });
    const isGlob = /[*?[\]{}()!+@]/.test(rule.tool);
    const matched = isGlob
      ? tools.filter((tool) => picomatch.isMatch(tool.name, rule.tool, { dot: true }))
      : tools.filter((tool) => tool.name === rule.tool);
    if (!isGlob && matched.length === 0) {
      const near = closest(rule.tool, names);
      if (near !== undefined) {
        return fail(rule.positions?.tool, `unknown tool "${rule.tool}": did you mean "${near}"?`);
      }
      continue;
    }
    if (matched.length === 0) continue;
    const known = new Set(matched.flatMap((tool) => argumentNames(tool)));
    for (const key of Object.keys(rule.match ?? {})) {
      if (known.has(key)) continue;
      const near = closest(key, [...known]);
      const which = isGlob ? `no tool matching "${rule.tool}" has` : `"${rule.tool}" has no`;
      const hint = near !== undefined
        ? `did you mean "${near}"?`
        : `its arguments are ${[...known].map((k) => `"${k}"`).join(", ") || "none"}`;
      return fail(rule.positions?.match[key], `${which} argument "${key}": ${hint}`);
    }
  }
  return undefined;
}

function argumentNames(tool: KnownTool): string[] {
  const properties = tool.parameters.properties;
  return typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
}

/** The candidate a few edits away from `name` (a typo), if one is. */
function closest(name: string, candidates: readonly string[]): string | undefined {
  const limit = name.length >= 8 ? 3 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** Levenshtein distance (insertions, deletions and substitutions cost 1). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current.push(Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      ));
    }
    previous = current;
  }
  return previous[b.length]!;
}
