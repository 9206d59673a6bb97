// The REPL's slash commands: /help, /tools, /mcp, /skills, /context, /compact, /permissions,
// /tasks, /jobs, /clear, /continue, /undo, /rewind, /sessions, /resume, /stats, /exit. A table of
// rows (name, summary, handler); each handler is a small function over the REPL control surface and
// the context.

import type { Conversation } from "../../agent/conversation.ts";
import type { Style } from "../../ui/style.ts";
import type { ReplControl, SlashCommand } from "../../ui/repl.ts";
import type { ToolInfo } from "../../tools/tool_entry.ts";
import type { UnavailableTool } from "../../sandbox/grants/tool_offer.ts";
import { formatContextReport } from "../../agent/context_report.ts";
import { formatTaskChecklist } from "../../tools/builtin/task_checklist.ts";
import { terminalLine, terminalSafe } from "../../platform/terminal_text.ts";
import { type RestoreAsk, restoreCommands } from "./restore_commands.ts";
import type { JobTable } from "../../jobs/job_table.ts";
import { jobLine } from "../../jobs/job_notes.ts";
import { jobState } from "../../jobs/job_control.ts";

export interface SlashContext {
  /** The tools, once their list has loaded (start-up loads it in the background). */
  tools(): Promise<readonly ToolInfo[]>;
  /** Tools the sandbox cannot run, each with the flag that would enable it. */
  unavailableTools?(): readonly UnavailableTool[];
  /** One line: what grep_search and glob search with (ripgrep and fd, or built-in and why). */
  searchNote?(): Promise<string>;
  /** Grants, session approvals and rules; the policy modules load on first use. */
  permissionsReport(): Promise<string>;
  /** Lists sessions for this folder, one line each. */
  sessionsList(): string;
  /** Loads a session to replace the current conversation; returns a note or an error line. */
  resume(id: string): Promise<{ conversation: Conversation; note: string } | { error: string }>;
  /** Starts a new session with an empty conversation. */
  fresh(): Conversation;
  /** MCP servers with status, tool count and errors (src/mcp/mcp_servers.ts). */
  mcpReport?(): string;
  /** The skills with where each came from, and the ones skipped (src/skills/skill_report.ts). */
  skillsReport?(): Promise<string>;
  /** The usage report of one session (src/cli/commands/stats_command.ts), or why there is none. */
  sessionStats?(sessionId: string | null, style: Style): Promise<string>;
  /** How /undo and /rewind ask about files the user changed (a key) and which message (a line). */
  restore?: RestoreAsk;
  /** /context's lines about the instruction files (turn_input/instructions_report.ts). */
  instructionsReport?(): string;
  /** The background jobs run_command started (/jobs lists them, /jobs kill ID stops one). */
  jobs?: Pick<JobTable, "summaries" | "kill">;
}

/** What a command's handler sees besides its arguments and the REPL. */
interface SlashScope {
  context: SlashContext;
  /** The REPL's commands as they are when typed (/help lists those added later too). */
  commands: readonly SlashCommand[];
}

/** One row of the table: what /help shows, and the handler. */
interface SlashEntry {
  name: string;
  summary: string;
  run(args: string, repl: ReplControl, scope: SlashScope): Promise<void> | void;
}

/** The REPL's slash commands, in the order /help lists them. */
const SLASH_COMMANDS: readonly SlashEntry[] = [
  { name: "help", summary: "list commands", run: showHelp },
  { name: "tools", summary: "list the tools the model can call", run: listTools },
  { name: "mcp", summary: "show MCP servers: status, tools and errors", run: showMcp },
  { name: "skills", summary: "list the skills and where each came from", run: showSkills },
  {
    name: "context",
    summary: "show the context window and what each part of the next request takes",
    run: showContext,
  },
  {
    name: "compact",
    summary: "replace the conversation by the model's summary of it: /compact [what to keep]",
    run: compact,
  },
  {
    name: "permissions",
    summary: "show sandbox grants, session approvals and policy rules",
    run: showPermissions,
  },
  { name: "tasks", summary: "show the task list", run: showTasks },
  {
    name: "jobs",
    summary: "list background jobs; /jobs kill ID stops one and all it started",
    run: jobs,
  },
  {
    name: "clear",
    summary: "start a new conversation (a new session, approvals asked again)",
    run: clear,
  },
  {
    name: "continue",
    summary: "continue after a limit, an error or an interrupt stopped the turn",
    run: continueTurn,
  },
  { name: "sessions", summary: "list sessions in this folder", run: listSessions },
  { name: "resume", summary: "resume a session: /resume ID", run: resume },
  {
    name: "stats",
    summary: "show this session's tool calls, approvals, tokens and stops",
    run: showStats,
  },
  { name: "exit", summary: "exit harness", run: (_args, repl) => repl.exit() },
];

/**
 * The table's commands as the REPL has them while the run opens: readline reads keys from the
 * REPL's creation, so Tab completes their names before the real commands exist; a line is not
 * run until then, and one run anyway only says so.
 *
 * @returns One stand-in per command of the table.
 */
export function startingCommands(): SlashCommand[] {
  return SLASH_COMMANDS.map(({ name, summary }) => ({
    name,
    summary,
    run: (_args, repl) => repl.write(`/${name} is not ready yet: harness is still starting\n`),
  }));
}

/**
 * Builds the REPL's slash commands over the given context.
 *
 * @param context What the commands read and change beyond the REPL itself.
 * @returns The commands, one per row of the table; the REPL may add more to the array.
 */
export function slashCommands(context: SlashContext): SlashCommand[] {
  const commands: SlashCommand[] = [];
  for (const { name, summary, run } of SLASH_COMMANDS) {
    commands.push({ name, summary, run: (args, repl) => run(args, repl, { context, commands }) });
    // /undo and /rewind follow /continue.
    if (name === "continue" && context.restore) commands.push(...restoreCommands(context.restore));
  }
  return commands;
}

async function showSkills(_args: string, repl: ReplControl, { context }: SlashScope) {
  const report = await context.skillsReport?.() ?? "No skills installed";
  repl.write(`${terminalSafe(report)}\n`);
}

function showHelp(_args: string, repl: ReplControl, { commands }: SlashScope): void {
  const lines = commands.map((c) =>
    `  /${terminalLine(c.name).padEnd(12)} ${terminalLine(c.summary)}`
  );
  repl.write(
    `${lines.join("\n")}\n  Ctrl-C interrupts a reply or tool; Ctrl-C twice or Ctrl-D exits\n`,
  );
}

async function listTools(_args: string, repl: ReplControl, { context }: SlashScope) {
  const lines = (await context.tools()).map((tool) =>
    `  ${repl.style.bold(terminalLine(tool.name).padEnd(22))} ${tool.risk.padEnd(7)} ${
      repl.style.dim(
        terminalLine(`[${tool.origin === "mcp" ? `mcp:${tool.server}` : tool.origin}]`),
      )
    } ${terminalLine(tool.description.split("\n")[0] ?? "")}`
  );
  const search = await context.searchNote?.();
  if (search) lines.push(repl.style.dim(search));
  const unavailable = context.unavailableTools?.() ?? [];
  if (unavailable.length > 0) {
    lines.push("Unavailable in this sandbox (not offered to the model):");
    for (const tool of unavailable) {
      lines.push(`  ${repl.style.dim(tool.name.padEnd(22))} needs ${tool.flag}`);
    }
  }
  repl.write(`${lines.join("\n")}\n`);
}

function showMcp(_args: string, repl: ReplControl, { context }: SlashScope): void {
  repl.write(
    `${
      terminalSafe(context.mcpReport?.() ?? "") ||
      'No MCP servers configured: add one with "harness mcp add NAME -- COMMAND ARGS..."'
    }\n`,
  );
}

function showContext(_args: string, repl: ReplControl, { context }: SlashScope): void {
  const report = repl.conversation.contextReport();
  const instructions = context.instructionsReport?.();
  repl.write(
    `${report ? formatContextReport(report) : "The context window is not known"}\n${
      instructions === undefined ? "" : `${terminalSafe(instructions)}\n`
    }`,
  );
}

/** Typed while a turn runs, /compact waits in the queue: it runs between turns only. */
async function compact(args: string, repl: ReplControl): Promise<void> {
  const conversation = repl.conversation;
  const done = await repl.interruptible((display, signal) =>
    conversation.compact(display, signal, args.trim())
  );
  if (done.error) repl.write(`${repl.style.yellow(terminalSafe(done.error))}\n`);
}

async function showPermissions(_args: string, repl: ReplControl, { context }: SlashScope) {
  repl.write(`${await context.permissionsReport()}\n`);
}

function showTasks(_args: string, repl: ReplControl): void {
  repl.write(`${terminalSafe(formatTaskChecklist(repl.conversation.state))}\n`);
}

async function jobs(args: string, repl: ReplControl, { context }: SlashScope): Promise<void> {
  const table = context.jobs;
  const kill = /^kill\s+(\S+)$/.exec(args.trim());
  if (table && kill) {
    const reply = await table.kill(kill[1]!);
    repl.write(
      "unknown" in reply
        ? `${repl.style.red(terminalLine(reply.unknown))}\n`
        : `${terminalLine(`${reply.job.id} ${jobState(reply.job)}: ${reply.job.command}`)}\n`,
    );
    return;
  }
  const list = table?.summaries() ?? [];
  repl.write(
    list.length === 0
      ? `${repl.style.dim("No background jobs")}\n`
      : `${list.map((job) => `  ${terminalLine(jobLine(job))}`).join("\n")}\n`,
  );
}

function clear(_args: string, repl: ReplControl, { context }: SlashScope): void {
  const fresh = context.fresh();
  fresh.sessionStartsBy("clear");
  repl.setConversation(fresh);
  repl.write(
    `${
      repl.style.dim("Started a new conversation; approvals given for this session are forgotten")
    }\n`,
  );
}

async function continueTurn(_args: string, repl: ReplControl): Promise<void> {
  if (!repl.conversation.canContinue()) {
    repl.write(`${repl.style.dim("Nothing to continue: the last turn was answered")}\n`);
    return;
  }
  await repl.runTurn(null);
}

function listSessions(_args: string, repl: ReplControl, { context }: SlashScope): void {
  repl.write(`${terminalSafe(context.sessionsList())}\n`);
}

async function resume(args: string, repl: ReplControl, { context }: SlashScope): Promise<void> {
  if (!args) {
    repl.write(`${terminalSafe(context.sessionsList())}\nType /resume ID to resume one\n`);
    return;
  }
  const resumed = await context.resume(args.trim());
  if ("error" in resumed) {
    repl.write(`${repl.style.red(resumed.error)}\n`);
    return;
  }
  repl.setConversation(resumed.conversation);
  repl.write(`${resumed.note}\n`);
}

async function showStats(_args: string, repl: ReplControl, { context }: SlashScope) {
  const id = repl.conversation.parts.recorder.id;
  repl.write(
    `${(await context.sessionStats?.(id, repl.style)) ?? "No statistics in this front end"}\n`,
  );
}
