// One-shot mode (`harness -p PROMPT`): run one user message to its end and print the
// answer as text, one JSON object, or a stream of JSON events; map the outcome to the
// documented exit code.

import { type TurnOutcome, unsentTurn } from "../agent/loop_turn.ts";
import { type AgentError, formatAgentError } from "../errors.ts";
import type { OutputFormat } from "../app/run_flags.ts";
import { EXIT } from "../app/exit_codes.ts";
import type { Conversation } from "../agent/conversation.ts";
import type { LoopEventSink } from "../agent/loop_events.ts";
import { createStreamJson, finalJson } from "../ui/render_json.ts";
import { createTextRenderer } from "../ui/render_text.ts";
import { SubagentCalls } from "../ui/subagent_calls.ts";
import type { Style } from "../ui/style.ts";
import { jsonTerminalSafe, terminalSafe } from "../platform/terminal_text.ts";

/**
 * The exit code for how a turn ended.
 *
 * @example
 * ```ts
 * import { exitCodeFor } from "./run_print.ts";
 * if (exitCodeFor("iteration_limit") !== 3) throw new Error();
 * ```
 */
export function exitCodeFor(stopReason: TurnOutcome["stopReason"]): number {
  switch (stopReason) {
    case "answered":
    case "task_complete":
      return EXIT.ok;
    case "error":
      return EXIT.runtime;
    case "iteration_limit":
      return EXIT.limit;
    case "interrupted":
      return EXIT.interrupted;
    default: {
      const never: never = stopReason;
      throw new Error(`unhandled stop reason ${String(never)}`);
    }
  }
}

export interface PrintOptions {
  format: OutputFormat;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Style for stderr notes. */
  style: Style;
  signal: AbortSignal;
  /** Why the session log could not be written, if it could not (the run then exits 1). */
  unsaved?: () => AgentError | undefined;
}

/** Runs the prompt and prints the result; returns the exit code. */
export async function runPrint(
  conversation: Conversation,
  prompt: string,
  options: PrintOptions,
): Promise<number> {
  let sink: LoopEventSink;
  let flushStream = () => {};
  if (options.format === "stream-json") {
    const stream = createStreamJson((line) => options.stdout(`${line}\n`));
    sink = stream.sink;
    flushStream = stream.flush;
  } else {
    // Tool lines and notes go to stderr so stdout holds only the answer (or the JSON).
    const renderer = createTextRenderer({
      write: () => {},
      note: options.stderr,
      style: options.style,
      spinner: false,
      showReasoning: false,
      oneShot: true,
    });
    sink = renderer.sink;
  }
  const subagents = new SubagentCalls();
  const shown = sink;
  const outcome = await conversation.send(prompt, (event) => {
    subagents.record(event);
    shown(event);
  }, options.signal);
  const sessionId = conversation.parts.recorder.id;
  // The session ends before the result is printed, so the result can say if it was not saved.
  conversation.parts.recorder.end();
  const unsaved = options.unsaved?.();
  const checkpointError = conversation.parts.stages.checkpoints?.failures().join("; ") || undefined;
  const final = () =>
    finalJson(outcome, sessionId, {
      sessionError: unsaved && formatAgentError(unsaved),
      checkpointError,
      subagents,
    });
  switch (options.format) {
    case "text":
      if (outcome.text) {
        const text = terminalSafe(outcome.text);
        options.stdout(text.endsWith("\n") ? text : `${text}\n`);
      }
      if (outcome.stopReason === "iteration_limit") {
        options.stderr(
          `Stopped after ${outcome.iterations} model turns: raise --max-iterations or resume with --continue\n`,
        );
      }
      break;
    case "json":
      options.stdout(`${jsonTerminalSafe(JSON.stringify(final()))}\n`);
      break;
    case "stream-json":
      flushStream();
      options.stdout(`${jsonTerminalSafe(JSON.stringify({ type: "final", ...final() }))}\n`);
      break;
  }
  const code = exitCodeFor(outcome.stopReason);
  return unsaved && code === EXIT.ok ? EXIT.runtime : code;
}

/**
 * For `-p` with json or stream-json output: prints the final object of a run that failed
 * before its first turn (no model server, a broken policy file), so scripts always find one
 * on the last line of stdout. Prints nothing for text output.
 *
 * @example
 * ```ts
 * import { printEarlyFailure } from "./run_print.ts";
 * let out = "";
 * printEarlyFailure("json", "Cannot reach model server", (text) => out += text);
 * if (JSON.parse(out).stop_reason !== "error") throw new Error(out);
 * ```
 */
export function printEarlyFailure(
  format: OutputFormat,
  message: string,
  stdout: (text: string) => void,
): void {
  if (format === "text") return;
  const final = finalJson(unsentTurn(message), null);
  stdout(
    `${
      jsonTerminalSafe(
        JSON.stringify(format === "stream-json" ? { type: "final", ...final } : final),
      )
    }\n`,
  );
}
