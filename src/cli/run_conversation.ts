// Starts a conversation (new or resumed) and runs it in the REPL or as one -p prompt:
// settings, policy rules, session log, provider, sandboxed tools, approver, then the
// conversation itself. Everything opened here is closed here.

import { join } from "node:path";
import process from "node:process";
import type { RunFlags } from "./args.ts";
import { type CommandIO, openStoreOrExit, settingsOrExit } from "./run_command.ts";
import { openProvider } from "./open_provider.ts";
import { isNoServerError } from "../providers/discover_server.ts";
import { openTools } from "./open_tools.ts";
import { slashCommands } from "./slash_commands.ts";
import { dataDir } from "../config.ts";
import { formatAgentError } from "../errors.ts";
import { Conversation, type ConversationParts } from "../conversation.ts";
import { EXIT, printEarlyFailure, runPrint } from "../run_print.ts";
import { Repl, type TurnInput } from "../repl.ts";
import { buildSystemPrompt } from "../system_prompt.ts";
import { formatGrants, type Grants } from "../sandbox/grants.ts";
import { describeCommandSandbox } from "../sandbox/command_sandbox.ts";
import { exitOnSignals } from "../sandbox/command_sandbox_groups.ts";
import { formatBanner, YES_MODE } from "./banner.ts";
import { formatTranscript } from "../ui/transcript.ts";
import { turnCount } from "./sessions_command.ts";
import { keepProjectPolicyTrusted, trustProjectPolicy } from "./project_policy_trust.ts";
import type { StartAhead } from "./prompt_ahead.ts";
import type { SessionStore } from "../session_store.ts";
import type { SessionRecorder } from "../session_types.ts";
import {
  formatPolicyFileError,
  loadPolicyFiles,
  policyFileRefs,
  userPolicyFile,
} from "../permissions/policy_file.ts";
import type { PolicyApprover, PolicyApproverOptions } from "../permissions/policy_approver.ts";
import type { Approver } from "../permissions/approver.ts";
import { createPrompter } from "../permissions/prompter.ts";
import { appendHistory, loadHistory } from "../repl_history.ts";
import { createStyle, wantsColor } from "../ui/style.ts";
import { repairArguments } from "../tools/repair_arguments.ts";
import { tracePhase } from "./startup_trace.ts";
import { CodeTools } from "../code_index/code_tools.ts";
import { WithCodeTools } from "../tools/with_code_tools.ts";
import { OfferedTools } from "../tools/offered_tools.ts";
import { formatServerStates, McpServers } from "../mcp/mcp_servers.ts";
import { WithMcpTools } from "../mcp/mcp_tools.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import type { Message } from "../messages.ts";

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
  const env = (name: string) => Deno.env.get(name);
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
  // The id the banner shows goes to the first session; /clear starts others with new ids.
  let shownSessionId = ahead?.shown?.sessionId ?? undefined;
  let prompt = flags.prompt;
  if (prompt === "-") {
    prompt = await new Response(Deno.stdin.readable).text();
    if (prompt.trim() === "") {
      fatalIo.printError(
        'Empty prompt on stdin for "-p -": pipe the prompt text, e.g. echo "fix the tests" | harness -p -',
      );
      return EXIT.usage;
    }
  }

  const rules = await loadPolicyFiles(
    policyFileRefs({ cwd, ...(flags.policies ? { extra: flags.policies } : {}) }),
  );
  if (!rules.ok) {
    fatalIo.printError(formatPolicyFileError(rules.error));
    return EXIT.usage;
  }
  tracePhase("policy files loaded");
  // A -p run whose session could not be recorded (disk full) did not do all it was asked:
  // it still finishes its answer, then exits 1.
  let logWriteFailed = false;
  const store = openStoreOrExit(flags, fatalIo, (error) => {
    logWriteFailed = true;
    if (printMode) io.printError(formatAgentError(error));
    else console.error(`Warning ${formatAgentError(error)}`);
  });
  if (typeof store === "number") return store;
  tracePhase("session store opened");

  // Which session: a new one, the latest here (--continue) or a given one (--resume).
  let resumeId: string | undefined;
  if (flags.continue) {
    const found = store.latestSession(cwd);
    if (!found.ok) {
      fatalIo.printError(formatAgentError(found.error));
      store.close();
      return EXIT.runtime;
    }
    const latest = found.value;
    if (!latest) {
      fatalIo.printError(`No session to continue in "${cwd}": start one with "harness"`);
      store.close();
      return EXIT.usage;
    }
    resumeId = latest.id;
  } else if (typeof flags.resume === "string") {
    resumeId = flags.resume;
  } else if (flags.resume === true) {
    const picked = pickSession(store, cwd, io);
    if (picked === undefined) {
      store.close();
      return EXIT.usage;
    }
    resumeId = picked;
  }

  const terminal = !printMode && Deno.stdin.isTerminal();
  const color = wantsColor(printMode ? Deno.stderr.isTerminal() : Deno.stdout.isTerminal(), env);
  const style = createStyle(color);

  let loadingShown = false;
  const loadProgress = printMode ? undefined : (fraction: number) => {
    loadingShown = true;
    writeErr(`\r${terminal ? "\x1b[2K" : ""}Loading model ${Math.round(fraction * 100)}%`);
  };
  let opened = await openProvider(settings, loadProgress);
  const hereNotes: string[] = [];
  if (!opened.ok && settings.discover && isNoServerError(opened.error)) {
    // No server answered: offer to run the default model in this process.
    const { runModelHere } = await import("./embedded_default.ts");
    const here = await runModelHere(settings, opened.error, {
      printMode,
      yes: flags.yes === true,
      io: {
        printError: (message) => fatalIo.printError(message),
        write: writeErr,
        isTerminal: Deno.stderr.isTerminal(),
        readLine: async (text) => {
          ahead?.release(); // a prompt shown ahead put the terminal in raw mode
          return (await import("./read_stdin_line.ts")).readStdinLine(text);
        },
      },
    });
    if (!here.ok) {
      fatalIo.printError(here.error.message);
      store.close();
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
  if (!opened.ok) {
    fatalIo.printError(formatAgentError(opened.error));
    store.close();
    return opened.error.kind === "usage" ? EXIT.usage : EXIT.runtime;
  }
  const { provider } = opened.value;
  tracePhase("provider opened");
  const notes = [...hereNotes, ...(opened.value.notes ?? [])];
  // Notes go above a prompt already shown; the REPL draws it again when it attaches.
  if (notes.length > 0 && ahead?.shown && terminal) writeErr("\r\x1b[2K");
  for (const note of notes) writeErr(`${style.dim(`note: ${note}`)}\n`);

  // The REPL owns stdin; permission prompts and trust questions read through it.
  let repl: Repl | undefined;
  let turnInput: TurnInput;
  if (!printMode) {
    repl = new Repl({
      input: process.stdin,
      output: process.stdout,
      terminal,
      style,
      history: loadHistory(cwd),
      onHistoryLine: (line) => appendHistory(cwd, line),
      commands: [],
      banner: "",
      promptShown: ahead?.shown !== undefined,
      addSignalListener: terminal ? undefined : (handler) => {
        Deno.addSignalListener("SIGINT", handler);
        return () => Deno.removeSignalListener("SIGINT", handler);
      },
    });
    turnInput = repl.turnInput;
  } else {
    turnInput = {
      write: writeErr,
      readKey: () => Promise.resolve("\x03"),
      readLine: () => Promise.resolve(null),
    };
  }

  tracePhase("REPL created");
  const outputsDir = join(dataDir(), "outputs");
  const tools = await openTools({
    settings,
    grants,
    cwd,
    dataDir: outputsDir,
    interactive: !printMode,
    io: {
      write: writeErr,
      readLine: (text) => turnInput.readLine(text),
      // One key, as approvals take it.
      readKey: async (text) => {
        writeErr(text);
        const key = await turnInput.readKey();
        writeErr(`${/^[\x20-\x7e]$/.test(key) ? key : ""}\n`);
        return key === "\x03" || key === "\x04" ? null : key;
      },
    },
    background: true,
  });
  // The code-graph tools run in the host beside the sandboxed plugins (src/code_index/).
  // Set once the conversation exists; /clear and /resume replace the REPL's conversation.
  const live: { current?: () => Conversation } = {};
  const codeRunner = new WithCodeTools(
    tools.host,
    new CodeTools({
      workspace: cwd,
      grants,
      dataDir: dataDir(),
      contextWindow: () => opened.value.contextLength,
      recentText: () => recentText(live.current?.().messages ?? []),
    }),
    settings.curator === "off" ? undefined : {
      provider,
      recentText: () => recentText(live.current?.().messages ?? []),
      contextText: () => lastUserText(live.current?.().messages ?? []),
      contextWindow: () => opened.value.contextLength,
    },
  );
  // MCP servers (src/mcp/) start after the prompt shows; their tools join when each is ready.
  const mcp = Object.keys(settings.mcpServers).length === 0 ? undefined : new McpServers(
    settings.mcpServers,
    {
      grants,
      cwd,
      notice: (line) => writeErr(`${style.yellow(`warning: ${line}`)}\n`),
    },
  );
  const withMcp: ToolRunner = mcp
    ? new WithMcpTools(codeRunner, mcp, {
      dataDir: outputsDir,
      maxOutputSize: settings.maxOutputSize,
      toolOutputLimit: settings.toolOutputLimit,
      timeouts: settings.toolTimeouts,
      // On a terminal, progress notifications replace the running tool's line.
      ...(Deno.stderr.isTerminal()
        ? {
          progress: (_name: string, text: string | null) =>
            writeErr(text === null ? "\r\x1b[2K" : `\r\x1b[2K${style.dim(text)}`),
        }
        : {}),
    })
    : codeRunner;
  // Only tools the sandbox can run are offered, in compact form for small windows.
  const runner = new OfferedTools(withMcp, {
    grants,
    workspace: cwd,
    contextWindow: () => live.current?.()?.contextLength ?? opened.value.contextLength,
  });
  tracePhase("tools opened");
  // The approval prompt says whether a command would run confined (issue 14).
  let commandNote = "commands: the command sandbox check has not finished";
  void tools.commandSandbox.then((sandbox) =>
    commandNote = `${describeCommandSandbox(sandbox)}; a command can start any program`
  );
  if (printMode) {
    mcp?.start();
    await runner.ready(); // nothing to show meanwhile: list the real tools
  }
  const trustIo = { write: writeErr, readLine: (text: string) => turnInput.readLine(text) };
  const projectPolicy = join(cwd, ".harness", "policies.jsonc");
  const policyTrust = await trustProjectPolicy(rules.value, {
    projectFile: projectPolicy,
    io: trustIo,
    interactive: !printMode,
    cwd,
  });
  // A misspelt tool or argument name in a rule is an error once the tool list is known: -p
  // stops before the first turn; the REPL says so and denies every call until a restart.
  const rulesProblem = tools.host.ready().then(async () => {
    const { checkRuleNames } = await import("../permissions/check_rule_names.ts");
    // Every tool counts, also those not offered under these flags: a rule may name one.
    const problem = checkRuleNames(rules.value, [...runner.list(), ...tools.host.list()]);
    return problem && formatPolicyFileError(problem);
  });
  if (printMode && await rulesProblem) {
    fatalIo.printError((await rulesProblem)!);
    await closeAll(runner, store, opened.value.close);
    return EXIT.usage;
  }
  const denyAll = rulesProblem.then((problem) => {
    if (problem === undefined) return undefined;
    const message = `${problem}: tool calls are denied until you fix it and restart harness`;
    turnInput.write(`${style.red(message)}\n`);
    return message;
  });
  const approver = lazyApprover({
    rules: policyTrust.rules,
    denyAll,
    mode: flags.yes ? "yes" : printMode ? "non_interactive" : "interactive",
    prompter: createPrompter({
      io: turnInput,
      color,
      toolNote: (tool) => tool === "run_command" ? commandNote : undefined,
    }),
    userPolicyFile: userPolicyFile(),
    projectPolicyFile: projectPolicy,
    workspace: cwd,
    onRuleSaved: (event) => {
      if (event.error) {
        turnInput.write(style.yellow(
          `Could not save the rule to "${event.file}": ${
            formatAgentError(event.error)
          }; it applies for this session only\n`,
        ));
        return;
      }
      turnInput.write(style.dim(`Saved rule to ${event.file}\n`));
      void keepProjectPolicyTrusted(event.file, {
        projectFile: projectPolicy,
        trusted: policyTrust.trusted,
        io: trustIo,
      });
    },
  });

  const newRecorder = (): SessionRecorder => {
    const started = store.startSession({
      model: provider.model,
      baseUrl: settings.modelFile ?? opened.value.baseUrl ?? settings.baseUrl,
      cwd,
      grants: formatGrants(grants),
      provider: provider.name,
    }, shownSessionId);
    shownSessionId = undefined;
    if (started.ok) return started.value;
    io.printError(`${formatAgentError(started.error)}`);
    return { id: null, record: () => {}, end: () => {} };
  };
  const partsWith = (recorder: SessionRecorder): ConversationParts => ({
    provider,
    tools: runner,
    approver,
    recorder,
    limits: { maxIterations: settings.maxIterations, maxToolCalls: settings.maxToolCalls },
    parseArguments: repairArguments,
    ...(opened.value.contextLength ? { contextLength: opened.value.contextLength } : {}),
    ...(opened.value.contextSource ? { contextSource: opened.value.contextSource } : {}),
    contextRaise: settings.modelFile !== undefined
      ? "--ctx-size"
      : provider.name === "ollama"
      ? "--num-ctx"
      : "the server's context size (llama-server -c, vLLM --max-model-len, LM Studio's context length)",
    compactAt: settings.compactAt,
  });
  // The tool list may still be loading (the prompt does not wait for it): until it is known,
  // the plugin file names stand for the tool names, which equal them.
  const toolNames = () => {
    const listed = runner.list().map((tool) => tool.name);
    return listed.length > 0 ? listed : tools.names;
  };
  const systemPrompt = () =>
    buildSystemPrompt({
      workspace: cwd,
      now: new Date(),
      os: Deno.build.os,
      tools: toolNames(),
      ...(settings.systemPrompt !== undefined ? { custom: settings.systemPrompt } : {}),
    });
  const fresh = () => Conversation.start(partsWith(newRecorder()), systemPrompt());
  const resume = (id: string): { conversation: Conversation; note: string } | { error: string } => {
    const loaded = store.loadSession(id);
    if (!loaded.ok) return { error: formatAgentError(loaded.error) };
    const { messages, state, interrupted, writer, info, forkedFrom } = loaded.value;
    const notes = forkedFrom === undefined
      ? [`Resumed session ${info.id} (${turnCount(info.userTurns)}, started ${info.startedAt})`]
      : [
        `Session ${forkedFrom} is open in another harness process: continuing in a copy, ` +
        `new session ${info.id} (${turnCount(info.userTurns)})`,
      ];
    for (const call of forkedFrom === undefined ? interrupted : []) {
      notes.push(
        `Tool call ${call.name} (${call.callId}) was interrupted: recorded as interrupted`,
      );
    }
    // The REPL shows where the conversation left off; -p goes straight on.
    const recap = printMode ? "" : formatTranscript(messages, style);
    return {
      conversation: new Conversation(partsWith(writer), { messages, state }),
      note: recap ? `${recap}\n${style.dim(notes.join("\n"))}` : style.dim(notes.join("\n")),
    };
  };

  let conversation: Conversation;
  live.current = () => repl?.conversation ?? conversation;
  if (resumeId !== undefined) {
    const resumed = resume(resumeId);
    if ("error" in resumed) {
      fatalIo.printError(resumed.error);
      await closeAll(runner, store, opened.value.close);
      return EXIT.usage;
    }
    conversation = resumed.conversation;
    turnInput.write(`${resumed.note}\n`);
  } else {
    conversation = fresh();
    tracePhase("session started");
  }

  let exitCode: number;
  if (printMode) {
    const controller = new AbortController();
    // Ctrl-C, a SIGTERM from a script or supervisor, and SIGHUP (the terminal closed) cancel
    // the run the same way: running commands' process groups are stopped and the session
    // records the cancellation.
    const onSigint = () => controller.abort();
    const signals: Deno.Signal[] = Deno.build.os === "windows"
      ? ["SIGINT"]
      : ["SIGINT", "SIGTERM", "SIGHUP"];
    for (const signal of signals) Deno.addSignalListener(signal, onSigint);
    try {
      exitCode = await runPrint(conversation, prompt ?? "", {
        format: flags.outputFormat,
        stdout: writeOut,
        stderr: writeErr,
        style,
        signal: controller.signal,
      });
    } finally {
      for (const signal of signals) Deno.removeSignalListener(signal, onSigint);
    }
    if (logWriteFailed && exitCode === EXIT.ok) exitCode = EXIT.runtime;
  } else {
    const commands = slashCommands({
      tools: async () => {
        await tools.host.ready();
        return runner.list();
      },
      unavailableTools: () => runner.unavailable(),
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
      sessionsList: () => formatSessions(store, cwd),
      ...(mcp ? { mcpReport: () => formatServerStates(mcp.states()) } : {}),
      resume: (id) => {
        const resumed = resume(id);
        // The session being left ends here, as with /clear, and its approvals with it.
        if (!("error" in resumed)) {
          (repl!.conversation ?? conversation).parts.recorder.end();
          void approver.loaded().then((loaded) => loaded.resetSession());
        }
        return Promise.resolve(resumed);
      },
      fresh: () => {
        (repl!.conversation ?? conversation).parts.recorder.end();
        void approver.loaded().then((loaded) => loaded.resetSession());
        return fresh();
      },
    });
    repl!.setCommands(commands);
    if (!ahead?.shown) {
      repl!.setBanner(formatBanner({
        model: provider.model,
        where: settings.modelFile ?? opened.value.baseUrl ?? settings.baseUrl,
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
      (repl!.conversation ?? conversation).parts.recorder.end();
    });
    const running = repl!.run(conversation).finally(removeExitSignals);
    ahead?.attached();
    tracePhase("REPL reading input");
    // While the user types: list the tools and start the busiest sandbox worker.
    // Each may load modules lazily, which under `deno run` clears the prompt line: it is
    // drawn again when each is done.
    const redraw = () => repl!.redrawPrompt();
    void tools.host.ready().then(() => tracePhase("tool list ready")).finally(redraw);
    void tools.host.warmUp().then(() => tracePhase("sandbox worker started")).finally(redraw);
    if (mcp) {
      mcp.start();
      void mcp.settled(60_000).then(() => tracePhase("MCP servers' tools ready")).finally(redraw);
    }
    void approver.loaded().then(() => tracePhase("policy engine loaded")).finally(redraw);
    exitCode = await running;
    conversation = repl!.conversation ?? conversation;
  }
  conversation.parts.recorder.end();
  await closeAll(runner, store, opened.value.close);
  return exitCode;
}

/** The last user and assistant messages, the code map's hint of what matters now. */
function recentText(messages: readonly Message[]): string {
  return messages.filter((m) =>
    m.kind === "user" || m.kind === "assistant" || m.kind === "tool_call"
  )
    .slice(-8).map((m) => m.content).join("\n").slice(-8000);
}

/** The last user messages: what the curator's cached choices depend on. */
function lastUserText(messages: readonly Message[]): string {
  return messages.filter((m) => m.kind === "user").slice(-2).map((m) => m.content).join("\n");
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

function formatSessions(store: SessionStore, cwd: string): string {
  const listed = store.listSessions({ cwd, limit: 20 });
  if (!listed.ok) return formatAgentError(listed.error);
  const sessions = listed.value;
  if (sessions.length === 0) return "No sessions in this folder yet";
  return sessions.map((s) =>
    `${s.id}  ${s.startedAt.slice(0, 16).replace("T", " ")}  ${
      turnCount(s.userTurns)
    }  ${s.model}  ${(s.firstUserMessage ?? "").replace(/\s+/g, " ").slice(0, 60)}`
  ).join("\n");
}

function pickSession(store: SessionStore, cwd: string, io: CommandIO): string | undefined {
  const listed = store.listSessions({ cwd, limit: 20, withUserMessage: true });
  if (!listed.ok) {
    io.printError(formatAgentError(listed.error));
    return undefined;
  }
  const sessions = listed.value;
  if (sessions.length === 0) {
    io.printError(`No sessions in "${cwd}": start one with "harness"`);
    return undefined;
  }
  if (!Deno.stdin.isTerminal()) {
    io.printError(
      `--resume needs a session id when stdin is not a terminal: run "harness sessions" to list them`,
    );
    return undefined;
  }
  sessions.forEach((s, i) =>
    console.log(
      `[${i + 1}] ${s.id}  ${s.startedAt.slice(0, 16).replace("T", " ")}  ${
        turnCount(s.userTurns)
      }  ${(s.firstUserMessage ?? "").slice(0, 60)}`,
    )
  );
  const answer = prompt("Resume which session?");
  const index = Number(answer) - 1;
  const chosen = sessions[index];
  if (!chosen) {
    io.printError(`No session numbered "${answer}"`);
    return undefined;
  }
  return chosen.id;
}

/**
 * The policy approver, its modules (and their glob matcher, an npm package that costs Deno
 * about 30 ms to load) imported on first use: the REPL preloads it after the prompt shows.
 */
function lazyApprover(
  options: PolicyApproverOptions,
): Approver & { loaded(): Promise<PolicyApprover> } {
  let loading: Promise<PolicyApprover> | undefined;
  const loaded = () =>
    loading ??= import("../permissions/policy_approver.ts").then((module) =>
      module.createPolicyApprover(options)
    );
  return {
    loaded,
    approve: async (request, signal) => await (await loaded()).approve(request, signal),
    approveTogether: async (requests, signal) =>
      await (await loaded()).approveTogether(requests, signal),
  };
}
