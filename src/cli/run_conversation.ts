// Starts a conversation (new or resumed) and runs it in the REPL or as one -p prompt: the
// terminal front end opens the run (app/open_run.ts assembles it), then either the REPL
// reads the user's lines or the prompt runs once. Everything the run opened is closed here.

import type { RunFlags } from "../app/run_flags.ts";
import { type CommandIO, settingsOrExit } from "./command_io.ts";
import { chooseSession } from "./choose_session.ts";
import { openRun, type Workspace } from "../app/open_run.ts";
import type { PreparedMessage } from "../turn_input/prepare_message.ts";
import { terminalLine } from "../platform/terminal_text.ts";
import { formatAgentError } from "../errors.ts";
import type { Conversation } from "../agent/conversation.ts";
import { EXIT } from "../app/exit_codes.ts";
import { printEarlyFailure, runPrint } from "./run_print.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import type { SessionStore } from "../sessions/session_store_types.ts";
import type { StartAhead } from "./prompt_ahead.ts";
import { createStyle, type Style, wantsColor } from "../ui/style.ts";
import { tracePhase } from "../platform/startup_trace.ts";
import { terminalFrontEnd } from "./terminal_front_end.ts";
import { type TerminalSessions, terminalSessions } from "./terminal_sessions.ts";
import type * as RunRepl from "./run_repl.ts";
import { loadOwnModule } from "../platform/own_modules.ts";

const encoder = new TextEncoder();
// Only the REPL loads readline, slash commands and approval prompts (own_modules.ts).
const loadRepl = () => loadOwnModule<typeof RunRepl>("src/cli/run_repl.ts");
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
  const replModule = printMode ? undefined : await loadRepl();
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
    ...(replModule
      ? { makeRepl: () => replModule.createRepl({ terminal, style, cwd, ahead, grants }) }
      : {}),
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
    ...(ahead?.provider ? { provider: ahead.provider } : {}),
    onWriteError(error) {
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
    replModule?.replPrompter(screen.turnInput(), { color, commandNote: tools.commandNote }),
  );
  if (printMode) {
    tools.mcp?.start();
    await tools.set.ready(); // nothing to show meanwhile: list the real tools
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
    ...(replModule ? { recap: (messages) => replModule.replRecap(messages, style) } : {}),
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
  workspace.value.follow(() => repl?.conversation ?? conversation);

  let exitCode: number;
  if (repl === undefined || replModule === undefined) {
    // A custom command and the @ mentions, read through the sandbox before anything is sent.
    const prepared = await preparePrompt(prompt ?? "", workspace.value);
    if ("refused" in prepared) {
      fatalIo.printError(prepared.refused);
      conversation.parts.recorder.end();
      await run.close();
      return EXIT.usage;
    }
    for (const note of prepared.notes) writeErr(`${style.dim(terminalLine(note))}\n`);
    exitCode = await runPrintMode(conversation, prepared.send, flags, style, run.store);
    tracePhase("answer printed");
  } else {
    const parts = { run, workspace: workspace.value, approver, sessions };
    exitCode = await replModule.runRepl(repl, conversation, { flags, cwd, style, ahead }, parts);
    conversation = repl.conversation ?? conversation;
  }
  conversation.parts.recorder.end();
  // A -p run whose session could not be recorded (disk full, from its start or later) did not
  // do all it was asked: it still finishes its answer, then exits 1.
  if (repl === undefined && run.store.unsaved() && exitCode === EXIT.ok) {
    exitCode = EXIT.runtime;
  }
  await run.close();
  tracePhase("run closed");
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

/**
 * The -p prompt as it is sent: `/name args` of a custom command or a skill becomes its text
 * (commands load only for such a prompt), then the @ mentions are attached.
 */
async function preparePrompt(prompt: string, workspace: Workspace): Promise<PreparedMessage> {
  // A plain prompt loads nothing more.
  if (!prompt.includes("@") && !prompt.trimStart().startsWith("/")) {
    return { send: prompt, notes: [], attached: [], images: [] };
  }
  const { customCommandCall, prepareMessage } = await import("../turn_input/prepare_message.ts");
  let text = prompt;
  if (text.trimStart().startsWith("/")) {
    const loaded = await workspace.commands();
    for (const line of loaded.problems) writeErr(`${terminalLine(line)}\n`);
    text = customCommandCall(text, loaded.commands, workspace.tools.skills) ?? text;
  }
  return await prepareMessage(text, {
    cwd: workspace.cwd,
    host: workspace.tools.host,
    rules: () => workspace.approval.rules,
  });
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
  store: SessionStore,
): Promise<number> {
  // --plan: the prompt is answered in plan mode (its plan is the answer).
  if (flags.plan) {
    const { startPlanning } = await import("./slash/plan_command.ts");
    if (!await startPlanning(conversation, flags, writeErr)) return EXIT.usage;
  }
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
      unsaved: () => store.unsaved(),
    });
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
  }
}
