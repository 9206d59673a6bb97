// The narrow rule that an "Always allow" (or "Allow for this session") answer records. Pure.
// Scoping choices, documented in policies.example.jsonc too:
// - run_command: one pattern per distinct sub-command. Tools with subcommands (git, npm,
//   cargo, docker, ...) keep their subcommand (`git status *`); destructive programs (rm, dd,
//   chmod, ...) keep the exact words; any other program keeps its name (`ls *`). A write
//   redirection keeps its exact target (`> out.txt`).
// - path arguments: the file's folder (`src/**`) for safe/low/medium tools, the exact path for
//   high-risk tools and files at the workspace root; absolute paths inside the workspace are
//   made workspace-relative first, as evaluatePolicy matches them.
// - url arguments: the URL's origin (`https://example.com/*`). Anything else: the whole tool.

import { posix } from "node:path";
import { REDIRECT_WORD } from "../shell/command_analysis.ts";
import { analyzeCommand } from "../shell/split_command.ts";
import { isPathKey, normalisePolicyPath, type PolicyRequest, type PolicyRule } from "./policy.ts";

/** Programs whose second word names a subcommand worth keeping in the rule. */
const SUBCOMMAND_TOOLS = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "cargo",
  "go",
  "docker",
  "podman",
  "kubectl",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "gh",
  "brew",
  "apt",
  "apt-get",
  "dotnet",
  "rustup",
  "make",
  "npx",
  "mvn",
  "gradle",
  "helm",
  "terraform",
]);

/** Programs that get a rule for the exact command only. */
const EXACT_ONLY = new Set([
  "rm",
  "rmdir",
  "dd",
  "mkfs",
  "chmod",
  "chown",
  "mv",
  "kill",
  "killall",
  "pkill",
  "shutdown",
  "reboot",
  "truncate",
  "shred",
  "sh",
  "bash",
  "zsh",
]);

/**
 * The rule an "Always allow" answer would save for this call, scoped as narrowly as useful.
 * Returns undefined when no allow rule could ever match the call (a command that cannot be
 * analysed, e.g. with a here-document), so "Always" is not offered.
 *
 * @param request The tool and its arguments.
 * @param options `workspace`: the absolute root that evaluatePolicy relativises paths
 * against; pass the same one, or a rule for an absolute path inside it never matches.
 * @returns An allow rule, or undefined.
 *
 * @example
 * ```ts
 * import { suggestRule } from "./suggest_rule.ts";
 * const r = suggestRule({ tool: "run_command", args: { command: "git status -s" }, risk: "high" });
 * if (JSON.stringify(r?.match) !== '{"command":"git status *"}') throw new Error();
 * const f = suggestRule({ tool: "write_file", args: { path: "./src/a.ts" }, risk: "medium" });
 * if (f?.match?.path !== "src/**") throw new Error();
 * const abs = suggestRule(
 *   { tool: "write_file", args: { path: "/w/src/a.ts" }, risk: "medium" },
 *   { workspace: "/w" },
 * );
 * if (abs?.match?.path !== "src/**") throw new Error();
 * ```
 */
export function suggestRule(
  request: PolicyRequest,
  options: { workspace?: string } = {},
): PolicyRule | undefined {
  const args = typeof request.args === "object" && request.args !== null
    ? request.args as Record<string, unknown>
    : {};
  const command = args.command;
  if (typeof command === "string") {
    const analysis = analyzeCommand(command);
    // No allow rule can vouch for a command that is not plain (`sudo x`, `A=1 x`, `x $Y`).
    const plain = analysis.commands.every((c) => c.plain);
    if (!analysis.complete || !plain || analysis.commands.length === 0) return undefined;
    const patterns = [...new Set(analysis.commands.map((c) => commandPattern(c.words)))];
    return {
      tool: request.tool,
      match: { command: patterns.length === 1 ? patterns[0]! : patterns },
      action: "allow",
    };
  }
  const path = args.path;
  if (typeof path === "string") {
    const normal = normalisePolicyPath(path, options.workspace);
    const folder = posix.dirname(normal);
    const exact = request.risk === "high" || folder === "." || normal.startsWith("..") ||
      posix.isAbsolute(normal);
    return {
      tool: request.tool,
      match: { path: exact ? escapeGlob(normal) : `${escapeGlob(folder)}/**` },
      action: "allow",
    };
  }
  const url = args.url;
  if (typeof url === "string" && URL.canParse(url)) {
    return { tool: request.tool, match: { url: `${new URL(url).origin}/*` }, action: "allow" };
  }
  return { tool: request.tool, action: "allow" };
}

/**
 * The rule with its relative path patterns made absolute under `workspace`, for a policy file
 * that is not the project's own (the user's file applies in every folder). Command, URL and
 * tool-only rules are kept: they name a program, an origin or a tool, not a place.
 *
 * @example
 * ```ts
 * import { anchorPathPatterns } from "./suggest_rule.ts";
 * const r = anchorPathPatterns({ tool: "write_file", match: { path: "src/**" }, action: "allow" }, "/w");
 * if (r.match?.path !== "/w/src/**") throw new Error(JSON.stringify(r));
 * ```
 */
export function anchorPathPatterns(rule: PolicyRule, workspace: string): PolicyRule {
  if (rule.match === undefined) return rule;
  const root = escapeGlob(posix.normalize(workspace.replaceAll("\\", "/")));
  const anchor = (pattern: string) =>
    posix.isAbsolute(pattern) ? pattern : posix.normalize(posix.join(root, pattern));
  const match: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(rule.match)) {
    match[key] = !isPathKey(key) ? value : Array.isArray(value) ? value.map(anchor) : anchor(value);
  }
  return { ...rule, match };
}

function commandPattern(words: string[]): string {
  const quoted = words.map(quoteWord);
  const first = words[0] ?? "";
  const name = first.slice(first.lastIndexOf("/") + 1);
  if (first === REDIRECT_WORD || EXACT_ONLY.has(name)) return quoted.join(" ");
  const second = words[1];
  if (SUBCOMMAND_TOOLS.has(name) && second !== undefined && !second.startsWith("-")) {
    return `${quoted[0]} ${quoted[1]} *`;
  }
  return `${quoted[0]} *`;
}

/** Quotes a word holding spaces so the pattern keeps it as one word. */
function quoteWord(word: string): string {
  return /\s/.test(word) ? (word.includes('"') ? `'${word}'` : `"${word}"`) : word;
}

/** picomatch treats these as glob syntax; a saved exact path must match only itself. */
function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@]/g, "\\$&");
}
