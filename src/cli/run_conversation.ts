// Starts a conversation (new or resumed) and runs it in the REPL or as one -p prompt: the
// terminal front end opens the run (app/open_run.ts assembles it), then either the REPL
// reads the user's lines or the prompt runs once. Everything the run opened is closed here.

import type { RunFlags } from "../app/run_flags.ts";
import { type CommandIO, settingsOrExit } from "./command_io.ts";
import { chooseSession, formatSessions } from "./choose_session.ts";
import { openRun, type Run, type Workspace } from "../app/open_run.ts";
import type { LazyApprover } from "../app/run_approver.ts";
import { formatAgentError } from "../errors.ts";
import type { Conversation } from "../agent/conversation.ts";
import { EXIT } from "../app/exit_codes.ts";
import { printEarlyFailure, runPrint } from "./run_print.ts";
import type { Repl } from "../ui/repl.ts";
import { formatGrants, type Grants } from "../sandbox/grants.ts";
import { describeCommandSandbox } from "../sandbox/command_sandbox.ts";
import { exitOnSignals } from "../sandbox/command_sandbox_groups.ts";
import { formatBanner, YES_MODE } from "./banner.ts";
import type { StartAhead } from "./prompt_ahead.ts";
import { createStyle, type Style, wantsColor } from "../ui/style.ts";
import { createPrompter } from "../ui/prompter.ts";
import { tracePhase } from "../platform/startup_trace.ts";
import { formatServerStates } from "../mcp/mcp_servers.ts";
import { slashCommands } from "./slash_commands.ts";
import { terminalFrontEnd } from "./terminal_front_end.ts";
import { type TerminalSessions, terminalSessions } from "./terminal_sessions.ts";

const encoder = new TextEncoder();
const writeOut = (text: string) => Deno.stdout.writeSync(encoder.encode(text));
const writeErr = (text: string) => Deno.stderr.writeSync(encoder.encode(text));

/**
 * Runs the REPL, or the -p prompt when given; returns the exit code.
 *
 * @param ahead The settings loaded before this module, and whether the REPL's banner and
 *   prompt are on screen already (prompt_ahead.ts).
 */
export async function runConversation(
  flags: RunFlags,
  grants: Grants,
  io: CommandIO,
  ahead?: StartAhead,
): Promise<number> {
  const cwd = Deno.cwd();
  const printMode = flags.prompt !== undefined;
  tracePhase("run_conversation.ts imported");
  // Errors that end a -p run before its first turn still leave the final JSON on stdout.
  const fatalIo: CommandIO = !printMode ? io : {
    ...io,
    printError(message: string) {
      io.printError(message);
      printEarlyFailure(flags.outputFormat, message, writeOut);
    },
  };
  const settings = ahead?.settings ?? await settingsOrExit(flags, fatalIo);
  if (typeof settings === "number") return settings;
  const prompt = await readPrompt(flags.prompt, fatalIo);
  if (typeof prompt === "number") return prompt;

  const terminal = !printMode && Deno.stdin.isTerminal();
  const color = wantsColor(
    printMode ? Deno.stderr.isTerminal() : Deno.stdout.isTerminal(),
    (name) => Deno.env.get(name),
  );
  const style = createStyle(color);
  // A -p run whose session could not be recorded (disk full) did not do all it was asked: it
  // still finishes its answer, then exits 1.
  let writeFailed = false;
  let resumeId: string | undefined;
  const screen = terminalFrontEnd({
    settings,
    printMode,
    terminal,
    style,
    cwd,
    yes: flags.yes,
    ahead,
    fatalIo,
    chooseSession(store) {
      const chosen = chooseSession(flags, store, cwd, { fatal: fatalIo, plain: io });
      if (typeof chosen === "object") return chosen.exit;
      resumeId = chosen;
      return undefined;
    },
  });
  const opened = await openRun({
    settings,
    grants,
    cwd,
    yes: flags.yes,
    ...(flags.policies !== undefined ? { policies: flags.policies } : {}),
    noSession: flags.noSession,
    onWriteError(error) {
      writeFailed = true;
      if (printMode) io.printError(formatAgentError(error));
      else console.error(`Warning ${formatAgentError(error)}`);
    },
  }, screen.frontEnd);
  if (!opened.ok) {
    screen.endProgress();
    if (opened.error.message !== undefined) fatalIo.printError(opened.error.message);
    return opened.error.exit;
  }
  const run = opened.value;
  const workspace = await run.workspace(cwd);
  if (!workspace.ok) {
    // The run's own folder opened its rules with the run: this cannot fail now.
    fatalIo.printError(workspace.error.message ?? "The workspace did not open");
    await run.close();
    return workspace.error.exit;
  }
  const { tools, approval } = workspace.value;
  const approver = approval.approver(
    printMode ? undefined : createPrompter({
      io: screen.turnInput(),
      color,
      toolNote: (tool) => tool === "run_command" ? tools.commandNote() : undefined,
    }),
  );
  if (printMode) {
    tools.mcp?.start();
    await tools.runner.ready(); // nothing to show meanwhile: list the real tools
    const problem = await approval.rulesProblem;
    if (problem !== undefined) {
      fatalIo.printError(problem);
      await run.close();
      return EXIT.usage;
    }
  }
  const sessions = terminalSessions(run.sessions(workspace.value), {
    approver,
    shownSessionId: ahead?.shown?.sessionId ?? undefined,
    recap: !printMode,
    style,
    io,
  });
  const first = firstConversation(sessions, resumeId, fatalIo, screen.turnInput().write);
  if (first === undefined) {
    await run.close();
    return EXIT.usage;
  }
  let conversation = first;
  const repl = screen.repl();
  const live = () => repl?.conversation ?? conversation;
  workspace.value.follow(() => live().messages, () => live().contextLength);

  let exitCode: number;
  if (repl === undefined) {
    exitCode = await runPrintMode(conversation, prompt ?? "", flags, style);
    if (writeFailed && exitCode === EXIT.ok) exitCode = EXIT.runtime;
  } else {
    const parts = { run, workspace: workspace.value, approver, sessions };
    exitCode = await runReplMode(repl, conversation, { flags, cwd, style, ahead }, parts);
    conversation = repl.conversation ?? conversation;
  }
  conversation.parts.recorder.end();
  await run.close();
  return exitCode;
}

/** The conversation a run starts with: resumed (its recap shown) or new. */
function firstConversation(
  sessions: TerminalSessions,
  resumeId: string | undefined,
  fatalIo: CommandIO,
  write: (text: string) => void,
): Conversation | undefined {
  if (resumeId === undefined) {
    const conversation = sessions.fresh();
    tracePhase("session started");
    return conversation;
  }
  const resumed = sessions.resume(resumeId);
  if ("error" in resumed) {
    fatalIo.printError(resumed.error);
    return undefined;
  }
  write(`${resumed.note}\n`);
  return resumed.conversation;
}

/** The -p prompt, read from stdin for "-"; an exit code when stdin held none. */
async function readPrompt(
  given: string | undefined,
  fatalIo: CommandIO,
): Promise<string | undefined | number> {
  if (given !== "-") return given;
  const text = await new Response(Deno.stdin.readable).text();
  if (text.trim() !== "") return text;
  fatalIo.printError(
    'Empty prompt on stdin for "-p -": pipe the prompt text, e.g. echo "fix the tests" | harness -p -',
  );
  return EXIT.usage;
}

/**
 * Runs the -p prompt. Ctrl-C, a SIGTERM from a script or supervisor, and SIGHUP (the terminal
 * closed) cancel it the same way: running commands' process groups are stopped and the session
 * records the cancellation.
 */
async function runPrintMode(
  conversation: Conversation,
  prompt: string,
  flags: RunFlags,
  style: Style,
): Promise<number> {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  const signals: Deno.Signal[] = Deno.build.os === "windows"
    ? ["SIGINT"]
    : ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  try {
    return await runPrint(conversation, prompt, {
      format: flags.outputFormat,
      stdout: writeOut,
      stderr: writeErr,
      style,
      signal: controller.signal,
    });
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
  }
}

/** What the REPL stage needs of the command line. */
interface ReplRun {
  flags: RunFlags;
  cwd: string;
  style: Style;
  ahead: StartAhead | undefined;
}

/** Runs the REPL until the user leaves; returns the exit code. */
async function runReplMode(
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
  repl.setCommands(slashCommands({
    tools: async () => {
      await tools.host.ready();
      return tools.runner.list();
    },
    unavailableTools: () => tools.runner.unavailable(),
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
    ...(mcp ? { mcpReport: () => formatServerStates(mcp.states()) } : {}),
    resume: (id) => {
      const resumed = sessions.resume(id);
      if (!("error" in resumed)) leave();
      return Promise.resolve(resumed);
    },
    fresh: () => {
      leave();
      return sessions.fresh();
    },
  }));
  if (!ahead?.shown) {
    repl.setBanner(formatBanner({
      model: opened.provider.model,
      where: settings.modelFile ?? opened.baseUrl ?? settings.baseUrl,
      grants,
      sessionId: conversation.parts.recorder.id,
      noSession: flags.noSession,
      yes: flags.yes,
      commandSandboxOff: settings.commandSandbox === "off",
    }, style));
  }
  // The terminal closed (SIGHUP) or a supervisor stops harness (SIGTERM): stop every command
  // still running, close the session and exit (129 or 143).
  const removeExitSignals = exitOnSignals(["SIGHUP", "SIGTERM"], () => {
    (repl.conversation ?? conversation).parts.recorder.end();
  });
  const running = repl.run(conversation).finally(removeExitSignals);
  ahead?.attached();
  tracePhase("REPL reading input");
  // While the user types: list the tools and start the busiest sandbox worker. Each may load
  // modules lazily, which under `deno run` clears the prompt line: it is drawn again when each
  // is done.
  const redraw = () => repl.redrawPrompt();
  const host = tools.host;
  void host.ready().then(() => tracePhase("tool list ready")).finally(redraw);
  void host.warmUp().then(() => tracePhase("sandbox worker started")).finally(redraw);
  if (mcp) {
    mcp.start();
    void mcp.settled(60_000).then(() => tracePhase("MCP servers' tools ready")).finally(redraw);
  }
  void approver.loaded().then(() => tracePhase("policy engine loaded")).finally(redraw);
  return await running;
}
