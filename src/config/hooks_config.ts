// The `hooks` setting, in the shape of Claude Code's settings: events, each a list of
// matchers with the commands to run. Checked when a config file is read (errors name the
// entry); the events harness does not run (Notification, PreCompact, ...) are accepted, so a
// copied Claude Code block loads, and left out. src/hooks/ runs the commands.

import { isRecord } from "../platform/json_values.ts";

/** The events harness runs hooks for. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SessionStart",
] as const;

/**
 * Claude Code events harness accepts in a config but does not run (their entries are not
 * checked further: they may hold Claude Code's http, prompt or agent hooks).
 */
export const UNRUN_HOOK_EVENTS: readonly string[] = [
  "PostToolUseFailure",
  "PermissionRequest",
  "Notification",
  "SubagentStart",
  "SubagentStop",
  "TaskCreated",
  "TaskCompleted",
  "StopFailure",
  "TeammateIdle",
  "InstructionsLoaded",
  "ConfigChange",
  "CwdChanged",
  "FileChanged",
  "WorktreeCreate",
  "WorktreeRemove",
  "PreCompact",
  "PostCompact",
  "Elicitation",
  "ElicitationResult",
  "SessionEnd",
];

export type HookEvent = typeof HOOK_EVENTS[number];

/** One command to run (`type: "command"`, the only kind harness runs). */
export interface HookCommand {
  type: "command";
  /** Run by `sh -c` in the workspace. */
  command: string;
  /** Seconds before the command is stopped (default 60). */
  timeout?: number;
  /** Claude Code's text while the hook runs: accepted, not shown. */
  statusMessage?: string;
}

/** Commands for the calls (or sources) a matcher selects. */
export interface HookMatcher {
  /** A tool name, `A|B`, a regular expression, or `*`/empty/absent for all. */
  matcher?: string;
  hooks: HookCommand[];
}

/** The `hooks` setting: matchers per event. */
export type HooksConfig = Partial<Record<HookEvent, HookMatcher[]>>;

/**
 * Checks a `hooks` value; returns a problem, or undefined when it is valid.
 *
 * @param value The value read from a config file.
 * @returns One sentence naming the entry at fault and the fix.
 *
 * @example
 * ```ts
 * import { checkHooks } from "./hooks_config.ts";
 * const good = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "x" }] }] };
 * if (checkHooks(good) !== undefined) throw new Error();
 * if (!checkHooks({ PreToolUse: [{ hooks: [{ type: "prompt" }] }] })?.includes("command")) {
 *   throw new Error();
 * }
 * ```
 */
export function checkHooks(value: unknown): string | undefined {
  if (!isRecord(value)) {
    return 'expected an object of events, like { "PreToolUse": [{ "matcher": "Bash", "hooks": [...] }] }';
  }
  const known: readonly string[] = [...HOOK_EVENTS, ...UNRUN_HOOK_EVENTS];
  for (const [event, matchers] of Object.entries(value)) {
    if (!known.includes(event)) {
      return `unknown hook event "${event}": harness runs ${HOOK_EVENTS.join(", ")}`;
    }
    if (!Array.isArray(matchers)) return `"${event}" must be a list of matchers`;
    if (UNRUN_HOOK_EVENTS.includes(event)) continue;
    for (const [index, entry] of matchers.entries()) {
      const where = `"${event}"[${index}]`;
      const problem = checkMatcher(entry, where);
      if (problem) return problem;
    }
  }
  return undefined;
}

function checkMatcher(entry: unknown, where: string): string | undefined {
  if (!isRecord(entry)) return `${where} must be an object with "matcher" and "hooks"`;
  for (const key of Object.keys(entry)) {
    if (key !== "matcher" && key !== "hooks") {
      return `${where} has an unknown key "${key}": a matcher has "matcher" and "hooks"`;
    }
  }
  if (entry.matcher !== undefined) {
    if (typeof entry.matcher !== "string") return `${where}.matcher must be a string`;
    const problem = matcherProblem(entry.matcher);
    if (problem) return `${where}.matcher ${problem}`;
  }
  if (!Array.isArray(entry.hooks)) return `${where}.hooks must be a list of commands`;
  for (const [index, hook] of entry.hooks.entries()) {
    const at = `${where}.hooks[${index}]`;
    if (!isRecord(hook)) {
      return `${at} must be an object like { "type": "command", "command": "..." }`;
    }
    if (hook.type !== "command") {
      return `${at} has type ${
        JSON.stringify(hook.type)
      }: harness runs only "command" hooks (prompt, agent and http hooks are Claude Code's own)`;
    }
    if (typeof hook.command !== "string" || hook.command.trim() === "") {
      return `${at}.command must be a non-empty string`;
    }
    if (
      hook.timeout !== undefined &&
      (typeof hook.timeout !== "number" || !(hook.timeout > 0) || !Number.isFinite(hook.timeout))
    ) {
      return `${at}.timeout must be a positive number of seconds`;
    }
    if (hook.statusMessage !== undefined && typeof hook.statusMessage !== "string") {
      return `${at}.statusMessage must be a string`;
    }
    for (const key of Object.keys(hook)) {
      if (!["type", "command", "timeout", "statusMessage"].includes(key)) {
        return `${at} has an unknown key "${key}": harness reads "type", "command" and ` +
          '"timeout" ("statusMessage" is accepted and not shown)';
      }
    }
  }
  return undefined;
}

/** Why a matcher cannot be used (an invalid regular expression), or undefined. */
function matcherProblem(matcher: string): string | undefined {
  if (matcher.trim() === "*" || simpleMatcher(matcher)) return undefined;
  try {
    new RegExp(matcher);
    return undefined;
  } catch (error) {
    return `${JSON.stringify(matcher)} is not a valid regular expression: ${
      (error as Error).message
    }`;
  }
}

/** A matcher of plain names (`Bash`, `Edit|Write`): compared exactly, not as a pattern. */
function simpleMatcher(matcher: string): boolean {
  return /^[A-Za-z0-9_|\s-]*$/.test(matcher);
}

/**
 * The hooks of a checked value, without the events harness does not run.
 *
 * @param value A value {@linkcode checkHooks} accepted.
 * @returns The config.
 *
 * @example
 * ```ts
 * import { readHooks } from "./hooks_config.ts";
 * const hooks = readHooks({ Notification: [], Stop: [{ hooks: [{ type: "command", command: "x" }] }] });
 * if ("Notification" in hooks || hooks.Stop?.length !== 1) throw new Error();
 * ```
 */
export function readHooks(value: unknown): HooksConfig {
  const out: HooksConfig = {};
  if (!isRecord(value)) return out;
  for (const event of HOOK_EVENTS) {
    const matchers = value[event];
    if (Array.isArray(matchers)) out[event] = structuredClone(matchers) as HookMatcher[];
  }
  return out;
}

/**
 * Whether a matcher selects a name, as Claude Code decides it: absent, empty or `*` selects
 * all; plain names (`Bash`, `Edit|Write`) must equal one of them; anything else is a regular
 * expression searched in the name.
 *
 * @param matcher The matcher.
 * @param names The names to try (a tool's harness name and its Claude Code name).
 * @returns True when one of them is selected.
 *
 * @example
 * ```ts
 * import { matcherSelects } from "./hooks_config.ts";
 * if (!matcherSelects("Edit|Write", ["write_file", "Write"])) throw new Error();
 * if (matcherSelects("Write", ["write_file_x"]) || !matcherSelects("mcp__.*", ["mcp__fs__read"])) {
 *   throw new Error();
 * }
 * ```
 */
export function matcherSelects(matcher: string | undefined, names: readonly string[]): boolean {
  if (matcher === undefined || matcher.trim() === "" || matcher.trim() === "*") return true;
  if (simpleMatcher(matcher)) {
    const wanted = matcher.split("|").map((name) => name.trim());
    return names.some((name) => wanted.includes(name));
  }
  try {
    const pattern = new RegExp(matcher);
    return names.some((name) => pattern.test(name));
  } catch {
    return false;
  }
}
