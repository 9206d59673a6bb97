// The REPL's /plan (and Shift-Tab, which enters it): turns plan mode on (app/plan_mode.ts), or,
// when it is on, shows the plan written so far and asks what next: implement it now (plan mode
// off, the model told to carry it out), keep planning, or start fresh with only the plan (a
// new conversation whose first message is the plan).

import type { Conversation } from "../../agent/conversation.ts";
import type { RunFlags } from "../../app/run_flags.ts";
import { type PlanExit, planModeOf } from "../../app/plan_mode.ts";
import type { ReplControl, SlashCommand } from "../../ui/repl.ts";
import { terminalLine, terminalSafe } from "../../platform/terminal_text.ts";

/** What /plan needs besides the REPL. */
export interface PlanCommandContext {
  /** Asks one question; the key answered. */
  key(question: string): Promise<string>;
  /** A new conversation (a new session), for "start fresh". */
  fresh(): Conversation;
}

/** The question asked when plan mode is left. */
export const LEAVE_QUESTION =
  "Leave plan mode? [1] implement it now  [2] keep planning  [3] start fresh with only the plan ";

const ANSWERS: Record<string, PlanExit> = { "1": "implement", "2": "keep", "3": "fresh" };

/**
 * The /plan command.
 *
 * @param context How it asks, and how it starts a fresh conversation.
 * @returns The command.
 */
export function planCommand(context: PlanCommandContext): SlashCommand {
  return {
    name: "plan",
    summary: "plan mode (Shift-Tab): read, search, run commands and write only the plan; " +
      "again to leave it",
    run: (_args, repl) => togglePlan(repl, context),
  };
}

async function togglePlan(repl: ReplControl, context: PlanCommandContext): Promise<void> {
  const mode = planModeOf(repl.conversation);
  const { style } = repl;
  if (mode === undefined) {
    repl.write(`${style.red("Plan mode is not available for this conversation")}\n`);
    return;
  }
  if (!mode.active) {
    const entered = await mode.enter();
    repl.write(
      "error" in entered
        ? `${style.red(terminalLine(entered.error))}\n`
        : `${style.cyan(terminalLine(entered.line))}\n`,
    );
    return;
  }
  const plan = await mode.plan();
  repl.write(
    plan === undefined
      ? `${style.dim(`No plan written yet (${terminalLine(mode.file)})`)}\n`
      : `${style.dim(`Plan (${terminalLine(mode.file)}):`)}\n${terminalSafe(plan.trimEnd())}\n`,
  );
  const exit = ANSWERS[(await context.key(style.yellow(LEAVE_QUESTION))).trim()] ?? "keep";
  repl.write("\n");
  if (exit === "keep") {
    repl.write(`${style.dim("Still in plan mode")}\n`);
    return;
  }
  mode.leave(exit);
  repl.write(`${style.cyan("Plan mode is off")}\n`);
  if (exit === "implement") {
    await repl.runTurn("Implement the plan.");
    return;
  }
  repl.setConversation(context.fresh());
  if (plan !== undefined) await repl.runTurn(`Implement this plan:\n\n${plan}`);
}

/**
 * --plan: the conversation starts in plan mode.
 *
 * @returns Whether it is in plan mode (a line says why not, when it could not start).
 */
export async function startPlanning(
  conversation: Conversation,
  flags: Pick<RunFlags, "plan">,
  say: (text: string) => void,
): Promise<boolean> {
  if (!flags.plan) return false;
  const entered = await planModeOf(conversation)?.enter();
  if (entered && "error" in entered) say(`${terminalLine(entered.error)}\n`);
  return entered !== undefined && "line" in entered;
}
