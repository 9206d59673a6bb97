// The slash commands an editor offers (available_commands_update): /continue, /tasks, /tools,
// /permissions, /context, /compact, /undo and /rewind, answered from the session without a
// model turn (except /continue, which runs the loop on, and /compact, which asks the model for
// its summary). The REPL's own versions live in src/cli/. An
// editor cannot be asked mid-command, so a file the user changed since is settled by the
// command's word: /undo keep or /undo overwrite; without one nothing is changed and the reply
// says so.

import { offerTools } from "../sandbox/grants/tool_offer.ts";
import type { Conversation } from "../agent/conversation.ts";
import { formatContextReport } from "../agent/context_report.ts";
import { formatPermissionsReport } from "../permissions/explain.ts";
import type { PolicyApprover } from "../permissions/policy_approver.ts";
import { formatGrants, type Grants } from "../sandbox/grants/grants.ts";
import { formatTaskChecklist } from "../tools/builtin/task_checklist.ts";
import {
  type ConflictAnswer,
  formatTurns,
  type RestoreReport,
  rewindTo,
  undoLastTurn,
} from "../app/restore_files.ts";

/** What a prompt asks for: a normal turn, a reply without the model, or a continuation. */
export type SlashOutcome =
  | { kind: "none" }
  | { kind: "reply"; text: string }
  | { kind: "continue" };

/**
 * Answers a prompt that is one of the ACP slash commands; other prompts are normal turns.
 *
 * @param text The prompt text.
 * @param context The session's conversation, approver and the grants.
 * @returns What to do.
 *
 * @example
 * ```ts
 * import { runSlashCommand } from "./acp_commands.ts";
 * const context = { conversation: {} as never, approver: () => ({}) as never, grants: {} as never, yes: false };
 * if ((await runSlashCommand("hello /tasks", context)).kind !== "none") throw new Error();
 * ```
 */
export async function runSlashCommand(
  text: string,
  context: {
    conversation: Conversation;
    /** The session's policy engine (loaded on first use). */
    approver: () => Promise<PolicyApprover>;
    grants: Grants;
    yes: boolean;
    /** The prompt's cancel (stops a /compact summary). */
    signal?: AbortSignal;
  },
): Promise<SlashOutcome> {
  const match = /^\/([a-z_]+)(?:\s+(.*))?$/s.exec(text.trim());
  const args = match?.[2]?.trim() ?? "";
  // Only /undo, /rewind and /compact take words; "/tasks please" is a message to the model.
  if (args !== "" && !WORD_COMMANDS.has(match?.[1] ?? "")) return { kind: "none" };
  switch (match?.[1]) {
    case "compact":
      return { kind: "reply", text: await compact(context.conversation, args, context.signal) };
    case "undo":
      return { kind: "reply", text: await undo(context.conversation, args) };
    case "rewind":
      return { kind: "reply", text: await rewind(context.conversation, args) };
    case "continue":
      return context.conversation.canContinue()
        ? { kind: "continue" }
        : { kind: "reply", text: "Nothing to continue: the last turn was answered" };
    case "context": {
      const report = context.conversation.contextReport();
      return {
        kind: "reply",
        text: report ? formatContextReport(report) : "The context window is not known",
      };
    }
    case "tasks":
      return { kind: "reply", text: formatTaskChecklist(context.conversation.state) };
    case "tools": {
      const { conversation } = context;
      await conversation.parts.tools.set.ready();
      const offer = offerTools(conversation.parts.tools, conversation.contextLength);
      const lines = offer.infos.map((tool) =>
        `${tool.name} (${tool.risk}, ${tool.origin}): ${tool.description.split("\n")[0]}`
      );
      return { kind: "reply", text: lines.join("\n") };
    }
    case "permissions": {
      const approver = await context.approver();
      return {
        kind: "reply",
        text: formatPermissionsReport({
          sandbox: `Sandbox: ${formatGrants(context.grants)}`,
          ...(context.yes
            ? { mode: "Approvals: --yes (calls run unless a rule denies them)" }
            : {}),
          sessionApprovals: approver.sessionApprovals(),
          rules: approver.rules(),
        }),
      };
    }
    default:
      return { kind: "none" };
  }
}

/** The commands that take words after their name. */
const WORD_COMMANDS: ReadonlySet<string> = new Set(["undo", "rewind", "compact"]);

/** /compact [focus]: between prompts only (an editor sends no prompt while one runs). */
async function compact(
  conversation: Conversation,
  focus: string,
  signal = new AbortController().signal,
): Promise<string> {
  // The summary is recorded by the conversation; the editor is told in the reply.
  const done = await conversation.compact(() => {}, signal, focus);
  return done.error ??
    "Compacted: the conversation goes on from the model's summary (the session log keeps all)";
}

/** The word that settles files the user changed: keep, overwrite, or none yet. */
function choiceOf(word: string | undefined): ConflictAnswer | undefined | "bad" {
  if (word === undefined || word === "") return undefined;
  return word === "keep" || word === "overwrite" ? word : "bad";
}

/**
 * Runs a restore with the command's word as the answer to conflicts; without a word, a
 * conflict stops it and the reply names the files and the two ways on.
 */
async function settled(
  command: string,
  word: ConflictAnswer | undefined,
  restore: (
    ask: (conflicts: readonly string[]) => Promise<ConflictAnswer>,
  ) => Promise<RestoreReport>,
): Promise<string> {
  let asked: readonly string[] = [];
  const report = await restore((conflicts) => {
    asked = conflicts;
    return Promise.resolve(word ?? "cancel");
  });
  if (!report.done && word === undefined && asked.length > 0) {
    return `You changed ${asked.join(", ")} after the model did, so nothing was changed. Send ` +
      `"${command} keep" to restore the rest and keep your changes, or "${command} overwrite" ` +
      "to restore them too";
  }
  return report.lines.join("\n");
}

async function undo(conversation: Conversation, args: string): Promise<string> {
  const word = choiceOf(args);
  if (word === "bad") return `Unknown word "${args}": send /undo, /undo keep or /undo overwrite`;
  return await settled(
    "/undo",
    word,
    (ask) => undoLastTurn(conversation, { ask, display: () => {} }),
  );
}

async function rewind(conversation: Conversation, args: string): Promise<string> {
  const turns = conversation.turns();
  if (turns.length === 0) return "Nothing to rewind: no message was sent yet";
  const [number, wordText, ...extra] = args.split(/\s+/).filter((part) => part !== "");
  if (number === undefined) {
    return `${formatTurns(turns).join("\n")}\nSend /rewind N to go back before message N`;
  }
  const turn = /^\d+$/.test(number) ? turns[Number(number) - 1] : undefined;
  const word = choiceOf(wordText);
  if (turn === undefined || word === "bad" || extra.length > 0) {
    return `Send /rewind N [keep|overwrite] with N from 1 to ${turns.length}`;
  }
  return await settled(
    `/rewind ${number}`,
    word,
    (ask) => rewindTo(conversation, turn, { ask, display: () => {} }),
  );
}
