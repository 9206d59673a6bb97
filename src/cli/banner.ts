// The lines the REPL shows above its first prompt: version, model and server, the sandbox
// grants, the session, and how to get help or leave.

import { formatGrants, type Grants } from "../sandbox/grants/grants.ts";
import type { Style } from "../ui/style.ts";
import denoJson from "../../deno.json" with { type: "json" };
import { terminalLine } from "../platform/terminal_text.ts";

/** How --yes is described in the banner and by /permissions. */
export const YES_MODE = "approvals: --yes (calls run without asking unless a rule denies them)";

/** What the banner reports. */
export interface BannerFacts {
  model: string;
  /** The server URL or the model file. */
  where: string;
  grants: Grants;
  /** The session id; null when there is no session log. */
  sessionId: string | null;
  /** Whether the log is off on purpose (--no-session) rather than unavailable. */
  noSession: boolean;
  /** --yes: every call the sandbox allows runs without asking, except what a rule denies. */
  yes?: boolean;
  /** command_sandbox "off": commands run without the OS sandbox, on purpose. */
  commandSandboxOff?: boolean;
  /** The instruction files in the system prompt (AGENTS.md ...), as /context names them. */
  instructions?: readonly string[];
  /** The conversation starts in plan mode (--plan). */
  plan?: boolean;
}

/** How plan mode is described in the banner. */
export const PLAN_MODE = "plan mode: reads, searches and commands; only the plan is written " +
  "(/plan or Shift-Tab to leave)";

/** How command_sandbox "off" is described in the banner and by /permissions. */
export const COMMAND_SANDBOX_OFF =
  'commands: unconfined (command_sandbox is "off"): they can do anything your user can';

/**
 * Formats the banner (no trailing newline).
 *
 * @example
 * ```ts
 * import { formatBanner } from "./banner.ts";
 * import { emptyGrants } from "../sandbox/grants/grants.ts";
 * import { createStyle } from "../ui/style.ts";
 * const text = formatBanner({
 *   model: "qwen3", where: "http://127.0.0.1:11434/v1", grants: emptyGrants(),
 *   sessionId: "s1", noSession: false,
 * }, createStyle(false));
 * if (!text.includes("qwen3 @ http://127.0.0.1:11434/v1") || !text.includes("session s1")) {
 *   throw new Error(text);
 * }
 * ```
 */
export function formatBanner(facts: BannerFacts, style: Style): string {
  return [
    `${style.bold("harness")} ${denoJson.version} · ${terminalLine(facts.model)} @ ${
      terminalLine(facts.where)
    }`,
    style.dim(`sandbox: ${formatGrants(facts.grants)}`),
    ...(facts.yes ? [style.yellow(YES_MODE)] : []),
    ...(facts.commandSandboxOff ? [style.yellow(COMMAND_SANDBOX_OFF)] : []),
    ...(facts.plan ? [style.cyan(PLAN_MODE)] : []),
    // File names come with the repository: escapes show as text.
    ...(facts.instructions?.length
      ? [style.dim(`instructions: ${facts.instructions.map(terminalLine).join(", ")}`)]
      : []),
    style.dim(
      facts.sessionId
        ? `session ${facts.sessionId}`
        : facts.noSession
        ? "no session log (--no-session)"
        : "session log unavailable",
    ),
    style.dim("Type /help for commands; Ctrl-C interrupts; Ctrl-D exits"),
  ].join("\n");
}
