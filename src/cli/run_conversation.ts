// Starts a conversation (new or resumed) and runs it in the REPL or as one -p prompt, in
// stages: settings and prompt, policy rules, session log, provider, terminal input, tools,
// approver, conversation, then the run itself. Everything opened here is closed here.

import process from "node:process";
import type { RunFlags } from "./args.ts";
import { type CommandIO, openStoreOrExit, settingsOrExit } from "./command_io.ts";
import { chooseSession, formatSessions } from "./choose_session.ts";
import { type OpenedProvider, openProvider } from "./open_provider.ts";
import { isNoServerError } from "../providers/discover_server.ts";
import { openRunApprover, type RunApprover } from "./run_approver.ts";
import { type RunSessions, runSessions } from "./run_sessions.ts";
import { openRunTools, type RunTools } from "./run_tools.ts";
import { slashCommands } from "./slash_commands.ts";
import type { Settings } from "../config/settings.ts";
import { formatAgentError } from "../errors.ts";
import type { Conversation } from "../agent/conversation.ts";
import { EXIT } from "./exit_codes.ts";
import { printEarlyFailure, runPrint } from "./run_print.ts";
import { Repl, type TurnInput } from "../ui/repl.ts";
import { formatGrants, type Grants } from "../sandbox/grants.ts";
import { describeCommandSandbox } from "../sandbox/command_sandbox.ts";
import { exitOnSignals } from "../sandbox/command_sandbox_groups.ts";
import { formatBanner, YES_MODE } from "./banner.ts";
import type { StartAhead } from "./prompt_ahead.ts";
import type { SessionStore } from "../sessions/session_store_types.ts";
import {
  formatPolicyFileError,
  loadPolicyFiles,
  policyFileRefs,
} from "../permissions/policy_file.ts";
import { appendHistory, loadHistory } from "../ui/repl_history.ts";
import { editInEditor } from "../ui/external_editor.ts";
import { createStyle, type Style, wantsColor } from "../ui/style.ts";
import { tracePhase } from "./startup_trace.ts";
import { formatServerStates } from "../mcp/mcp_servers.ts";

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
  const rules = await loadPolicyFiles(
    policyFileRefs({ cwd, ...(flags.policies ? { extra: flags.policies } : {}) }),
  );
  if (!rules.ok) {
    fatalIo.printError(formatPolicyFileError(rules.error));
    return EXIT.usage;
  }
  tracePhase("policy files loaded");
  const log = openSessionLog(flags, cwd, { fatal: fatalIo, plain: io });
  if ("exit" in log) return log.exit;
  const { store, resumeId } = log;

  const terminal = !printMode && Deno.stdin.isTerminal();
  const color = wantsColor(
    printMode ? Deno.stderr.isTerminal() : Deno.stdout.isTerminal(),
    (name) => Deno.env.get(name),
  );
  const style = createStyle(color);
  const opened = await openProviderShowing(settings, {
    printMode,
    yes: flags.yes,
    terminal,
    style,
    ahead,
    fatalIo,
  });
  if (typeof opened === "number" || !opened.ok) {
    if (typeof opened !== "number") fatalIo.printError(formatAgentError(opened.error));
    store.close();
    return typeof opened === "number"
      ? opened
      : opened.error.kind === "usage"
      ? EXIT.usage
      : EXIT.runtime;
  }
  const { repl, turnInput } = createTurnInput({ printMode, terminal, style, cwd, ahead });
  tracePhase("REPL created");

  // The REPL's /clear and /resume replace its conversation; the tools follow the live one.
  const live: { current?: () => Conversation } = {};
  const tools = await openRunTools({
    settings,
    grants,
    cwd,
    printMode,
    provider: opened.value.provider,
    ...(opened.value.baseUrl ? { serverUrl: opened.value.baseUrl } : {}),
    contextLength: opened.value.contextLength,
    messages: () => live.current?.().messages ?? [],
    conversationWindow: () => live.current?.()?.contextLength,
    turnInput,
    writeErr,
    style,
  });
  tracePhase("tools opened");
  const approval = await openRunApprover({
    rules: rules.value,
    cwd,
    yes: flags.yes,
    printMode,
    turnInput,
    writeErr,
    color,
    style,
    commandNote: tools.commandNote,
    host: tools.tools.host,
    runner: tools.runner,
  });
  const close = () => closeAll(tools.runner, store, opened.value.close);
  if (printMode && await approval.rulesProblem) {
    fatalIo.printError((await approval.rulesProblem)!);
    await close();
    return EXIT.usage;
  }
  const sessions = runSessions({
    flags,
    settings,
    grants,
    cwd,
    store,
    opened: opened.value,
    runner: tools.runner,
    approver: approval.approver,
    pluginNames: tools.tools.names,
    shownSessionId: ahead?.shown?.sessionId ?? undefined,
    style,
    io,
  });

  const first = firstConversation(sessions, resumeId, { turnInput, fatalIo });
  if (first === undefined) {
    await close();
    return EXIT.usage;
  }
  let conversation = first;
  live.current = () => repl?.conversation ?? conversation;

  let exitCode: number;
  if (repl === undefined) {
    exitCode = await runPrintMode(conversation, prompt ?? "", flags, style);
    if (log.writeFailed() && exitCode === EXIT.ok) exitCode = EXIT.runtime;
  } else {
    const run = { flags, settings, grants, cwd, store, opened: opened.value, style, ahead };
    exitCode = await runReplMode(repl, conversation, run, { tools, approval, sessions });
    conversation = repl.conversation ?? conversation;
  }
  conversation.parts.recorder.end();
  await close();
  return exitCode;
}

/**
 * Opens the session log and chooses the session to continue; prints the error and gives the
 * exit code when either fails. A -p run whose session could not be recorded (disk full) did not
 * do all it was asked: it still finishes its answer, then exits 1 (`writeFailed`).
 */
function openSessionLog(
  flags: RunFlags,
  cwd: string,
  io: { fatal: CommandIO; plain: CommandIO },
): { store: SessionStore; resumeId: string | undefined; writeFailed(): boolean } | {
  exit: number;
} {
  let writeFailed = false;
  const store = openStoreOrExit(flags, io.fatal, (error) => {
    writeFailed = true;
    if (flags.prompt !== undefined) io.plain.printError(formatAgentError(error));
    else console.error(`Warning ${formatAgentError(error)}`);
  });
  if (typeof store === "number") return { exit: store };
  tracePhase("session store opened");
  const resumeId = chooseSession(flags, store, cwd, io);
  if (typeof resumeId === "object") {
    store.close();
    return resumeId;
  }
  return { store, resumeId, writeFailed: () => writeFailed };
}

/** The conversation a run starts with: resumed (its recap shown) or new. */
function firstConversation(
  sessions: RunSessions,
  resumeId: string | undefined,
  io: { turnInput: TurnInput; fatalIo: CommandIO },
): Conversation | undefined {
  if (resumeId === undefined) {
    const conversation = sessions.fresh();
    tracePhase("session started");
    return conversation;
  }
  const resumed = sessions.resume(resumeId);
  if ("error" in resumed) {
    io.fatalIo.printError(resumed.error);
    return undefined;
  }
  io.turnInput.write(`${resumed.note}\n`);
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
 * Opens the provider, showing an in-process model's load progress and the startup notes. When
 * harness looked for a server and none answered, offers the default model in this process
 * (embedded_default.ts); declining or a failed download prints why and gives the exit code.
 */
async function openProviderShowing(
  settings: Settings,
  at: {
    printMode: boolean;
    yes: boolean;
    terminal: boolean;
    style: Style;
    ahead: StartAhead | undefined;
    fatalIo: CommandIO;
  },
): Promise<Awaited<ReturnType<typeof openProvider>> | number> {
  const { terminal } = at;
  let loadingShown = false;
  const loadProgress = at.printMode ? undefined : (fraction: number) => {
    loadingShown = true;
    writeErr(`\r${terminal ? "\x1b[2K" : ""}Loading model ${Math.round(fraction * 100)}%`);
  };
  let opened = await openProvider(settings, loadProgress);
  const hereNotes: string[] = [];
  if (!opened.ok && settings.discover && isNoServerError(opened.error)) {
    // No server answered: offer to run the default model in this process.
    const { runModelHere } = await import("./embedded_default.ts");
    const here = await runModelHere(settings, opened.error, {
      printMode: at.printMode,
      yes: at.yes === true,
      io: {
        printError: (message) => at.fatalIo.printError(message),
        write: writeErr,
        isTerminal: Deno.stderr.isTerminal(),
        readLine: async (text) => {
          at.ahead?.release(); // a prompt shown ahead put the terminal in raw mode
          return (await import("./read_stdin_line.ts")).readStdinLine(text);
        },
      },
    });
    if (!here.ok) {
      at.fatalIo.printError(here.error.message);
      return EXIT.runtime;
    }
    settings.modelFile = here.value.modelFile;
    settings.discover = false;
    hereNotes.push(here.value.note);
    opened = await openProvider(settings, loadProgress);
  }
  // The progress line goes away (on a terminal) or ends (in a log), so nothing is glued to it;
  // the REPL draws its prompt again when it attaches.
  if (loadingShown) writeErr(terminal ? "\r\x1b[2K" : "\n");
  if (!opened.ok) return opened;
  tracePhase("provider opened");
  const notes = [...hereNotes, ...(opened.value.notes ?? [])];
  // Notes go above a prompt already shown; the REPL draws it again when it attaches.
  if (notes.length > 0 && at.ahead?.shown && terminal) writeErr("\r\x1b[2K");
  for (const note of notes) writeErr(`${at.style.dim(`note: ${note}`)}\n`);
  return opened;
}

/**
 * Where the user answers: the REPL, which owns stdin (permission prompts and trust questions
 * read through it), or for -p an input that answers nothing (Ctrl-C to any key).
 */
function createTurnInput(
  at: {
    printMode: boolean;
    terminal: boolean;
    style: Style;
    cwd: string;
    ahead: StartAhead | undefined;
  },
): { repl: Repl | undefined; turnInput: TurnInput } {
  if (at.printMode) {
    return {
      repl: undefined,
      turnInput: {
        write: writeErr,
        readKey: () => Promise.resolve("\x03"),
        readLine: () => Promise.resolve(null),
      },
    };
  }
  const repl = new Repl({
    input: process.stdin,
    output: process.stdout,
    terminal: at.terminal,
    style: at.style,
    history: loadHistory(at.cwd),
    onHistoryLine: (line) => appendHistory(at.cwd, line),
    commands: [],
    banner: "",
    promptShown: at.ahead?.shown !== undefined,
    openEditor: (text) => editInEditor(text),
    addSignalListener: at.terminal ? undefined : (handler) => {
      Deno.addSignalListener("SIGINT", handler);
      return () => Deno.removeSignalListener("SIGINT", handler);
    },
  });
  return { repl, turnInput: repl.turnInput };
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

/** What the REPL stage needs of the run. */
interface ReplRun {
  flags: RunFlags;
  settings: Settings;
  grants: Grants;
  cwd: string;
  store: SessionStore;
  opened: OpenedProvider;
  style: Style;
  ahead: StartAhead | undefined;
}

/** Runs the REPL until the user leaves; returns the exit code. */
async function runReplMode(
  repl: Repl,
  conversation: Conversation,
  run: ReplRun,
  parts: { tools: RunTools; approval: RunApprover; sessions: RunSessions },
): Promise<number> {
  const { flags, settings, grants, opened, style, ahead } = run;
  const { tools, approval, sessions } = parts;
  const { approver } = approval;
  const mcp = tools.mcp;
  // The session being left ends, as with /clear, and its approvals with it.
  const leave = () => {
    (repl.conversation ?? conversation).parts.recorder.end();
    void approver.loaded().then((loaded) => loaded.resetSession());
  };
  repl.setCommands(slashCommands({
    tools: async () => {
      await tools.tools.host.ready();
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
          describeCommandSandbox(await tools.tools.commandSandbox)
        }`,
        ...(flags.yes ? { mode: `A${YES_MODE.slice(1)}` } : {}),
        sessionApprovals: loaded.sessionApprovals(),
        rules: loaded.rules(),
      });
    },
    sessionsList: () => formatSessions(run.store, run.cwd),
    sessionStats: async (id, style) =>
      (await import("./stats_command.ts")).sessionStatsText(run.store, id, style),
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
  const host = tools.tools.host;
  void host.ready().then(() => tracePhase("tool list ready")).finally(redraw);
  void host.warmUp().then(() => tracePhase("sandbox worker started")).finally(redraw);
  if (mcp) {
    mcp.start();
    void mcp.settled(60_000).then(() => tracePhase("MCP servers' tools ready")).finally(redraw);
  }
  void approver.loaded().then(() => tracePhase("policy engine loaded")).finally(redraw);
  return await running;
}

async function closeAll(
  host: { close(): Promise<void> },
  store: SessionStore,
  closeProvider?: () => Promise<void>,
): Promise<void> {
  await host.close();
  store.close();
  await closeProvider?.();
}
