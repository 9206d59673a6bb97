// The text renderer's redrawn status line on a terminal: a spinner with "thinking" (or the
// wait so far) until the first token, then the running tool's call, time and last output
// line. The renderer (render_text.ts) drives it from loop events and clears it before output.

import type { Style } from "./style.ts";
import { terminalLine, terminalPlain } from "../platform/terminal_text.ts";

/** What the status line draws with, a subset of the text renderer's options. */
export interface StatusLineOptions {
  /** Where the status line is drawn (the renderer's note stream). */
  note(text: string): void;
  style: Style;
  /** Draw anything at all (TTY only); when false every call but `stop` does nothing visible. */
  spinner: boolean;
  /** Milliseconds clock for the running tool's elapsed time (tests inject one). */
  now?: () => number;
  /** Terminal width, so the running line never wraps. */
  columns?: () => number;
  /**
   * Calls `redraw` every `ms` until the returned function is called (tests inject one that
   * they tick themselves); setInterval by default.
   */
  repeat?: (redraw: () => void, ms: number) => () => void;
}

/** The redrawn line's controls, one per kind of loop event that changes it. */
export interface StatusLine {
  /** Start the "thinking" spinner for a new turn. */
  startThinking(): void;
  /** Replace the spinner's words (the wait so far, the prompt progress). */
  setLabel(label: string): void;
  /** Show a tool call as running, with its time so far. */
  toolStarted(callId: string, name: string, args: unknown): void;
  /** Show the last non-empty line of a running tool's output. */
  toolOutput(callId: string, text: string): void;
  /** Forget a finished call; keep drawing the others still running. */
  toolFinished(callId: string): void;
  /** Stop the timer and clear the line if it was drawn. */
  stop(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * `text` without terminal escape sequences and control characters.
 *
 * @example
 * ```ts
 * import { plainText } from "./status_line.ts";
 * if (plainText("\x1b[31mred\x1b[0m\t!") !== "red!") throw new Error("not plain");
 * ```
 */
export function plainText(text: string): string {
  return terminalPlain(text);
}

/**
 * The call's arguments as compact JSON, cut to `max` characters.
 *
 * @example
 * ```ts
 * import { shortArgs } from "./status_line.ts";
 * if (shortArgs({ path: "a" }, 120) !== '{"path":"a"}') throw new Error("not compact");
 * if (shortArgs("abcdefgh", 6) !== "abc...") throw new Error("not cut");
 * ```
 */
export function shortArgs(args: unknown, max: number): string {
  const shown = typeof args === "string" ? args : JSON.stringify(args ?? {});
  return shown.length > max ? `${shown.slice(0, max - 3)}...` : shown;
}

/**
 * Returns the status line's controls; nothing is drawn until a turn or a tool starts.
 *
 * @example
 * ```ts
 * import { createStatusLine } from "./status_line.ts";
 * import { createStyle } from "./style.ts";
 * let drawn = "";
 * const status = createStatusLine({
 *   note: (text) => (drawn += text),
 *   style: createStyle(false),
 *   spinner: true,
 *   now: () => 2500,
 * });
 * status.toolStarted("c1", "run_command", { command: "make" });
 * status.stop();
 * if (!drawn.includes('run_command {"command":"make"} · 0 s')) throw new Error(drawn);
 * ```
 */
export function createStatusLine(options: StatusLineOptions): StatusLine {
  const { style } = options;
  const repeat = options.repeat ?? ((redraw, ms) => {
    const timer = setInterval(redraw, ms);
    return () => clearInterval(timer);
  });
  let stopTimer: (() => void) | undefined;
  let spinnerShown = false;

  const stop = () => {
    stopTimer?.();
    stopTimer = undefined;
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
    const plain = `${FRAMES[Math.floor(now() / 80) % FRAMES.length]} ${terminalLine(call.name)} ${
      terminalLine(shortArgs(call.args, 60))
    } · ${seconds} s${others}${last}`;
    options.note(
      `\r\x1b[2K${style.dim(plain.length > width - 1 ? plain.slice(0, width - 2) + "…" : plain)}`,
    );
  };
  const startRunning = () => {
    if (!options.spinner) return;
    stopTimer?.();
    stopTimer = repeat(drawRunning, 100);
    drawRunning();
  };
  // What the spinner says: "thinking", then the wait so far, or the server's prompt progress.
  let spinnerLabel = "thinking";
  const startThinking = () => {
    if (!options.spinner) return;
    let frame = 0;
    spinnerLabel = "thinking";
    stopTimer = repeat(() => {
      spinnerShown = true;
      options.note(`\r\x1b[2K${style.dim(`${FRAMES[frame++ % FRAMES.length]} ${spinnerLabel}`)}`);
    }, 80);
  };

  return {
    startThinking,
    setLabel(label) {
      spinnerLabel = label;
    },
    toolStarted(callId, name, args) {
      stop();
      running.set(callId, { name, args, started: now(), last: "" });
      startRunning();
    },
    toolOutput(callId, text) {
      const call = running.get(callId);
      const lastLine = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).at(-1);
      if (call && lastLine) {
        call.last = plainText(lastLine);
      }
    },
    toolFinished(callId) {
      running.delete(callId);
      if (running.size > 0) startRunning();
    },
    stop,
  };
}
