// The interactive REPL: node:readline with history and line editing, streamed answers,
// slash commands, and Ctrl-C that interrupts the running generation or tool (twice at an
// empty prompt, or Ctrl-D, exits). Input arrives through an injected readline interface
// so tests can drive it through a pipe.

import { createInterface, type Interface } from "node:readline";
import type { Conversation } from "./conversation.ts";
import type { TurnOutcome } from "./agent_loop.ts";
import { createTextRenderer } from "./ui/render_text.ts";
import type { Style } from "./ui/style.ts";

/** Answers one key or one line for prompts raised during a turn (permission questions). */
export interface TurnInput {
  readKey(signal?: AbortSignal): Promise<string>;
  readLine(prompt: string): Promise<string | null>;
  write(text: string): void;
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
  exit(): void;
}

export interface ReplOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  terminal: boolean;
  style: Style;
  history: string[];
  onHistoryLine?(line: string): void;
  commands: SlashCommand[];
  banner: string;
  /** Called when the process gets SIGINT outside readline (non-TTY input). */
  addSignalListener?: ((handler: () => void) => () => void) | undefined;
}

/** A queue of lines from readline, so turn-time prompts and the main prompt share input. */
class LineQueue {
  #lines: string[] = [];
  #waiters: ((line: string | null) => void)[] = [];
  #closed = false;

  push(line: string) {
    const waiter = this.#waiters.shift();
    if (waiter) waiter(line);
    else this.#lines.push(line);
  }
  close() {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter(null);
  }
  next(): Promise<string | null> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#closed) return Promise.resolve(null);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
  get closed(): boolean {
    return this.#closed;
  }
}

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
  #banner: string;
  #conversation: Conversation | undefined;
  /** Input ended (piped stdin is read ahead); queued lines are still processed. */
  #rlClosed = false;

  constructor(options: ReplOptions) {
    this.#options = options;
    this.#commands = options.commands;
    this.#banner = options.banner;
    const { style } = options;
    this.#rl = createInterface({
      input: options.input,
      output: options.output,
      terminal: options.terminal,
      history: options.history,
      historySize: 1000,
      removeHistoryDuplicates: true,
      prompt: style.cyan("> "),
    });
    this.#rl.on("line", (line) => this.#lines.push(line));
    this.#rl.on("close", () => {
      this.#rlClosed = true;
      this.#lines.close();
    });
    this.#rl.on("SIGINT", () => this.#interrupt());
    this.#removeSignal = options.addSignalListener?.(() => this.#interrupt());

    // Keys typed during a turn (permission prompts): keypress events on a terminal, whole
    // lines otherwise (the first character is the key).
    const keyWaiters: ((key: string) => void)[] = [];
    if (options.terminal) {
      options.input.on("keypress", (sequence: string | undefined) => {
        const waiter = keyWaiters.shift();
        if (waiter && sequence !== undefined) waiter(sequence);
      });
    }
    this.turnInput = {
      write: (text) => this.#write(text),
      readKey: (signal) => {
        if (!options.terminal) {
          return this.#lines.next().then((line) =>
            line === null ? "\x03" : line.trim().slice(0, 1) || "\r"
          );
        }
        return new Promise((resolve) => {
          keyWaiters.push(resolve);
          signal?.addEventListener("abort", () => resolve("\x03"), { once: true });
        });
      },
      readLine: async (prompt) => {
        this.#write(prompt);
        this.#clearLine();
        return await this.#lines.next();
      },
    };
  }

  /** Slash commands (set after construction when they need parts built later). */
  setCommands(commands: SlashCommand[]): void {
    this.#commands = commands;
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

  #prompt() {
    if (this.#rlClosed) this.#write(this.#options.style.cyan("> "));
    else this.#rl.prompt();
  }

  #interrupt() {
    if (this.#turn) {
      this.#turn.abort();
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

  async #runTurn(conversation: Conversation, text: string | null): Promise<TurnOutcome> {
    const { style, terminal } = this.#options;
    this.#turn = new AbortController();
    const renderer = createTextRenderer({
      write: (t) => this.#write(t),
      note: (t) => this.#write(t),
      style,
      spinner: terminal,
      showReasoning: true,
    });
    try {
      const outcome = await conversation.send(text, renderer.sink, this.#turn.signal);
      if (outcome.stopReason === "task_complete") {
        this.#write(`${style.green("■ Task complete")}\n${outcome.text}\n`);
      }
      return outcome;
    } finally {
      renderer.stop();
      this.#turn = undefined;
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
      exit: () => {
        this.#exiting = true;
        this.#rl.close();
      },
    };
    this.#write(`${this.#banner}\n`);
    while (!this.#exiting) {
      this.#prompt();
      const line = await this.#lines.next();
      if (line === null) break;
      const text = line.trim();
      if (text === "") continue;
      this.#options.onHistoryLine?.(line);
      if (text.startsWith("/")) {
        const [name = "", ...rest] = text.slice(1).split(/\s+/);
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
    this.#write("\n");
    return 0;
  }
}
