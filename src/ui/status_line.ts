// The text renderer's redrawn status line on a terminal: a spinner with "thinking" (or the
// wait so far) until the first token, then the running tool's call, time and last output
// line, and below it one indented line per running subagent (its latest step). The renderer
// (render_text.ts) drives it from loop events and clears it before output.

import type { LoopEvent } from "../agent/loop_events.ts";
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
}

/** A subagent's latest step, as its line shows it. */
export interface ChildStep {
  agent: string;
  doing: string;
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
  /** A subagent's latest step (`undefined`: it ended), drawn on an indented line of its own. */
  child(taskId: string, step: ChildStep | undefined): void;
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
 * What a subagent's event changes on its line: its latest step, or undefined once its turn
 * ended; undefined for an event that changes nothing. A grandchild's event is its own line.
 *
 * @example
 * ```ts
 * import { subagentStep } from "./status_line.ts";
 * const [task, step] = subagentStep({
 *   type: "subagent", callId: "c1", taskId: "t1", agent: "explorer",
 *   event: { type: "tool_started", callId: "x", name: "read_file", args: { path: "a.ts" } },
 * }) ?? [];
 * if (task !== "t1" || step?.doing !== 'read_file {"path":"a.ts"}') throw new Error();
 * ```
 */
export function subagentStep(
  event: Extract<LoopEvent, { type: "subagent" }>,
): [string, ChildStep | undefined] | undefined {
  const inner = event.event;
  if (inner.type === "subagent") return subagentStep(inner);
  const step = (doing: string): [string, ChildStep] => [event.taskId, {
    agent: event.agent,
    doing,
  }];
  switch (inner.type) {
    case "done":
      return [event.taskId, undefined];
    case "turn_started":
      return step("thinking");
    case "tool_started":
      return step(`${inner.name} ${shortArgs(inner.args, 50)}`);
    case "text_delta":
      return step("writing its report");
    default:
      return undefined;
  }
}

/** A line that fits the terminal's width. */
function fitted(plain: string, width: number): string {
  return plain.length > width - 1 ? plain.slice(0, width - 2) + "…" : plain;
}

/** The running subagents' lines: each one's agent, task, latest step and time so far. */
class ChildLines {
  readonly #children = new Map<string, ChildStep & { started: number }>();

  constructor(readonly now: () => number) {}

  /** A child's latest step, or undefined once it ended. */
  set(taskId: string, step: ChildStep | undefined): void {
    if (step === undefined) {
      this.#children.delete(taskId);
      return;
    }
    const started = this.#children.get(taskId)?.started ?? this.now();
    this.#children.set(taskId, { agent: step.agent, doing: plainText(step.doing), started });
  }

  /** One indented line per running child. */
  lines(): string[] {
    return [...this.#children].map(([task, child]) =>
      `    ${terminalLine(child.agent)} (task ${task}) · ${child.doing} · ${
        Math.floor((this.now() - child.started) / 1000)
      } s`
    );
  }
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
  let spinnerTimer: ReturnType<typeof setInterval> | undefined;
  let spinnerShown = false;

  /** Lines drawn below the first (one per subagent), cleared with it. */
  let extraLines = 0;
  const cleared = () => "\r\x1b[2K" + "\x1b[1A\r\x1b[2K".repeat(extraLines);
  const stop = () => {
    if (spinnerTimer !== undefined) clearInterval(spinnerTimer);
    spinnerTimer = undefined;
    if (spinnerShown) options.note(cleared());
    spinnerShown = false;
    extraLines = 0;
  };
  // While a tool runs (on a terminal): its call, the time so far and, when the tool reports
  // output as it goes (run_command), the last line of it, redrawn in place.
  const running = new Map<string, { name: string; args: unknown; started: number; last: string }>();
  const now = options.now ?? (() => performance.now());
  const fit = (plain: string) => fitted(plain, options.columns?.() ?? 100);
  const children = new ChildLines(now);
  const drawRunning = () => {
    const calls = [...running.values()];
    const call = calls.at(-1);
    if (!call) return;
    spinnerShown = true;
    const seconds = Math.floor((now() - call.started) / 1000);
    const others = calls.length > 1 ? ` (+${calls.length - 1} more)` : "";
    const last = call.last ? ` · ${call.last}` : "";
    const plain = `${FRAMES[Math.floor(now() / 80) % FRAMES.length]} ${terminalLine(call.name)} ${
      terminalLine(shortArgs(call.args, 60))
    } · ${seconds} s${others}${last}`;
    const rows = [plain, ...children.lines()].map((row) => style.dim(fit(row)));
    const clear = cleared();
    extraLines = rows.length - 1;
    options.note(`${clear}${rows.join("\n")}`);
  };
  const startRunning = () => {
    if (!options.spinner) return;
    if (spinnerTimer !== undefined) clearInterval(spinnerTimer);
    spinnerTimer = setInterval(drawRunning, 100);
    drawRunning();
  };
  // What the spinner says: "thinking", then the wait so far, or the server's prompt progress.
  let spinnerLabel = "thinking";
  const startThinking = () => {
    if (!options.spinner) return;
    let frame = 0;
    spinnerLabel = "thinking";
    spinnerTimer = setInterval(() => {
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
    child: (taskId, step) => children.set(taskId, step),
    stop,
  };
}
