// Runs the hooks of an event: the user's and (once trusted) the project's matchers that select
// the tool or source, each distinct command once, all at the same time, with the JSON Claude
// Code sends on stdin, and combines what they decided (hook_outcome.ts). A project's hooks run
// only where the command sandbox confines them; otherwise they are skipped with a notice.

import { type HookEvent, type HooksConfig, matcherSelects } from "../config/hooks_config.ts";
import { combineOutcomes, type HookOutcome, readHookRun } from "./hook_outcome.ts";
import { claudeCodeInput, claudeCodeToolName } from "./hook_tool_names.ts";
import { type HookSpawner, runHookCommand } from "./run_hook_command.ts";
import { budgetHookText, stderrExcerpt } from "./hook_text_budget.ts";

/** Claude Code's default timeout of a hook command, in seconds. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

/** Hooks from one config file. */
export interface HookSource {
  origin: "user" | "project";
  hooks: HooksConfig;
  /**
   * How its commands start, or why they cannot (a project's without a command sandbox); a
   * promise while the sandbox check runs.
   */
  spawn: HookSpawner | { refused: string } | Promise<HookSpawner | { refused: string }>;
}

/** What every hook of a run shares. */
export interface HookRunnerOptions {
  sources: readonly HookSource[];
  /** The workspace: where hooks run, `cwd` and CLAUDE_PROJECT_DIR. */
  cwd: string;
  /** The session id hooks see (empty before a session is recorded). */
  sessionId(): string;
  /** "bypassPermissions" with --yes, else "default". */
  permissionMode: string;
  /** The model, for SessionStart. */
  model: string;
  /** The model's window in tokens, when known: what hooks add for the model is cut to a share. */
  contextLength?: () => number | undefined;
  /**
   * Runs after the hooks of an event ran: a hook is a process that may have moved a denied or
   * protected entry; what it returns (the run's file gate's sentence) joins the notices.
   */
  afterHooks?(): string | undefined;
}

/** A tool call as hooks see it. */
export interface HookedCall {
  id: string;
  name: string;
  /** The MCP server of an MCP tool. */
  server?: string;
  args: unknown;
}

/** The hooks of one run. */
export class HookRunner {
  readonly #options: HookRunnerOptions;
  readonly #refusedSaid = new Set<string>();

  constructor(options: HookRunnerOptions) {
    this.#options = options;
  }

  /**
   * Whether any hook of `event` would run for these names (a tool's names, or a source).
   *
   * @example
   * ```ts
   * import { HookRunner } from "./hook_runner.ts";
   * const runner = new HookRunner({
   *   sources: [{ origin: "user", spawn: { refused: "x" }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] } }],
   *   cwd: "/w", sessionId: () => "s", permissionMode: "default", model: "m",
   * });
   * if (!runner.has("PreToolUse", ["run_command", "Bash"]) || runner.has("PreToolUse", ["ls"])) {
   *   throw new Error();
   * }
   * ```
   */
  has(event: HookEvent, names: readonly string[] = []): boolean {
    return this.#select(event, names).length > 0;
  }

  /**
   * PreToolUse: before a call is approved.
   *
   * @param call The call with its validated arguments.
   * @param signal Stops the hooks (Ctrl-C).
   * @returns Block (deny, said to the model), permission, updated input, context, notices.
   */
  preToolUse(call: HookedCall, signal?: AbortSignal): Promise<HookOutcome> {
    return this.#run("PreToolUse", toolNames(call), {
      ...this.#toolFields(call),
    }, signal);
  }

  /**
   * PostToolUse: after a call ran.
   *
   * @param call The call.
   * @param response The tool's result (harness's ToolResult, plus `filePath` for file tools).
   * @param signal Stops the hooks.
   * @returns Block (feedback for the model), context, notices.
   */
  postToolUse(call: HookedCall, response: unknown, signal?: AbortSignal): Promise<HookOutcome> {
    return this.#run("PostToolUse", toolNames(call), {
      ...this.#toolFields(call),
      tool_response: response,
    }, signal);
  }

  /** UserPromptSubmit: before the user's message is sent. */
  userPromptSubmit(prompt: string, signal?: AbortSignal): Promise<HookOutcome> {
    return this.#run("UserPromptSubmit", [], { prompt }, signal);
  }

  /**
   * Stop: the model answered without calling a tool.
   *
   * @param active The model is already going on because a Stop hook blocked (stop_hook_active).
   * @param lastMessage The model's answer.
   */
  stop(active: boolean, lastMessage: string, signal?: AbortSignal): Promise<HookOutcome> {
    return this.#run("Stop", [], {
      stop_hook_active: active,
      last_assistant_message: lastMessage,
    }, signal);
  }

  /** SessionStart: a conversation starts ("startup"), resumes, is cleared or compacted. */
  sessionStart(
    source: "startup" | "resume" | "clear" | "compact",
    signal?: AbortSignal,
  ): Promise<HookOutcome> {
    return this.#run("SessionStart", [source], { source, model: this.#options.model }, signal);
  }

  #toolFields(call: HookedCall): Record<string, unknown> {
    return {
      tool_name: claudeCodeToolName(call.name, call.server),
      tool_input: claudeCodeInput(call.name, call.args, this.#options.cwd),
      tool_use_id: call.id,
      harness_tool_name: call.name,
    };
  }

  /** The matching commands, each once, with the source that defines it. */
  #select(event: HookEvent, names: readonly string[]) {
    const chosen: { source: HookSource; command: string; timeout: number }[] = [];
    const seen = new Set<string>();
    for (const source of this.#options.sources) {
      for (const matcher of source.hooks[event] ?? []) {
        const filtered = event === "UserPromptSubmit" || event === "Stop";
        if (!filtered && !matcherSelects(matcher.matcher, names)) continue;
        for (const hook of matcher.hooks) {
          const key = `${source.origin}\0${hook.command}`;
          if (seen.has(key)) continue;
          seen.add(key);
          chosen.push({
            source,
            command: hook.command,
            timeout: hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS,
          });
        }
      }
    }
    return chosen;
  }

  async #run(
    event: HookEvent,
    names: readonly string[],
    fields: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<HookOutcome> {
    const chosen = this.#select(event, names);
    if (chosen.length === 0) return { notices: [] };
    const input = JSON.stringify({
      session_id: this.#options.sessionId(),
      transcript_path: "",
      cwd: this.#options.cwd,
      permission_mode: this.#options.permissionMode,
      hook_event_name: event,
      ...fields,
    });
    const outcomes = await Promise.all(chosen.map(async ({ source, command, timeout }) => {
      const label = shorten(command);
      const spawn = await source.spawn;
      if ("refused" in spawn) {
        if (this.#refusedSaid.has(command)) return { notices: [] };
        this.#refusedSaid.add(command);
        return { notices: [`Project hook "${label}" does not run: ${spawn.refused}`] };
      }
      const run = await runHookCommand(command, {
        input,
        cwd: this.#options.cwd,
        env: { CLAUDE_PROJECT_DIR: this.#options.cwd },
        timeoutMs: timeout * 1000,
        spawn,
        ...(signal ? { signal } : {}),
      });
      const outcome = readHookRun(event, run, label);
      if (run.timedOut) {
        outcome.notices = outcome.notices.map((line) => `${line} after ${timeout} s`);
      }
      return outcome;
    }));
    const budgeted = this.#budgeted(event, combineOutcomes(outcomes));
    const moved = this.#options.afterHooks?.();
    return moved === undefined ? budgeted : { ...budgeted, notices: [...budgeted.notices, moved] };
  }

  /**
   * What the hooks add for the model, cut to its share of the window (a note says where);
   * a prompt's block reason, which the user reads, cut to a few lines.
   */
  #budgeted(event: HookEvent, outcome: HookOutcome): HookOutcome {
    const windowTokens = this.#options.contextLength?.();
    const cut = (text: string) => {
      const budgeted = budgetHookText(text, { event, windowTokens });
      if (budgeted.notice) outcome.notices.push(budgeted.notice);
      return budgeted.text;
    };
    if (outcome.context !== undefined) outcome.context = cut(outcome.context);
    if (outcome.block !== undefined) {
      outcome.block = event === "UserPromptSubmit"
        ? stderrExcerpt(outcome.block)
        : cut(outcome.block);
    }
    return outcome;
  }
}

/** The names a tool matcher is tried against: harness's and Claude Code's. */
function toolNames(call: HookedCall): string[] {
  const claude = claudeCodeToolName(call.name, call.server);
  return claude === call.name ? [call.name] : [call.name, claude];
}

function shorten(command: string): string {
  const line = command.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
