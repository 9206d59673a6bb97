// Renders loop events for a person: streamed answer text, dimmed reasoning, one line per
// tool call (tool, arguments, status, time, size), a spinner until the first token, and
// warnings. Used by the REPL and by `-p --output-format text` (on stderr there).

import { recordLine } from "../checkpoints/turn_record.ts";
import type { LoopEvent } from "../agent/loop_events.ts";
import type { ToolResult } from "../messages.ts";
import { humanSize } from "../platform/human_size.ts";
import { createStatusLine, shortArgs, subagentStep } from "./status_line.ts";
import type { Style } from "./style.ts";
import { terminalLine, terminalSafe } from "../platform/terminal_text.ts";

export interface TextRendererOptions {
  /** Where answer text goes. */
  write(text: string): void;
  /** Where tool lines, reasoning and notes go (same as write in the REPL). */
  note(text: string): void;
  style: Style;
  /** Show a spinner until the first token (TTY only). */
  spinner: boolean;
  /** Show reasoning text (dimmed). */
  showReasoning: boolean;
  /**
   * `-p` mode: the answer is printed elsewhere (stdout) once the run ends, so answer text is
   * not rendered here, and the iteration limit is reported by the caller (no /continue).
   */
  oneShot?: boolean;
  /** Milliseconds clock for the running tool's elapsed time (tests inject one). */
  now?: () => number;
  /** Terminal width, so the running line never wraps. */
  columns?: () => number;
}

/**
 * One line for a finished call: `✓ read_file {"path":"a"} · 3 ms · 120 B`.
 *
 * @example
 * ```ts
 * import { formatToolLine } from "./render_text.ts";
 * import { createStyle } from "./style.ts";
 * import { makeToolResult } from "../messages.ts";
 * const line = formatToolLine("ls", {}, makeToolResult({ data: "x" }), "", createStyle(false));
 * if (!line.startsWith("✓ ls")) throw new Error(line);
 * ```
 */
export function formatToolLine(
  name: string,
  args: unknown,
  result: ToolResult,
  display: string,
  style: Style,
): string {
  // Names, arguments, display lines and errors come from models, tools and servers.
  const shownArgs = terminalLine(shortArgs(args, 120));
  const tool = terminalLine(name);
  const time = `${Math.round(result.metadata.execution_time_ms)} ms`;
  if (result.success) {
    const detail = display ? ` · ${lineCounts(terminalLine(display), style)}` : "";
    return `${style.green("✓")} ${style.bold(tool)} ${style.dim(shownArgs)} · ${time} · ${
      humanSize(result.metadata.data_size_bytes)
    }${detail}`;
  }
  const message = terminalLine((result.error_message ?? "").split("\n")[0] ?? "");
  return `${style.red("✗")} ${style.bold(tool)} ${style.dim(shownArgs)} · ${result.error_type}: ${
    message.length > 200 ? `${message.slice(0, 197)}...` : message
  }`;
}

/** A file tool's display ending in `+N -M` (lines added and removed) gets them coloured. */
function lineCounts(display: string, style: Style): string {
  const counts = / \+(\d+) -(\d+)$/.exec(display);
  if (!counts) return display;
  return `${display.slice(0, counts.index)} ${style.green(`+${counts[1]}`)} ${
    style.red(`-${counts[2]}`)
  }`;
}

/**
 * The spinner's words while the model has not answered yet: the prompt progress the server
 * reports (with the time left at the rate so far), else the time waited.
 *
 * @example
 * ```ts
 * import { waitingLabel } from "./render_text.ts";
 * const label = waitingLabel({ elapsedMs: 10_000, progress: { processed: 1000, total: 3000 } });
 * if (label !== "reading the prompt: 1000/3000 tokens, about 20 s left") throw new Error(label);
 * ```
 */
export function waitingLabel(
  event: { elapsedMs: number; progress?: { processed: number; total: number } },
): string {
  const seconds = Math.round(event.elapsedMs / 1000);
  const progress = event.progress;
  if (progress && progress.processed > 0 && progress.total > 0) {
    const left = Math.round(
      (event.elapsedMs / progress.processed) * (progress.total - progress.processed) / 1000,
    );
    return `reading the prompt: ${progress.processed}/${progress.total} tokens, about ${left} s left`;
  }
  return `waiting for the model: ${seconds} s`;
}

/**
 * The one-line notice an event prints between answer text (a denial by policy, a limit, a
 * warning, a compaction), or undefined when the event prints none.
 */
function noticeLine(
  event: Extract<
    LoopEvent,
    { type: "permission_decided" | "limit_reached" | "warning" | "compacted" | "checkpoint" }
  >,
  options: Pick<TextRendererOptions, "style" | "oneShot">,
): string | undefined {
  const { style } = options;
  switch (event.type) {
    case "permission_decided":
      if (event.decision.decision === "deny" && event.decision.by !== "user") {
        return style.yellow(
          terminalLine(`Denied ${event.name}: ${event.decision.reason ?? "by policy"}`),
        );
      }
      return undefined;
    case "limit_reached":
      if (options.oneShot && event.limit === "iterations") return undefined;
      return style.yellow(
        event.limit === "iterations"
          ? `Stopped after ${event.max} model turns (--max-iterations): type /continue to go on`
          : `Only the first ${event.max} tool calls of this turn ran (--max-tool-calls)`,
      );
    case "warning":
      return style.yellow(terminalSafe(event.message));
    case "compacted":
      return style.dim(
        `Compacted the conversation: about ${event.tokensBefore} tokens became ` +
          `${event.tokensAfter} (the full history stays in the session log)`,
      );
    case "checkpoint": {
      // A record logged while the turn runs is not news; the last one is.
      const { checkpoint } = event;
      if (options.oneShot || checkpoint.open || checkpoint.files.length === 0) return undefined;
      return style.dim(terminalLine(recordLine(checkpoint)));
    }
  }
}

/** Returns a sink that renders loop events as text, and a function to stop the spinner. */
export function createTextRenderer(options: TextRendererOptions): {
  sink(event: LoopEvent): void;
  stop(): void;
} {
  const { style } = options;
  let atLineStart = true;
  let inReasoning = false;
  const status = createStatusLine(options);

  const text = (chunk: string) => {
    if (!chunk || options.oneShot) return;
    status.stop();
    if (inReasoning) {
      options.note("\n");
      inReasoning = false;
      atLineStart = true;
    }
    options.write(terminalSafe(chunk));
    atLineStart = chunk.endsWith("\n");
  };
  const lineStart = () => {
    status.stop();
    if (!atLineStart) options.note("\n");
    inReasoning = false;
    atLineStart = true;
  };
  const line = (content: string) => {
    lineStart();
    options.note(`${content}\n`);
  };

  const sink = (event: LoopEvent) => {
    switch (event.type) {
      case "turn_started":
        status.startThinking();
        break;
      case "text_delta":
        text(event.text);
        break;
      case "reasoning_delta":
        if (!options.showReasoning || !event.text) break;
        status.stop();
        if (!inReasoning && !atLineStart) options.note("\n");
        inReasoning = true;
        options.note(style.dim(terminalSafe(event.text)));
        atLineStart = event.text.endsWith("\n");
        break;
      case "tool_started":
        status.toolStarted(event.callId, event.name, event.args);
        break;
      case "tool_output":
        status.toolOutput(event.callId, event.text);
        break;
      case "tool_finished":
        line(formatToolLine(event.name, event.args, event.result, event.display, style));
        status.toolFinished(event.callId);
        break;
      case "permission_decided":
      case "limit_reached":
      case "warning":
      case "compacted":
      case "checkpoint": {
        const notice = noticeLine(event, options);
        if (notice !== undefined) line(notice);
        break;
      }
      case "done":
        status.stop();
        if (event.stopReason === "error" && event.errorMessage) {
          line(`${style.red("error")}: ${terminalSafe(event.errorMessage)}`);
        }
        if (event.stopReason === "interrupted") line(style.dim("Interrupted"));
        lineStart();
        break;
      case "message":
        // A turn's text is complete; the next output (a permission prompt, a tool line)
        // starts on its own line.
        if (event.message.kind === "assistant" || event.message.kind === "tool_call") lineStart();
        break;
      case "waiting":
        status.setLabel(waitingLabel(event));
        break;
      case "subagent": {
        const change = subagentStep(event);
        if (change) status.child(...change);
        break;
      }
      case "usage":
      case "state_changed":
      case "files_restored":
      case "rewound":
        break;
      default: {
        const never: never = event;
        throw new Error(`unhandled event ${JSON.stringify(never)}`);
      }
    }
  };
  return { sink, stop: status.stop };
}
