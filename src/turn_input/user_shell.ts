// `!command` at the prompt: a shell command the user typed, run without an approval question
// (the user typed it) but as run_command runs the model's: in the command sandbox built from
// the grants, with a clean environment. Its output is shown and becomes a message of the
// conversation, so the next message can refer to it.

import type { ToolOffer } from "../sandbox/grants/tool_offer.ts";
import { isTool, RUN_COMMAND } from "../tools/builtin_tools.ts";

/** What a `!command` did. */
export type ShellOutcome =
  /** `output`: what run_command returned (output, notes, exit code); `message`: for the model. */
  | { ok: true; output: string; message: string }
  | { ok: false; error: string };

/**
 * The conversation's record of a command the user ran.
 *
 * @example
 * ```ts
 * import { shellMessage } from "./user_shell.ts";
 * const text = shellMessage("git status", "clean\nexit_code: 0");
 * if (!text.startsWith("I ran this command in the workspace:\n$ git status\n")) throw new Error(text);
 * ```
 */
export function shellMessage(command: string, output: string): string {
  return `I ran this command in the workspace:\n$ ${command}\n${output}`;
}

/** The tools a `!command` runs with: the offer of the workspace, once its set is listed. */
export interface ShellTools {
  ready(): Promise<void>;
  offer(): ToolOffer;
}

/**
 * Runs a command the user typed after `!` through run_command (its sandbox, timeout and
 * output limits), without asking.
 *
 * @param command The command line.
 * @param tools The run's tools (run_command must be offered: it needs --allow-run).
 * @param options The signal that stops it (Ctrl-C) and the conversation state.
 * @returns The output and the message for the conversation, or why it did not run.
 *
 * @example
 * ```ts
 * import { runUserShell } from "./user_shell.ts";
 * const offer = {
 *   entries: [], infos: [], schemas: [], find: () => undefined,
 *   missingFlag: () => "--allow-run", unavailable: () => [],
 * };
 * const tools = { ready: () => Promise.resolve(), offer: () => offer };
 * const outcome = await runUserShell("ls", tools, { state: {} });
 * if (outcome.ok || !outcome.error.includes("--allow-run")) throw new Error(JSON.stringify(outcome));
 * ```
 */
export async function runUserShell(
  command: string,
  tools: ShellTools,
  options: { signal?: AbortSignal; state: Record<string, unknown> },
): Promise<ShellOutcome> {
  if (command.trim() === "") {
    return { ok: false, error: "Type a command after !, e.g. !git status" };
  }
  // The REPL takes input before the tool list has loaded.
  await tools.ready();
  const offer = tools.offer();
  const entry = offer.find(RUN_COMMAND.name);
  if (!isTool(entry?.info, RUN_COMMAND)) {
    const flag = offer.missingFlag(RUN_COMMAND.name);
    return {
      ok: false,
      error: flag
        ? `Cannot run "${command}": commands need ${flag}: restart harness with ${flag} ` +
          "(they run in the same sandbox as the model's run_command)"
        : `Cannot run "${command}": the run_command tool is not loaded`,
    };
  }
  const validated = await entry!.validate({ command });
  if (!validated.ok) {
    return { ok: false, error: `Cannot run "${command}": ${validated.error.join("; ")}` };
  }
  const run = await entry!.run(validated.value, {
    state: options.state,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const result = run.result;
  if (!result.success) {
    return {
      ok: false,
      error: result.error_message ?? `The command failed (${result.error_type})`,
    };
  }
  const output = result.data ?? "";
  return { ok: true, output, message: shellMessage(command, output) };
}
