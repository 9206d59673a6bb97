// Shows the REPL's banner and first prompt as soon as the settings are known, before the
// modules behind the REPL load (node:readline, node:sqlite, the providers: about 40 ms).
// On a terminal, stdin goes into raw mode first, so keys typed meanwhile wait in the
// terminal's buffer, unechoed, until readline attaches and reads them; nothing is lost.

import type { RunFlags } from "../app/run_flags.ts";
import { EXIT } from "../app/exit_codes.ts";
import { loadWorkspaceInstructions } from "../turn_input/workspace_instructions.ts";
import { formatBanner } from "./banner.ts";
import { loadSettings, type Settings } from "../config/settings.ts";
import { type AgentError, formatAgentError, type Result } from "../errors.ts";
import type { OpenedProvider } from "../app/provider_openers.ts";
import type { Grants } from "../sandbox/grants/grants.ts";
import { grantCovers } from "../sandbox/grants/permission_value.ts";
import { createStyle, REPL_PROMPT, wantsColor } from "../ui/style.ts";
import { tracePhase } from "../platform/startup_trace.ts";

/** Settings loaded before the conversation's modules, and the prompt if it is on screen. */
export interface StartAhead {
  settings: Settings;
  /** Present when the banner and prompt are shown: the session will start with this id. */
  shown?: { sessionId: string | null };
  /** Error printing that first moves off the prompt line while no REPL owns the terminal. */
  printError(message: string): void;
  /** The REPL took the terminal over: errors print plainly and release() does nothing. */
  attached(): void;
  /** Gives the terminal back (leaves raw mode) when start-up ends before the REPL attached. */
  release(): void;
  /**
   * The provider, opening from these settings while the conversation's modules load
   * (run_cli.ts starts it); the run takes it instead of opening its own.
   */
  provider?: Promise<Result<OpenedProvider, AgentError>>;
}

/**
 * Loads the settings of a conversation and, for a new interactive session whose model is
 * named, shows the banner and prompt at once. A -p run, --continue, --resume, a model file
 * (it shows load progress) and a model the server must be asked for keep the prompt until
 * the REPL is built.
 *
 * @param flags The run flags.
 * @param grants The sandbox grants, for the banner.
 * @param io Error printing.
 * @param options Seams for tests: environment, working directory, terminal output, id maker.
 * @returns The settings (with the prompt's state), or an exit code after a settings error.
 */
export async function startAhead(
  flags: RunFlags,
  grants: Grants,
  io: { printError(message: string): void },
  options: {
    env?: (name: string) => string | undefined;
    cwd?: string;
    write?: (text: string) => void;
    stdinIsTerminal?: boolean;
    stdoutIsTerminal?: boolean;
    newId?: () => string;
    /** Reads the answer to the project config's trust question (default: stdin). */
    readLine?: (prompt: string) => Promise<string | null>;
  } = {},
): Promise<StartAhead | number> {
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  // The REPL asks about an untrusted project config before the banner; -p never trusts it.
  const write = options.write ??
    ((text: string) => Deno.stdout.writeSync(new TextEncoder().encode(text)));
  const writeErr = (text: string) => Deno.stderr.writeSync(new TextEncoder().encode(text));
  const loaded = await loadSettings(flags, {
    cwd: options.cwd ?? Deno.cwd(),
    env,
    trust: {
      interactive: flags.prompt === undefined,
      io: {
        write: writeErr,
        readLine: options.readLine ??
          (async (text) => (await import("./read_stdin_line.ts")).readStdinLine(text)),
      },
      // Scripts the config runs from a write grant are named at trust time.
      writable: (path) => grantCovers("write", grants.allow.write, path),
    },
  });
  if (!loaded.ok) {
    io.printError(formatAgentError(loaded.error));
    return EXIT.usage;
  }
  tracePhase("settings loaded");
  const settings = loaded.value;
  const plain: StartAhead = {
    settings,
    printError: (message) => io.printError(message),
    attached: () => {},
    release: () => {},
  };
  const eligible = flags.prompt === undefined && !flags.continue && flags.resume === undefined &&
    settings.model !== undefined && settings.modelFile === undefined;
  if (!eligible) return plain;

  const stdinIsTerminal = options.stdinIsTerminal ?? Deno.stdin.isTerminal();
  const stdoutIsTerminal = options.stdoutIsTerminal ?? Deno.stdout.isTerminal();
  let raw = false;
  if (stdinIsTerminal) {
    try {
      Deno.stdin.setRaw(true);
      raw = true;
    } catch {
      // Not a real terminal after all: typed keys echo as usual.
    }
  }
  const sessionId = flags.noSession ? null : (options.newId ?? (() => crypto.randomUUID()))();
  const style = createStyle(wantsColor(stdoutIsTerminal, env));
  const banner = formatBanner({
    model: settings.model!,
    where: settings.baseUrl,
    grants,
    sessionId,
    noSession: flags.noSession,
    yes: flags.yes,
    commandSandboxOff: settings.commandSandbox === "off",
    instructions: loadWorkspaceInstructions(settings, grants, options.cwd ?? Deno.cwd()).files
      .map((file) => file.label),
  }, style);
  write(`${banner}\n${style.cyan(REPL_PROMPT)}`);
  tracePhase("prompt shown (the REPL attaches next)");

  let attached = false;
  let onPromptLine = true;
  return {
    settings,
    shown: { sessionId },
    printError: (message) => {
      if (!attached && onPromptLine) {
        write(stdoutIsTerminal ? "\r\x1b[2K" : "\n");
        onPromptLine = false;
      }
      io.printError(message);
    },
    attached: () => {
      attached = true;
    },
    release: () => {
      if (attached || !raw) return;
      raw = false;
      try {
        Deno.stdin.setRaw(false);
      } catch {
        // stdin closed meanwhile: nothing to restore
      }
    },
  };
}
