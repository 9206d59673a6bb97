// How a run makes conversations: a fresh one with a new session, or one resumed from the
// session log (with a recap in the REPL and notes about interrupted calls). The REPL's /clear
// and /resume use the same two.

import type { RunFlags } from "./args.ts";
import type { Settings } from "../config/settings.ts";
import { formatAgentError } from "../errors.ts";
import { Conversation, type ConversationParts } from "../agent/conversation.ts";
import type { SessionRecorder } from "../agent/session_recorder.ts";
import { buildSystemPrompt } from "../agent/system_prompt.ts";
import { repairArguments } from "../agent/repair_arguments.ts";
import type { Approver } from "../permissions/approver.ts";
import { formatGrants, type Grants } from "../sandbox/grants.ts";
import { turnCount } from "../sessions/query_sessions.ts";
import type { SessionStore } from "../sessions/session_store_types.ts";
import type { ToolRunner } from "../tools/tool_runner.ts";
import { formatTranscript } from "../ui/transcript.ts";
import type { Style } from "../ui/style.ts";
import type { OpenedProvider } from "./open_provider.ts";
import type { CommandIO } from "./command_io.ts";

export interface RunSessionsOptions {
  flags: RunFlags;
  settings: Settings;
  grants: Grants;
  cwd: string;
  store: SessionStore;
  opened: OpenedProvider;
  runner: ToolRunner;
  approver: Approver;
  /** Tool names before the tool list is known (the plugin files' names, which equal them). */
  pluginNames: readonly string[];
  /** The session id the banner already showed, given to the first new session. */
  shownSessionId: string | undefined;
  style: Style;
  io: CommandIO;
}

/** Makes conversations for one run. */
export interface RunSessions {
  fresh(): Conversation;
  resume(id: string): { conversation: Conversation; note: string } | { error: string };
}

/** The two ways a run gets a conversation, sharing its provider, tools and approver. */
export function runSessions(options: RunSessionsOptions): RunSessions {
  const { settings, opened, store, cwd, style } = options;
  const { provider } = opened;
  let shownSessionId = options.shownSessionId;
  const newRecorder = (): SessionRecorder => {
    const started = store.startSession({
      model: provider.model,
      baseUrl: settings.modelFile ?? opened.baseUrl ?? settings.baseUrl,
      cwd,
      grants: formatGrants(options.grants),
      provider: provider.name,
    }, shownSessionId);
    shownSessionId = undefined;
    if (started.ok) return started.value;
    options.io.printError(`${formatAgentError(started.error)}`);
    return { id: null, record: () => {}, end: () => {} };
  };
  const partsWith = (recorder: SessionRecorder): ConversationParts => ({
    provider,
    tools: options.runner,
    approver: options.approver,
    recorder,
    limits: { maxIterations: settings.maxIterations, maxToolCalls: settings.maxToolCalls },
    parseArguments: repairArguments,
    ...(opened.contextLength ? { contextLength: opened.contextLength } : {}),
    ...(opened.contextSource ? { contextSource: opened.contextSource } : {}),
    contextRaise: settings.modelFile !== undefined
      ? "--ctx-size"
      : provider.name === "ollama"
      ? "--num-ctx"
      : "the server's context size (llama-server -c, vLLM --max-model-len, LM Studio's context length)",
    compactAt: settings.compactAt,
    loopGuard: settings.loopGuard,
  });
  // The tool list may still be loading (the prompt does not wait for it).
  const toolNames = () => {
    const listed = options.runner.list().map((tool) => tool.name);
    return listed.length > 0 ? listed : [...options.pluginNames];
  };
  const systemPrompt = () =>
    buildSystemPrompt({
      workspace: cwd,
      now: new Date(),
      os: Deno.build.os,
      tools: toolNames(),
      ...(settings.systemPrompt !== undefined ? { custom: settings.systemPrompt } : {}),
    });
  return {
    fresh: () => Conversation.start(partsWith(newRecorder()), systemPrompt()),
    resume(id) {
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
      const recap = options.flags.prompt !== undefined ? "" : formatTranscript(messages, style);
      return {
        conversation: new Conversation(partsWith(writer), { messages, state }),
        note: recap ? `${recap}\n${style.dim(notes.join("\n"))}` : style.dim(notes.join("\n")),
      };
    },
  };
}
