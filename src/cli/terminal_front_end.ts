// The terminal's side of a run (REPL and -p): where the user answers (the REPL, which owns
// stdin once the provider is open, or for -p an input that answers nothing), how the run's
// questions, notes and progress are shown on stderr, and the offer to run a model here.

import type { FrontEnd } from "../app/front_end.ts";
import type { Settings } from "../config/settings.ts";
import type { TrustIO } from "../permissions/project_trust.ts";
import type { SessionStore } from "../sessions/session_store_types.ts";
import type { Repl, TurnInput } from "../ui/repl.ts";
import type { Style } from "../ui/style.ts";
import { tracePhase } from "../platform/startup_trace.ts";
import { terminalLine, terminalSafe } from "../platform/terminal_text.ts";
import { jobLine } from "../jobs/job_notes.ts";
import type { StartAhead } from "./prompt_ahead.ts";
import type { CommandIO } from "./command_io.ts";

const encoder = new TextEncoder();
const writeErr = (text: string) => Deno.stderr.writeSync(encoder.encode(text));

/** What the terminal front end is opened with. */
export interface TerminalOptions {
  settings: Settings;
  printMode: boolean;
  /** stdin is a terminal and this is the REPL. */
  terminal: boolean;
  style: Style;
  cwd: string;
  yes: boolean;
  ahead: StartAhead | undefined;
  /** Errors that end the run before its first turn (-p also prints its final JSON). */
  fatalIo: CommandIO;
  /** Picks the session to continue once the log is open (an exit code stops the run). */
  chooseSession(store: SessionStore): number | undefined;
  /** Makes the REPL, which takes stdin over (left out for -p). */
  makeRepl?(): Repl;
}

/** The terminal front end: the FrontEnd the run is opened with, and the REPL once made. */
export interface TerminalFrontEnd {
  frontEnd: FrontEnd;
  /** The REPL (made when the provider is open); undefined for -p. */
  repl(): Repl | undefined;
  /** Where questions during a turn are answered. */
  turnInput(): TurnInput;
  /** Ends a model's load progress line when the run failed to open. */
  endProgress(): void;
}

/** The input -p answers with: nothing (a key reads as Ctrl-C, a line as end of input). */
const PRINT_INPUT: TurnInput = {
  write: writeErr,
  readKey: () => Promise.resolve("\x03"),
  readLine: () => Promise.resolve(null),
};

/** Makes the terminal front end of a REPL or -p run. */
export function terminalFrontEnd(options: TerminalOptions): TerminalFrontEnd {
  const { printMode, terminal, style, ahead } = options;
  let repl: Repl | undefined;
  const input = () => repl?.turnInput ?? PRINT_INPUT;
  let loadingShown = false;
  const endProgress = () => {
    // The progress line goes away (on a terminal) or ends (in a log), so nothing is glued
    // to it; the REPL draws its prompt again when it attaches.
    if (loadingShown) writeErr(terminal ? "\r\x1b[2K" : "\n");
    loadingShown = false;
  };
  const io: TrustIO = {
    write: writeErr,
    readLine: (text) => input().readLine(text),
    // One key, as approvals take it.
    readKey: async (text) => {
      writeErr(text);
      const key = await input().readKey();
      writeErr(`${/^[\x20-\x7e]$/.test(key) ? key : ""}\n`);
      return key === "\x03" || key === "\x04" ? null : key;
    },
  };
  const frontEnd: FrontEnd = {
    interactive: !printMode,
    listsToolsLater: !printMode,
    io,
    // MCP servers write these lines and their progress: escapes show as text.
    mcpNotice: (line) => writeErr(`${style.yellow(`warning: ${terminalSafe(line)}`)}\n`),
    // A background job that ended or waits for input: one line (the model hears next turn).
    jobChanged: (job) => writeErr(`${style.dim(`[${terminalLine(jobLine(job))}]`)}\n`),
    // On a terminal, progress notifications replace the running tool's line.
    ...(Deno.stderr.isTerminal()
      ? {
        mcpProgress: (_tool: string, text: string | null) =>
          writeErr(text === null ? "\r\x1b[2K" : `\r\x1b[2K${style.dim(terminalLine(text))}`),
      }
      : {}),
    approvalNote: (text, tone) => {
      const paint = tone === "error" ? style.red : tone === "warning" ? style.yellow : style.dim;
      input().write(`${paint(text)}\n`);
    },
    progress: {
      ...(printMode ? {} : {
        loadProgress: (fraction: number) => {
          loadingShown = true;
          writeErr(`\r${terminal ? "\x1b[2K" : ""}Loading model ${Math.round(fraction * 100)}%`);
        },
      }),
      download: async (name) => {
        const { downloadProgress } = await import("../ui/download_progress.ts");
        return downloadProgress(name, { write: writeErr, isTerminal: Deno.stderr.isTerminal() });
      },
    },
    offerModelHere: async (noServer) => {
      const { runModelHere } = await import("./embedded_default.ts");
      return await runModelHere(options.settings, noServer, {
        printMode,
        yes: options.yes,
        io: {
          printError: (message) => options.fatalIo.printError(message),
          write: writeErr,
          isTerminal: Deno.stderr.isTerminal(),
          readLine: async (text) => {
            ahead?.release(); // a prompt shown ahead put the terminal in raw mode
            return (await import("./read_stdin_line.ts")).readStdinLine(text);
          },
        },
      });
    },
    storeOpened: (store) => options.chooseSession(store),
    providerOpened: (notes) => {
      endProgress();
      // Notes go above a prompt already shown; the REPL draws it again when it attaches.
      if (notes.length > 0 && ahead?.shown && terminal) writeErr("\r\x1b[2K");
      for (const note of notes) writeErr(`${style.dim(`note: ${terminalSafe(note)}`)}\n`);
      repl = options.makeRepl?.();
      if (repl) tracePhase("REPL created");
    },
  };
  return { frontEnd, repl: () => repl, turnInput: input, endProgress };
}
