// The REPL's own part of a run, loaded only for the REPL (a -p run never pays for readline,
// the slash commands or the approval prompts): making the REPL, its approval prompter, its
// slash commands and banner, and running it until the user leaves.

import { configDir, dataDir, homeDir } from "../config/folders.ts";
import { FileGate } from "../gate/file_gate.ts";
import { readingRules } from "../gate/protected_set.ts";
import process from "node:process";
import type { Run, Workspace } from "../app/open_run.ts";
import type { LazyApprover } from "../app/run_approver.ts";
import type { RunFlags } from "../app/run_flags.ts";
import type { Conversation } from "../agent/conversation.ts";
import type { Prompter } from "../permissions/prompt_types.ts";
import { formatGrants, type Grants } from "../sandbox/grants/grants.ts";
import { describeCommandSandbox } from "../sandbox/commands/command_sandbox.ts";
import { exitOnSignals } from "../sandbox/commands/command_sandbox_groups.ts";
import { formatServerStates } from "../mcp/mcp_servers.ts";
import type { Message } from "../messages.ts";
import { Repl, type ReplControl, type TurnInput } from "../ui/repl.ts";
import { appendHistory, loadHistory } from "../ui/repl_history.ts";
import { editInEditor } from "../ui/external_editor.ts";
import { createPrompter } from "../ui/prompter.ts";
import type { Style } from "../ui/style.ts";
import { formatTranscript } from "../ui/transcript.ts";
import { tracePhase } from "../platform/startup_trace.ts";
import { formatBanner, YES_MODE } from "./banner.ts";
import { formatSessions } from "./choose_session.ts";
import { slashCommands, startingCommands } from "./slash/slash_commands.ts";
import {
  customSlashCommands,
  initCommand,
  modelCommand,
} from "./slash/workspace_slash_commands.ts";
import { formatInstructionsReport } from "../turn_input/instructions_report.ts";
import { prepareMessage } from "../turn_input/prepare_message.ts";
import type { ShellTools } from "../turn_input/user_shell.ts";
import { CODE_MAP, isTool, RUN_COMMAND } from "../tools/builtin_tools.ts";
import { pastedImages } from "../turn_input/prompt_images.ts";
import { terminalLine, terminalSafe } from "../platform/terminal_text.ts";

import type { StartAhead } from "./prompt_ahead.ts";
import type { TerminalSessions } from "./terminal_sessions.ts";
import type { RestoreAsk } from "./slash/restore_commands.ts";
import { planCommand, startPlanning } from "./slash/plan_command.ts";
import { planModeOf } from "../app/plan_mode.ts";

/**
 * The REPL, which owns stdin from its making: permission prompts and trust questions read it.
 *
 * @param options The terminal, style, folder (its input history) and the prompt shown ahead.
 */
export function createRepl(
  options: {
    terminal: boolean;
    style: Style;
    cwd: string;
    ahead: StartAhead | undefined;
    /** The run's grants: Tab lists paths through a reading gate until the run's is open. */
    grants?: Grants;
  },
): Repl {
  const { terminal, grants } = options;
  const completionGate = grants &&
    FileGate.open(readingRules(grants, { config: configDir(), data: dataDir() }));
  const repl: Repl = new Repl({
    input: process.stdin,
    output: process.stdout,
    terminal,
    style: options.style,
    history: loadHistory(options.cwd),
    onHistoryLine: (line) => appendHistory(options.cwd, line),
    commands: startingCommands(),
    banner: "",
    promptShown: options.ahead?.shown !== undefined,
    openEditor: (text) => editInEditor(text),
    workspace: options.cwd,
    ...(completionGate ? { completionGate } : {}),
    addSignalListener: terminal ? undefined : (handler) => {
      Deno.addSignalListener("SIGINT", handler);
      return () => Deno.removeSignalListener("SIGINT", handler);
    },
    // Plan mode shows on the prompt; Shift-Tab enters /plan.
    promptMark: () => {
      const conversation = repl.conversation;
      return conversation && planModeOf(conversation)?.active ? "plan" : undefined;
    },
    modeCommand: "/plan",
  });
  return repl;
}

/** The approval prompt on the terminal, which says how run_command's commands are confined. */
export function replPrompter(
  input: TurnInput,
  options: { color: boolean; commandNote(): string },
): Prompter {
  return createPrompter({
    io: input,
    color: options.color,
    toolNote: (tool) => tool === RUN_COMMAND.name ? options.commandNote() : undefined,
  });
}

/** Where a resumed conversation left off, as the REPL shows it. */
export function replRecap(messages: readonly Message[], style: Style): string {
  return formatTranscript(messages, style);
}

/** A `!command` line: run in the command sandbox, shown, and added to the conversation. */
async function runShellLine(
  command: string,
  repl: ReplControl,
  tools: ShellTools,
): Promise<void> {
  const { runUserShell } = await import("../turn_input/user_shell.ts");
  const outcome = await repl.interruptible((_display, signal) =>
    runUserShell(command, tools, { signal, state: repl.conversation.state })
  );
  if (!outcome.ok) {
    repl.write(`${repl.style.red(terminalLine(outcome.error))}\n`);
    return;
  }
  repl.write(`${terminalSafe(outcome.output)}\n`);
  repl.conversation.addMessage({ kind: "user", content: outcome.message });
}

/** How the REPL asks a question: one key, or one line. */
function questions(repl: Repl): RestoreAsk {
  return {
    key(question) {
      repl.turnInput.write(question);
      return repl.turnInput.readKey();
    },
    line: (question) => repl.turnInput.readLine(question),
  };
}

/** /skills: the skills with where each came from, and the files skipped. */
async function skillsReport(tools: Workspace["tools"], cwd: string): Promise<string> {
  const { formatSkillList } = await import("../skills/skill_report.ts");
  const skills = tools.skills;
  const found = skills ? { ...skills.found, skills: skills.tools.skills() } : undefined;
  return formatSkillList(found ?? { skills: [], skipped: [] }, { cwd, home: homeDir() });
}

/** What the REPL stage needs of the command line. */
export interface ReplRun {
  flags: RunFlags;
  cwd: string;
  style: Style;
  ahead: StartAhead | undefined;
}

/** Runs the REPL until the user leaves; returns the exit code. */
export async function runRepl(
  repl: Repl,
  conversation: Conversation,
  at: ReplRun,
  parts: { run: Run; workspace: Workspace; approver: LazyApprover; sessions: TerminalSessions },
): Promise<number> {
  const { flags, style, ahead } = at;
  const { run, approver, sessions } = parts;
  const { settings, grants, provider: opened } = run;
  const { tools } = parts.workspace;
  const mcp = tools.mcp;
  // The session being left ends, as with /clear, and its approvals with it.
  const leave = () => {
    (repl.conversation ?? conversation).parts.recorder.end();
    void approver.loaded().then((loaded) => loaded.resetSession());
  };
  const fresh = () => {
    leave();
    return sessions.fresh();
  };
  const instructions = parts.workspace.instructions;
  const commands = slashCommands({
    instructionsReport: () => formatInstructionsReport(instructions),
    jobs: tools.jobs,
    tools: async () => {
      await tools.host.ready();
      return tools.offer().infos;
    },
    unavailableTools: () => tools.offer().unavailable(),
    searchNote: () => tools.host.searchNote(),
    permissionsReport: async () => {
      const [{ formatPermissionsReport }, loaded] = await Promise.all([
        import("../permissions/explain.ts"),
        approver.loaded(),
      ]);
      return formatPermissionsReport({
        sandbox: `Sandbox: ${formatGrants(grants)}\n${
          describeCommandSandbox(await tools.commandSandbox)
        }`,
        ...(flags.yes ? { mode: `A${YES_MODE.slice(1)}` } : {}),
        sessionApprovals: loaded.sessionApprovals(),
        rules: loaded.rules(),
      });
    },
    sessionsList: () => formatSessions(run.store, at.cwd),
    sessionStats: async (id, style) =>
      (await import("./commands/stats_command.ts")).sessionStatsText(run.store, id, style),
    ...(mcp ? { mcpReport: () => formatServerStates(mcp.states()) } : {}),
    skillsReport: () => skillsReport(tools, at.cwd),
    resume: (id) => {
      const resumed = sessions.resume(id);
      if (!("error" in resumed)) leave();
      return Promise.resolve(resumed);
    },
    fresh,
    restore: questions(repl),
  });
  // /init, /model, the custom commands (a project's asked about first) and the skills.
  const builtin = new Set([...commands.map((command) => command.name), "init", "model"]);
  const custom = await parts.workspace.commands();
  const offered = customSlashCommands(custom.commands, builtin, tools.skills);
  for (const line of [...custom.problems, ...offered.skipped]) {
    repl.turnInput.write(`${style.dim(terminalLine(line))}\n`);
  }
  commands.push(
    initCommand(instructions, () => tools.offer().entries.some((e) => isTool(e.info, CODE_MAP))),
    modelCommand(run, settings),
    planCommand({ key: questions(repl).key, fresh }),
    ...offered.commands,
  );
  repl.setCommands(commands);
  // Tab lists only what the run's file gate lets the session list (issue 38).
  repl.setCompletionGate(tools.gate);
  const planning = await startPlanning(conversation, flags, repl.turnInput.write);
  if (!ahead?.shown) {
    repl.setBanner(formatBanner({
      model: opened.provider.model,
      where: settings.modelFile ?? opened.baseUrl ?? settings.baseUrl,
      grants,
      sessionId: conversation.parts.recorder.id,
      noSession: flags.noSession,
      yes: flags.yes,
      commandSandboxOff: settings.commandSandbox === "off",
      instructions: instructions.files.map((file) => file.label),
      plan: planning,
    }, style));
  }
  // @ mentions are read through the sandbox before a message is sent; !command runs in it. An
  // image path the terminal pasted (a dropped file) is read through the workspace's gate.
  repl.setPrepare(async (text, signal, pasted) => {
    const prepared = await prepareMessage(text, {
      cwd: parts.workspace.cwd,
      host: tools.host,
      rules: () => parts.workspace.approval.rules,
    }, { signal });
    if ("refused" in prepared) return prepared;
    const images = await pastedImages(text, {
      pasted,
      gate: tools.gate,
      maxBytes: settings.imageMaxSize,
    });
    return "refused" in images ? images : { ...prepared, images: images.images };
  });
  repl.setShell((command, control) =>
    runShellLine(command, control, { ready: () => tools.set.ready(), offer: () => tools.offer() })
  );
  // The terminal closed (SIGHUP) or a supervisor stops harness (SIGTERM): stop every command
  // still running, close the session and exit (129 or 143).
  const removeExitSignals = exitOnSignals(["SIGHUP", "SIGTERM"], () => {
    (repl.conversation ?? conversation).parts.recorder.end();
  });
  const running = repl.run(conversation).finally(removeExitSignals);
  ahead?.attached();
  tracePhase("REPL reading input");
  // While the user types: list the tools and start the busiest sandbox worker.
  const host = tools.host;
  const background = [
    host.ready().then(() => tracePhase("tool list ready")),
    host.warmUp().then(() => tracePhase("sandbox worker started")),
    approver.loaded().then(() => tracePhase("policy engine loaded")),
  ];
  if (mcp) {
    mcp.start();
    background.push(mcp.settled(60_000).then(() => tracePhase("MCP servers' tools ready")));
  }
  redrawAsLoaded(background, () => repl.redrawPrompt());
  return await running;
}

/**
 * Draws the prompt again as each piece of start-up work behind it ends: each may load modules
 * lazily, which under `deno run` clears the prompt line. When all of it is done, nothing more
 * loads behind the prompt: traced as "start-up settled" (the pty tests wait for it).
 */
function redrawAsLoaded(background: readonly Promise<unknown>[], redraw: () => void): void {
  for (const work of background) void work.finally(redraw);
  void Promise.allSettled(background).then(() => tracePhase("start-up settled")).finally(redraw);
}
