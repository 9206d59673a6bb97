// The permission policy engine: decides allow / ask / deny for one tool call from the loaded
// rules (the last matching rule wins) or, when none matches, from the tool's risk level.
// Pure: no I/O. policy_file.ts loads rules; policy_approver.ts turns "ask" into a prompt.

import { posix } from "node:path";
import picomatch from "picomatch";
import type { RiskLevel } from "../tools/define_tool.ts";
import { REDIRECT_WORD, type SubCommand } from "../shell/command_analysis.ts";
import { analyzeCommand } from "../shell/split_command.ts";
import { isRecord, ownField } from "../platform/json_values.ts";

export type PolicyAction = "allow" | "ask" | "deny";

/** A rule as written in a policy file. */
export interface PolicyRule {
  /** Tool name or glob (`"run_command"`, `"*_file"`, `"*"`). */
  tool: string;
  /** Argument patterns; every key given must match. A list means "any of these globs". */
  match?: Record<string, string | string[]>;
  action: PolicyAction;
  /** For deny rules: told to the model in the permission_denied result. */
  reason?: string;
}

/** A rule with where it came from: `file` as written for people, `index` 1-based. */
export interface LoadedRule extends PolicyRule {
  file: string;
  index: number;
  /**
   * From a project policy file whose content the user has not trusted: the rule can only
   * make a decision stricter (deny over ask over allow), never loosen what trusted rules say.
   */
  untrusted?: true;
  /** Where the tool name and each match key are in the file (`line 3, column 14`). */
  positions?: { tool: string; match: Record<string, string> };
}

/** What the policy is asked about. */
export interface PolicyRequest {
  tool: string;
  args: unknown;
  risk: RiskLevel;
}

/** The decision and what made it. */
export interface PolicyDecision {
  action: PolicyAction;
  /** The deciding rule; absent when the risk level's default decided. */
  rule?: LoadedRule;
  /** `"<file>#<index>"` for a rule, else `"default for risk MEDIUM: ask"`. */
  source: string;
  /** For commands: how each sub-command was decided (the call takes the strictest). */
  parts?: { command: string; action: PolicyAction; source: string; rule?: LoadedRule }[];
}

/** Argument keys whose values are matched as workspace-relative paths. */
export function isPathKey(key: string): boolean {
  return key === "path" || key === "cwd" || key === "paths" || /(_path|Path|_dir|_file)$/.test(key);
}

/** The default action for a risk level when no rule matches. */
export function defaultAction(risk: RiskLevel): PolicyAction {
  return risk === "safe" ? "allow" : "ask";
}

/**
 * Where a rule or default came from, for messages: `"policies.jsonc#3"` or
 * `"default for risk HIGH: ask"`.
 *
 * @example
 * ```ts
 * import { ruleSource } from "./policy.ts";
 * if (ruleSource({ tool: "*", action: "ask", file: "p.jsonc", index: 2 }) !== "p.jsonc#2") {
 *   throw new Error();
 * }
 * ```
 */
export function ruleSource(rule: LoadedRule): string {
  return `${rule.file}#${rule.index}`;
}

/**
 * Decides allow / ask / deny for a call: the last matching rule wins; without one, `safe`
 * tools are allowed and every other risk level asks. Rules marked `untrusted` (from a project
 * file the user has not trusted) do not take part in "last wins": each one that matches can
 * only make that decision stricter, so an untrusted `ask` never replaces the user's `deny`.
 *
 * Matching: `tool` is a picomatch glob on the tool name. For each key in `match`:
 * - `command` (run_command): word-wise globs. The command is split by
 *   {@link analyzeCommand} (`a && b`, pipes, `$(...)`, `bash -c`, wrappers stripped) and each
 *   sub-command is decided on its own by the last rule matching it; then any deny denies, any
 *   ask asks, and the call is allowed only if EVERY sub-command is allowed. So `git *` never
 *   allows `git status && rm -rf /`, while `git *` plus `ls *` allow `git log | ls`. Deny and
 *   ask patterns also see the wrapped forms (`sudo *`) and program basenames (`/bin/rm`). A
 *   write redirection is the sub-command `> TARGET`; what cannot be analysed (a here-doc) is
 *   a sub-command no pattern matches. Allow patterns match only plain sub-commands (no
 *   assignments, expansions, globs, sudo or xargs; see shell/split_command.ts); a command that may
 *   run a program no analysis can name (`$X x`, `curl x | sh`) is a sub-command that every
 *   deny and ask pattern matches.
 * - path keys (`path`, `cwd`, `*_path`, ...): picomatch globs (`dot: true`) on the path
 *   normalised to workspace-relative form (`./a/../.env` is `.env`); a missing `cwd` is `.`.
 *   An absolute pattern (`/home/me/w/src/**`) is matched against the absolute path.
 * - any other key: a glob on the string value where `*` matches any characters.
 * A value that is a list in the call (e.g. `paths`) is treated like sub-commands.
 *
 * @param request The tool, its validated arguments and its risk level.
 * @param rules Loaded rules in order.
 * @param options `workspace`: absolute root used to relativise absolute paths.
 * @returns The action, the deciding rule, and a printable source.
 *
 * @example
 * ```ts
 * import { evaluatePolicy } from "./policy.ts";
 * const rules = [{
 *   tool: "run_command", match: { command: "git *" }, action: "allow" as const,
 *   file: "p.jsonc", index: 1,
 * }];
 * const ok = evaluatePolicy({ tool: "run_command", args: { command: "git status" }, risk: "high" }, rules);
 * if (ok.action !== "allow") throw new Error();
 * const bad = evaluatePolicy(
 *   { tool: "run_command", args: { command: "git status && rm -rf /" }, risk: "high" }, rules);
 * if (bad.action !== "ask" || bad.source !== "default for risk HIGH: ask") throw new Error();
 * ```
 */
export function evaluatePolicy(
  request: PolicyRequest,
  rules: readonly LoadedRule[],
  options: { workspace?: string } = {},
): PolicyDecision {
  const command = isRecord(request.args) ? request.args.command : undefined;
  if (typeof command !== "string") return decide(request, rules, options, WHOLE_CALL);
  // Each sub-command is decided on its own; then any deny denies, any ask asks, and the call
  // is allowed only when every sub-command is.
  const analysis = analyzeCommand(command);
  const pieces: (SubCommand | null | typeof UNSEEN)[] = [...analysis.commands];
  // What could not be analysed is a piece that no allow pattern matches; what may run an
  // unseen program is one that every deny and ask pattern matches (see shell/split_command.ts).
  if (analysis.opaque) pieces.push(UNSEEN);
  else if (!analysis.complete || pieces.length === 0) pieces.push(null);
  const decided = pieces.map((piece) => {
    const d = decide(request, rules, options, piece);
    if (piece !== UNSEEN || !d.rule) return d;
    return { ...d, source: `${d.source} (${UNSEEN_NOTE})` };
  });
  const parts = decided.map((d, i) => ({
    command: describePiece(pieces[i]),
    action: d.action,
    source: d.source,
    ...(d.rule ? { rule: d.rule } : {}),
  }));
  const pick = decided.find((d) => d.action === "deny") ??
    decided.find((d) => d.action === "ask") ?? decided[0]!;
  return { ...pick, parts };
}

/** Marks a whole-call check (no sub-command split). */
const WHOLE_CALL = Symbol("whole call");
/** Marks a part of a command that may run a program no analysis can name. */
const UNSEEN = Symbol("unseen");
const UNSEEN_NOTE = "the command may run a program that cannot be named before it runs, " +
  "such as `$X`, a shell reading a pipe or arithmetic on a variable: name each program in " +
  "the command itself";
type Piece = SubCommand | null | typeof WHOLE_CALL | typeof UNSEEN;

function describePiece(piece: Piece | undefined): string {
  if (piece === UNSEEN) return "(may run a program that cannot be seen before it runs)";
  if (piece === null || piece === undefined || piece === WHOLE_CALL) return "(not analysable)";
  const words = piece.words.join(" ");
  return piece.plain ? words : `${words} (not plain: no allow rule vouches for it)`;
}

function decide(
  request: PolicyRequest,
  rules: readonly LoadedRule[],
  options: { workspace?: string },
  piece: Piece,
): PolicyDecision {
  let decided: PolicyDecision | undefined;
  for (let i = rules.length - 1; i >= 0 && decided === undefined; i--) {
    const rule = rules[i]!;
    if (!rule.untrusted && matches(rule, request, options, piece)) {
      decided = { action: rule.action, rule, source: ruleSource(rule) };
    }
  }
  if (decided === undefined) {
    const action = defaultAction(request.risk);
    decided = { action, source: `default for risk ${request.risk.toUpperCase()}: ${action}` };
  }
  // An untrusted rule that asks is named even when the call asked anyway: no rule the user
  // saves can loosen it, so "Always" must not be offered (policy_approver.ts).
  for (const rule of rules) {
    const stricter = STRICTNESS[rule.action] > STRICTNESS[decided.action] ||
      (rule.action === "ask" && decided.action === "ask");
    if (rule.untrusted && stricter && matches(rule, request, options, piece)) {
      decided = { action: rule.action, rule, source: ruleSource(rule) };
    }
  }
  return decided;
}

const STRICTNESS: Record<PolicyAction, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * Whether one rule applies to a whole call. For `command`, an allow rule needs every
 * sub-command to match one of its patterns; deny and ask rules need any (see
 * {@link evaluatePolicy}, which combines several rules per sub-command).
 *
 * @example
 * ```ts
 * import { ruleMatches } from "./policy.ts";
 * const deny = { tool: "run_command", match: { command: "rm *" }, action: "deny" as const };
 * if (!ruleMatches(deny, { tool: "run_command", args: { command: "sudo rm -rf /" }, risk: "high" })) {
 *   throw new Error();
 * }
 * ```
 */
export function ruleMatches(
  rule: PolicyRule,
  request: PolicyRequest,
  options: { workspace?: string } = {},
): boolean {
  return matches(rule, request, options, WHOLE_CALL);
}

function matches(
  rule: PolicyRule,
  request: PolicyRequest,
  options: { workspace?: string },
  piece: Piece,
): boolean {
  if (!picomatch.isMatch(request.tool, rule.tool, { dot: true })) return false;
  const args = isRecord(request.args) ? request.args : {};
  const needAll = rule.action === "allow";
  for (const [key, pattern] of Object.entries(rule.match ?? {})) {
    const patterns = Array.isArray(pattern) ? pattern : [pattern];
    // Only the call's own arguments: a rule on "constructor" never reads what objects inherit.
    const own = ownField(args, key);
    const value = key === "cwd" && own === undefined ? "." : own;
    if (value === undefined || value === null) return false;
    if (key === "command" && typeof value === "string") {
      const ok = piece === WHOLE_CALL
        ? commandMatches(value, patterns, needAll)
        : piece === UNSEEN
        ? !needAll
        : piece !== null && pieceMatches(piece, patterns.map(patternWords), needAll);
      if (!ok) return false;
      continue;
    }
    const items = Array.isArray(value) ? value : [value];
    if (items.length === 0) return false;
    const test = isPathKey(key)
      ? (item: unknown) => pathMatches(item, patterns, options.workspace)
      : (item: unknown) => patterns.some((p) => textGlob(p)(scalarText(item)));
    if (needAll ? !items.every(test) : !items.some(test)) return false;
  }
  return true;
}

function scalarText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value) ?? "";
}

/**
 * Normalises a path for matching: forward slashes, `.` and `..` resolved, no leading `./`,
 * absolute paths inside `workspace` made relative. `"."` stands for the workspace root.
 *
 * @example
 * ```ts
 * import { normalisePolicyPath } from "./policy.ts";
 * if (normalisePolicyPath("./a/../.env") !== ".env") throw new Error();
 * if (normalisePolicyPath("/w/src/x.ts", "/w") !== "src/x.ts") throw new Error();
 * ```
 */
export function normalisePolicyPath(path: string, workspace?: string): string {
  let p = posix.normalize(path.replaceAll("\\", "/"));
  if (workspace !== undefined && posix.isAbsolute(p)) {
    const root = posix.normalize(workspace.replaceAll("\\", "/"));
    const rel = posix.relative(root, p);
    if (!rel.startsWith("..")) p = rel === "" ? "." : rel;
  }
  if (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
  return p;
}

function pathMatches(value: unknown, patterns: string[], workspace?: string): boolean {
  if (typeof value !== "string") return false;
  const path = normalisePolicyPath(value, workspace);
  // An absolute pattern (as "Always" saves to the user's file) sees the absolute path.
  const absolute = posix.isAbsolute(path)
    ? path
    : workspace === undefined
    ? undefined
    : posix.join(posix.normalize(workspace.replaceAll("\\", "/")), path);
  // Patterns keep their backslashes: they escape glob characters (`src/\[id\].ts`).
  return patterns.some((p) => {
    const pattern = normalisePattern(p);
    if (posix.isAbsolute(pattern)) {
      return absolute !== undefined && picomatch.isMatch(absolute, pattern, { dot: true });
    }
    // picomatch's "**" skips ".", but "anywhere in the workspace" includes its root.
    return picomatch.isMatch(path, pattern, { dot: true }) || (path === "." && pattern === "**");
  });
}

function normalisePattern(pattern: string): string {
  const p = posix.normalize(pattern);
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
}

const globCache = new Map<string, RegExp>();

/** A glob where `*` matches any characters (slashes too) and `?` one character. */
function textGlob(pattern: string): (text: string) => boolean {
  let re = globCache.get(pattern);
  if (!re) {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[\\s\\S]*")
      .replaceAll("?", "[\\s\\S]");
    re = new RegExp(`^${body}$`);
    globCache.set(pattern, re);
  }
  const compiled = re;
  return (text) => compiled.test(text);
}

/** Splits a command pattern into words; quotes group words (`echo "a b"`). */
export function patternWords(pattern: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const m of pattern.matchAll(re)) words.push(m[1] ?? m[2] ?? m[3] ?? "");
  return words;
}

/**
 * Word-wise match: each pattern word is a glob for one word; a final `*` word matches any
 * number of remaining words (none included), so `git *` matches `git` and `git log -p`.
 */
function wordsMatch(pattern: string[], words: string[], basenameFirst: boolean): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p === "*" && i === pattern.length - 1) return true;
    let w = words[i];
    if (w === undefined) return false;
    if (i === 0 && basenameFirst && !p.includes("/") && w !== REDIRECT_WORD) {
      w = w.slice(w.lastIndexOf("/") + 1);
    }
    if (!textGlob(p)(w)) return false;
  }
  return pattern.length === words.length;
}

/**
 * Allow rules look at the sub-command with wrappers stripped and need the exact program name,
 * so `git *` does not allow `./git`; deny and ask rules look at every wrapped view too, and
 * compare the program by basename, so `rm *` catches `sudo /bin/rm`.
 */
function pieceMatches(piece: SubCommand, compiled: string[][], forAllow: boolean): boolean {
  if (forAllow) return piece.plain && compiled.some((p) => wordsMatch(p, piece.words, false));
  return piece.views.some((view) => compiled.some((p) => wordsMatch(p, view, true)));
}

function commandMatches(command: string, patterns: string[], needAll: boolean): boolean {
  const analysis = analyzeCommand(command);
  const compiled = patterns.map(patternWords);
  if (needAll) {
    if (!analysis.complete || analysis.commands.length === 0) return false;
    return analysis.commands.every((c) => pieceMatches(c, compiled, true));
  }
  return analysis.opaque || analysis.commands.some((c) => pieceMatches(c, compiled, false));
}
