// The interactive REPL: node:readline with history and line editing, streamed answers,
// slash commands, and Ctrl-C that interrupts the running generation or tool (twice at an
// empty prompt, or Ctrl-D, exits). Input arrives through an injected readline interface
// so tests can drive it through a pipe.

import { createInterface, type Interface } from "node:readline";
import type { Conversation } from "../agent/conversation.ts";
import type { TurnOutcome } from "../agent/loop_turn.ts";
import type { LoopEventSink } from "../agent/loop_events.ts";
import { createTextRenderer } from "./render_text.ts";
import { REPL_PROMPT, type Style } from "./style.ts";
import { Composer, type KeyPress, ReadlineComposerView } from "./multiline_input.ts";
import type { PromptMode } from "./multiline_input.ts";
import { TypeAhead } from "./type_ahead.ts";
import { terminalLine } from "../platform/terminal_text.ts";
import type { ImagePart } from "../messages.ts";
import { LineQueue } from "./line_queue.ts";
import { complete } from "./completion.ts";
import type { FileGate } from "../gate/file_gate.ts";

/** Answers one key or one line for prompts raised during a turn (permission questions). */
export interface TurnInput {
  readKey(signal?: AbortSignal): Promise<string>;
  /** One line; on a terminal `initial` is put on the line to be edited. */
  readLine(prompt: string, initial?: string): Promise<string | null>;
  write(text: string): void;
  /** On a terminal: gives it to another program (the user's editor) while `work` runs. */
  releaseTerminal?<T>(work: () => Promise<T>): Promise<T>;
}

export interface SlashCommand {
  name: string;
  summary: string;
  run(args: string, repl: ReplControl): Promise<void> | void;
}

/** What slash commands may do to the REPL. */
export interface ReplControl {
  write(text: string): void;
  style: Style;
  conversation: Conversation;
  /** Replaces the conversation (/clear, /resume). */
  setConversation(conversation: Conversation): void;
  /** Runs a turn as if the user typed (null continues after a limit). */
  runTurn(text: string | null): Promise<TurnOutcome | undefined>;
  /** Runs model work that Ctrl-C interrupts (/compact), rendering its events. */
  interruptible<T>(work: (display: LoopEventSink, signal: AbortSignal) => Promise<T>): Promise<T>;
  exit(): void;
}

export interface ReplOptions extends PromptMode {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  terminal: boolean;
  style: Style;
  history: string[];
  onHistoryLine?(line: string): void;
  commands: SlashCommand[];
  banner: string;
  /**
   * The banner and first prompt are on screen already (prompt_ahead.ts): run() does not
   * write them again, except that on a terminal readline redraws the prompt line.
   */
  promptShown?: boolean;
  /** Called when the process gets SIGINT outside readline (non-TTY input). */
  addSignalListener?: ((handler: () => void) => () => void) | undefined;
  /**
   * Opens a message in the user's editor (Ctrl-G): the edited text, or undefined. The REPL
   * gives the terminal up while it runs.
   */
  openEditor?: (text: string) => Promise<string | undefined>;
  /** The workspace, for Tab completion of `@` paths (slash commands complete without it). */
  workspace?: string;
  /**
   * The gate Tab lists `@` paths through until setCompletionGate gives the run's: one for
   * reading built from the grants. Without either, no path is offered.
   */
  completionGate?: FileGate;
}

/**
 * Turns a typed message into what is sent (the @ mentions attached), or says why it is not
 * sent; `notes` are lines for the user.
 */
export type MessagePreparer = (
  text: string,
  signal: AbortSignal,
  /** Texts the terminal pasted (bracketed paste): only an image path among them is read. */
  pasted: readonly string[],
) => Promise<{ send: string; notes: string[]; images?: ImagePart[] } | { refused: string }>;

/** Runs a `!command` line (without the `!`). */
export type ShellRunner = (command: string, repl: ReplControl) => Promise<void>;

type KeyListener = (...args: unknown[]) => void;

/** The REPL: construct it (its turnInput feeds permission prompts), then `run`. */
export class Repl {
  readonly turnInput: TurnInput;
  readonly #options: ReplOptions;
  readonly #rl: Interface;
  readonly #lines = new LineQueue();
  #turn: AbortController | undefined;
  #exiting = false;
  #lastEmptyInterrupt = 0;
  #removeSignal: (() => void) | undefined;
  #commands: SlashCommand[];
  #completionGate: FileGate | undefined;
  #banner: string;
  #conversation: Conversation | undefined;
  /** Input ended (piped stdin is read ahead); queued lines are still processed. */
  #rlClosed = false;
  #readlineKeys: KeyListener[] = [];
  #keysDetached = false;
  #keyWaiters: ((key: string) => void)[] = [];
  /** What is typed while a turn runs: lines queued, and one being typed. */
  readonly #ahead = new TypeAhead();
  /** True while the main prompt waits for a line (not during a turn or a command). */
  #waitingForLine = false;
  /** Lines of the message above the one being edited (a paste, Alt-Enter, the editor). */
  readonly #composer: Composer;
  readonly #view: ReadlineComposerView;
  #prepare: MessagePreparer | undefined;
  #shell: ShellRunner | undefined;
  /** The latest texts the terminal pasted (a dropped file's path arrives as one). */
  readonly #pasted: string[] = [];

  constructor(options: ReplOptions) {
    this.#options = options;
    this.#commands = options.commands;
    this.#completionGate = options.completionGate;
    this.#banner = options.banner;
    const { style } = options;
    this.#rl = createInterface({
      input: options.input,
      output: options.output,
      terminal: options.terminal,
      // A message of several lines cannot be edited on readline's one line.
      history: options.history.filter((line) => !line.includes("\n")),
      historySize: 1000,
      removeHistoryDuplicates: true,
      prompt: style.cyan(REPL_PROMPT),
      completer: (line: string) =>
        complete(line, {
          commands: () => this.#commands.map((command) => command.name),
          workspace: options.workspace ?? Deno.cwd(),
          ...(this.#completionGate ? { gate: this.#completionGate } : {}),
        }),
    });
    this.#view = new ReadlineComposerView(this.#rl, { ...options, write: (t) => this.#write(t) });
    this.#composer = new Composer(this.#view);
    this.#rl.on("line", (line) => {
      const message = this.#composer.submit(line);
      if (message !== line) {
        // readline kept only the last line in its history; the whole message is in the file.
        const history = (this.#rl as unknown as { history?: string[] }).history;
        if (history?.[0] === line) history.shift();
        this.#view.setContinued(false);
      }
      this.#lines.push(message);
    });
    this.#rl.on("close", () => {
      this.#rlClosed = true;
      this.#lines.close();
    });
    this.#rl.on("SIGINT", () => this.#interrupt());
    this.#removeSignal = options.addSignalListener?.(() => this.#interrupt());

    // On a terminal, readline's own key handling is detached while a turn runs, so the keys
    // typed then (permission answers, Ctrl-C) reach only the turn and are not echoed into the
    // prompt line; it is attached again for one-line answers and after the turn.
    // Every key passes one router: a bracketed paste is collected whole, Alt-Enter, Ctrl-J and
    // Ctrl-G are handled at the prompt, and the rest goes to readline (or to the turn).
    if (options.terminal) {
      this.#readlineKeys = options.input.listeners("keypress") as KeyListener[];
      for (const listener of this.#readlineKeys) {
        options.input.removeListener("keypress", listener);
      }
      options.input.on(
        "keypress",
        (sequence: string | undefined, key: KeyPress | undefined) => this.#route(sequence, key),
      );
      options.output.write("\x1b[?2004h");
      // However harness ends (an exit on SIGTERM too), the terminal gets its pastes plain again.
      globalThis.addEventListener("unload", () => options.output.write("\x1b[?2004l"));
    }
    this.turnInput = {
      write: (text) => this.#write(text),
      readKey: (signal) => {
        if (!options.terminal) {
          return this.#lines.next(signal).then((line) =>
            line === null ? "\x03" : line.trim().slice(0, 1) || "\r"
          );
        }
        // Outside a turn (a trust question at start) readline gives the key back after.
        const outside = !this.#keysDetached;
        if (outside) this.#detachKeys();
        return new Promise((resolve) => {
          const done = (key: string) => {
            if (outside && !this.#turn) this.#attachKeys();
            resolve(key);
          };
          const waiter = (key: string) => done(key);
          this.#keyWaiters.push(waiter);
          signal?.addEventListener("abort", () => {
            this.#keyWaiters = this.#keyWaiters.filter((w) => w !== waiter);
            done("\x03");
          }, { once: true });
        });
      },
      readLine: async (prompt, initial) => {
        const signal = this.#turn?.signal;
        if (!options.terminal || this.#rlClosed) {
          this.#write(prompt);
          return await this.#lines.next(signal);
        }
        this.#attachKeys();
        this.#rl.setPrompt(prompt);
        this.#rl.prompt();
        // Typed in as keys: callers pass printable text only (edit_prompt.ts).
        if (initial) this.#rl.write(initial);
        try {
          return await this.#lines.next(signal);
        } finally {
          this.#view.setContinued(false);
          if (this.#turn) this.#detachKeys();
        }
      },
      ...(options.terminal
        ? {
          releaseTerminal: async <T>(work: () => Promise<T>): Promise<T> => {
            const input = options.input as NodeJS.ReadStream;
            input.setRawMode?.(false);
            input.pause();
            try {
              return await work();
            } finally {
              input.setRawMode?.(true);
              input.resume();
            }
          },
        }
        : {}),
    };
  }

  #route(sequence: string | undefined, key: KeyPress | undefined) {
    if (this.#composer.editing) return;
    const pasted = this.#composer.paste(sequence, key);
    if (typeof pasted === "string") {
      this.#pasted.push(pasted);
      if (this.#pasted.length > 20) this.#pasted.shift();
      if (this.#keysDetached) this.#ahead.typed += pasted;
      else this.#composer.insert(pasted);
      return;
    }
    if (pasted) return;
    if (this.#keysDetached) {
      // Esc arrives with no sequence argument, only the key's.
      this.#onTurnKey(sequence ?? key?.sequence);
      return;
    }
    if (this.#composer.key(sequence, key)) return;
    for (const listener of this.#readlineKeys) listener(sequence, key);
  }

  #onTurnKey(sequence: string | undefined) {
    if (!this.#keysDetached || sequence === undefined) return;
    const waiter = this.#keyWaiters.shift();
    if (waiter) waiter(sequence);
    else if (sequence === "\x03") this.#interrupt();
    else this.#ahead.key(sequence);
  }

  #detachKeys() {
    this.#keysDetached = this.#readlineKeys.length > 0;
  }

  #attachKeys() {
    this.#keysDetached = false;
  }

  /**
   * Draws the prompt and the line typed so far again, when the REPL is waiting for input on
   * a terminal. `deno run` clears the terminal's current line (its progress bar's
   * ESC[0G ESC[2K ESC[J on stderr) whenever a module loads lazily, so whatever loads in the
   * background after the prompt is shown calls this when done.
   */
  redrawPrompt(): void {
    if (!this.#options.terminal || this.#turn || this.#rlClosed || this.#exiting) return;
    if (!this.#waitingForLine) return;
    this.#rl.prompt(true);
  }

  /**
   * The run's file gate, once the workspace is open: Tab completes `@` paths only through it
   * (none before).
   */
  setCompletionGate(gate: FileGate): void {
    this.#completionGate = gate;
  }

  /** Slash commands (set after construction when they need parts built later). */
  setCommands(commands: SlashCommand[]): void {
    this.#commands = commands;
  }

  /** How typed messages are prepared (the @ mentions attached) before they are sent. */
  setPrepare(prepare: MessagePreparer): void {
    this.#prepare = prepare;
  }

  /** How `!command` lines run; without it they go to the model as text. */
  setShell(shell: ShellRunner): void {
    this.#shell = shell;
  }

  setBanner(banner: string): void {
    this.#banner = banner;
  }

  /** The conversation in use (slash commands may have replaced the one given to run). */
  get conversation(): Conversation | undefined {
    return this.#conversation;
  }

  #write(text: string) {
    this.#options.output.write(text);
  }

  #clearLine() {
    if (this.#options.terminal && !this.#rlClosed) this.#rl.write(null, { ctrl: true, name: "u" });
  }

  /** @param keepCursor Keep readline's cursor where typing left it (a prompt shown ahead). */
  #prompt(keepCursor = false) {
    if (this.#rlClosed) this.#write(this.#options.style.cyan(this.#view.mainPrompt()));
    else this.#view.prompt(keepCursor);
  }

  #interrupt() {
    if (this.#turn) {
      // Ctrl-C stops the turn and what was typed ahead with it.
      this.#ahead.discard();
      this.#turn.abort();
      return;
    }
    if (this.#composer.composing) {
      // Ctrl-C drops the message being composed, as it drops a typed line.
      this.#composer.clear();
      this.#view.setContinued(false);
      this.#write("\n");
      this.#clearLine();
      this.#prompt();
      return;
    }
    const now = Date.now();
    if (this.#rl.line === "" && now - this.#lastEmptyInterrupt < 2000) {
      this.#exiting = true;
      this.#rl.close();
      return;
    }
    this.#lastEmptyInterrupt = now;
    this.#write(`\n${this.#options.style.dim("(Ctrl-C again or Ctrl-D to exit)")}\n`);
    this.#clearLine();
    this.#prompt();
  }

  async #runTurn(
    conversation: Conversation,
    typed: string | null,
  ): Promise<TurnOutcome | undefined> {
    const { style } = this.#options;
    const outcome = await this.#interruptible(async (display, signal) => {
      let text = typed;
      let images: ImagePart[] = [];
      if (text !== null && this.#prepare) {
        const prepared = await this.#prepare(text, signal, this.#pasted);
        if ("refused" in prepared) {
          this.#write(`${style.red(terminalLine(prepared.refused))}\n`);
          return undefined;
        }
        for (const note of prepared.notes) this.#write(`${style.dim(terminalLine(note))}\n`);
        text = prepared.send;
        images = prepared.images ?? [];
      }
      return await conversation.send(text, display, signal, images);
    });
    if (outcome === undefined) return undefined;
    if (outcome.stopReason === "task_complete") {
      this.#write(`${style.green("■ Task complete")}\n${outcome.text}\n`);
    }
    return outcome;
  }

  async #interruptible<T>(
    work: (display: LoopEventSink, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const { style, terminal } = this.#options;
    this.#turn = new AbortController();
    if (terminal) this.#detachKeys();
    const renderer = createTextRenderer({
      write: (t) => this.#write(t),
      note: (t) => this.#write(t),
      style,
      spinner: terminal,
      showReasoning: true,
      columns: () => (this.#options.output as { columns?: number }).columns ?? 100,
    });
    try {
      return await work(renderer.sink, this.#turn.signal);
    } finally {
      renderer.stop();
      this.#turn = undefined;
      this.#attachKeys();
      this.#clearLine();
    }
  }

  /**
   * Runs the REPL until the user exits; returns the process exit code.
   *
   * @param conversation The conversation to talk in (slash commands may replace it).
   */
  async run(conversation: Conversation): Promise<number> {
    const { style } = this.#options;
    this.#conversation = conversation;
    const control: ReplControl = {
      write: (text) => this.#write(text),
      style,
      conversation,
      setConversation: (next) => {
        conversation = next;
        control.conversation = next;
        this.#conversation = next;
      },
      runTurn: (text) => this.#runTurn(conversation, text),
      interruptible: (work) => this.#interruptible(work),
      exit: () => {
        this.#exiting = true;
        this.#rl.close();
      },
    };
    let promptShown = this.#options.promptShown === true;
    if (!promptShown) this.#write(`${this.#banner}\n`);
    while (!this.#exiting) {
      // A prompt shown ahead is redrawn on a terminal (readline then knows the line), unless
      // a line typed meanwhile is already waiting: readline echoed it after that prompt.
      const queued = this.#ahead.queued.shift();
      // Ctrl-D typed during the last turn: exit once what was entered with it is sent.
      if (queued === undefined && this.#ahead.exit) break;
      let line: string | null;
      if (queued !== undefined) {
        // Entered while the last turn ran: shown as if typed at this prompt, then sent.
        this.#write(`${style.cyan(REPL_PROMPT)}${queued}  ${style.dim("(queued)")}\n`);
        line = queued;
      } else {
        if (!promptShown) this.#prompt();
        else if (this.#options.terminal && !this.#lines.hasLine) this.#prompt(true);
        if (this.#ahead.typed !== "" && !this.#rlClosed) {
          // Typed during the turn but not entered: it continues on this prompt.
          this.#rl.write(this.#ahead.typed);
          this.#ahead.typed = "";
        }
        this.#waitingForLine = true;
        // Workers started in the background (the sandbox's spare workers, MCP servers) load
        // modules at times no promise here tells; each load under `deno run` may clear the
        // line. Drawing the prompt again a few times while nothing is typed keeps it visible.
        const redraws = this.#options.terminal
          ? [1_000, 2_500, 5_000].map((ms) => setTimeout(() => this.redrawPrompt(), ms))
          : [];
        try {
          line = await this.#lines.next();
        } finally {
          this.#waitingForLine = false;
          for (const timer of redraws) clearTimeout(timer);
        }
      }
      promptShown = false;
      if (line === null) break;
      const text = line.trim();
      if (text === "") continue;
      this.#options.onHistoryLine?.(line);
      if (text.startsWith("!") && this.#shell) {
        await this.#shell(text.slice(1).trim(), control);
        continue;
      }
      // A message that starts with a path (a file dropped on the terminal) is no command.
      const [name = "", ...rest] = text.slice(1).split(/\s+/);
      if (text.startsWith("/") && !name.includes("/")) {
        const command = this.#commands.find((c) => c.name === name);
        if (!command) {
          this.#write(`${style.red(`Unknown command "/${name}"`)}: type /help for the list\n`);
          continue;
        }
        await command.run(rest.join(" "), control);
        continue;
      }
      await this.#runTurn(conversation, text);
    }
    this.#removeSignal?.();
    this.#rl.close();
    this.#write(this.#options.terminal ? "\x1b[?2004l\n" : "\n");
    return 0;
  }
}
