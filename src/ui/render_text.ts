// Renders loop events for a person: streamed answer text, dimmed reasoning, one line per
// tool call (tool, arguments, status, time, size), a spinner until the first token, and
// warnings. Used by the REPL and by `-p --output-format text` (on stderr there).

import type { LoopEvent } from "../agent/loop_events.ts";
import type { ToolResult } from "../messages.ts";
import { humanSize } from "../platform/human_size.ts";
import type { Style } from "./style.ts";

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
  const shownArgs = shortArgs(args, 120);
  const time = `${Math.round(result.metadata.execution_time_ms)} ms`;
  if (result.success) {
    const detail = display ? ` · ${display}` : "";
    return `${style.green("✓")} ${style.bold(name)} ${style.dim(shownArgs)} · ${time} · ${
      humanSize(result.metadata.data_size_bytes)
    }${detail}`;
  }
  const message = (result.error_message ?? "").split("\n")[0] ?? "";
  return `${style.red("✗")} ${style.bold(name)} ${style.dim(shownArgs)} · ${result.error_type}: ${
    message.length > 200 ? `${message.slice(0, 197)}...` : message
  }`;
}

/** `text` without terminal escape sequences and control characters. */
function plainText(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x1b && text[i + 1] === "[") {
      // CSI: parameters and intermediates, then one final byte in @..~.
      i += 2;
      while (i < text.length && !/[@-~]/.test(text[i]!)) i++;
      continue;
    }
    if (code < 0x20 || code === 0x7f) continue;
    out += text[i];
  }
  return out;
}

/** The call's arguments as compact JSON, cut to `max` characters. */
function shortArgs(args: unknown, max: number): string {
  const shown = typeof args === "string" ? args : JSON.stringify(args ?? {});
  return shown.length > max ? `${shown.slice(0, max - 3)}...` : shown;
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

/** Returns a sink that renders loop events as text, and a function to stop the spinner. */
export function createTextRenderer(options: TextRendererOptions): {
  sink(event: LoopEvent): void;
  stop(): void;
} {
  const { style } = options;
  let atLineStart = true;
  let inReasoning = false;
  let spinnerTimer: ReturnType<typeof setInterval> | undefined;
  let spinnerShown = false;
  const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

  const stopSpinner = () => {
    if (spinnerTimer !== undefined) clearInterval(spinnerTimer);
    spinnerTimer = undefined;
    if (spinnerShown) options.note("\r\x1b[2K");
    spinnerShown = false;
  };
  // While a tool runs (on a terminal): its call, the time so far and, when the tool reports
  // output as it goes (run_command), the last line of it, redrawn in place.
  const running = new Map<string, { name: string; args: unknown; started: number; last: string }>();
  const now = options.now ?? (() => performance.now());
  const drawRunning = () => {
    const calls = [...running.values()];
    const call = calls.at(-1);
    if (!call) return;
    spinnerShown = true;
    const seconds = Math.floor((now() - call.started) / 1000);
    const others = calls.length > 1 ? ` (+${calls.length - 1} more)` : "";
    const last = call.last ? ` · ${call.last}` : "";
    const width = options.columns?.() ?? 100;
    const plain = `${frames[Math.floor(now() / 80) % frames.length]} ${call.name} ${
      shortArgs(call.args, 60)
    } · ${seconds} s${others}${last}`;
    options.note(
      `\r\x1b[2K${style.dim(plain.length > width - 1 ? plain.slice(0, width - 2) + "…" : plain)}`,
    );
  };
  const startRunning = () => {
    if (!options.spinner) return;
    if (spinnerTimer !== undefined) clearInterval(spinnerTimer);
    spinnerTimer = setInterval(drawRunning, 100);
    drawRunning();
  };
  // What the spinner says: "thinking", then the wait so far, or the server's prompt progress.
  let spinnerLabel = "thinking";
  const startSpinner = () => {
    if (!options.spinner) return;
    let frame = 0;
    spinnerLabel = "thinking";
    spinnerTimer = setInterval(() => {
      spinnerShown = true;
      options.note(`\r\x1b[2K${style.dim(`${frames[frame++ % frames.length]} ${spinnerLabel}`)}`);
    }, 80);
  };
  const text = (chunk: string) => {
    if (!chunk || options.oneShot) return;
    stopSpinner();
    if (inReasoning) {
      options.note("\n");
      inReasoning = false;
      atLineStart = true;
    }
    options.write(chunk);
    atLineStart = chunk.endsWith("\n");
  };
  const line = (content: string) => {
    stopSpinner();
    if (!atLineStart) options.note("\n");
    inReasoning = false;
    options.note(`${content}\n`);
    atLineStart = true;
  };

  const sink = (event: LoopEvent) => {
    switch (event.type) {
      case "turn_started":
        startSpinner();
        break;
      case "text_delta":
        text(event.text);
        break;
      case "reasoning_delta":
        if (!options.showReasoning || !event.text) break;
        stopSpinner();
        if (!inReasoning && !atLineStart) options.note("\n");
        inReasoning = true;
        options.note(style.dim(event.text));
        atLineStart = event.text.endsWith("\n");
        break;
      case "tool_started":
        stopSpinner();
        running.set(event.callId, { name: event.name, args: event.args, started: now(), last: "" });
        startRunning();
        break;
      case "tool_output": {
        const call = running.get(event.callId);
        const lastLine = event.text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).at(-1);
        if (call && lastLine) {
          call.last = plainText(lastLine);
        }
        break;
      }
      case "tool_finished":
        running.delete(event.callId);
        line(formatToolLine(event.name, event.args, event.result, event.display, style));
        if (running.size > 0) startRunning();
        break;
      case "permission_decided":
        if (event.decision.decision === "deny" && event.decision.by !== "user") {
          line(style.yellow(`Denied ${event.name}: ${event.decision.reason ?? "by policy"}`));
        }
        break;
      case "limit_reached":
        if (options.oneShot && event.limit === "iterations") break;
        line(style.yellow(
          event.limit === "iterations"
            ? `Stopped after ${event.max} model turns (--max-iterations): type /continue to go on`
            : `Only the first ${event.max} tool calls of this turn ran (--max-tool-calls)`,
        ));
        break;
      case "warning":
        line(style.yellow(event.message));
        break;
      case "done":
        stopSpinner();
        if (event.stopReason === "error" && event.errorMessage) {
          line(`${style.red("error")}: ${event.errorMessage}`);
        }
        if (event.stopReason === "interrupted") line(style.dim("Interrupted"));
        if (!atLineStart) {
          options.note("\n");
          atLineStart = true;
        }
        break;
      case "message":
        // A turn's text is complete; the next output (a permission prompt, a tool line)
        // starts on its own line.
        if (event.message.kind === "assistant" || event.message.kind === "tool_call") {
          stopSpinner();
          if (!atLineStart) options.note("\n");
          atLineStart = true;
          inReasoning = false;
        }
        break;
      case "waiting":
        spinnerLabel = waitingLabel(event);
        break;
      case "compacted":
        line(style.dim(
          `Compacted the conversation: about ${event.tokensBefore} tokens became ` +
            `${event.tokensAfter} (the full history stays in the session log)`,
        ));
        break;
      case "usage":
      case "state_changed":
        break;
      default: {
        const never: never = event;
        throw new Error(`unhandled event ${JSON.stringify(never)}`);
      }
    }
  };
  return { sink, stop: stopSpinner };
}
