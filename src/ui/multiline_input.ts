// Multi-line messages at the REPL prompt, on top of node:readline's one-line editor: a
// bracketed paste is one message (a long one shown as `[pasted N lines]`), Alt-Enter or Ctrl-J
// starts a new line, Ctrl-G edits the message in $EDITOR, Shift-Tab switches the mode (plan
// mode: the prompt shows it). Lines above the one being edited are kept here; Enter sends them
// all. The REPL routes every key through `key()` first.

import type { Interface } from "node:readline";
import { terminalLine } from "../platform/terminal_text.ts";
import { REPL_PROMPT, type Style } from "./style.ts";

/** A key as node:readline's keypress events give it. */
export interface KeyPress {
  sequence?: string;
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  /** Deno's parser gives `[200` for the paste markers ESC [ 200 ~ (the `~` comes alone). */
  code?: string;
}

/** What the composer needs of the line editor and the screen. */
export interface ComposerView {
  /** The line being edited and the cursor's place in it. */
  line(): { text: string; cursor: number };
  /** Replaces the line being edited (the cursor goes to its end). */
  setLine(text: string): void;
  /**
   * Moves the line being edited up into the message: it stays on screen as `shown` (drawn after
   * the prompt it had), and the next line starts with the continuation prompt.
   */
  commitLines(shown: readonly string[]): void;
  /** Opens the text in the user's editor; the edited text, or undefined when it failed. */
  openEditor?(text: string): Promise<string | undefined>;
  /** Shift-Tab: switches the mode (the line typed so far waits for the next prompt). */
  switchMode?(): void;
}

/** The prompt's mode: what it shows, and the command Shift-Tab enters. */
export interface PromptMode {
  /** The mode the prompt shows before its mark (`plan`), or undefined for none. */
  promptMark?(): string | undefined;
  /** The command Shift-Tab enters (`/plan`); without it Shift-Tab does nothing. */
  modeCommand?: string;
}

/** Pasted lines shown as they are; a longer paste shows as `[pasted N lines]`. */
export const PASTE_SHOWN_LINES = 6;

type PasteState = "none" | "start-marker" | "pasting" | "end-marker";

/**
 * The message being composed: the lines already entered (Alt-Enter, a paste, the editor) and
 * whether a bracketed paste is arriving.
 */
export class Composer {
  #lines: string[] = [];
  #paste: PasteState = "none";
  #pasted = "";
  #editing = false;
  /** When Enter last came: a terminal that sends CR LF for it sends no Ctrl-J. */
  #returnAt = 0;

  constructor(readonly view: ComposerView) {}

  /** Whether lines are waiting above the edited one. */
  get composing(): boolean {
    return this.#lines.length > 0;
  }

  /** Whether the user's editor is open (keys go to it, not here). */
  get editing(): boolean {
    return this.#editing;
  }

  /**
   * Collects a bracketed paste: returns the pasted text when its end marker arrives, true while
   * a paste is arriving (the key is part of it), false for a key that is not pasted.
   */
  paste(sequence: string | undefined, key: KeyPress | undefined): string | boolean {
    const seq = sequence ?? key?.sequence ?? "";
    if (this.#paste === "start-marker" || this.#paste === "end-marker") {
      const ending = this.#paste === "end-marker";
      this.#paste = ending ? "none" : "pasting";
      if (seq === "~") return ending ? this.#takePaste() : true;
      // Not Deno's split marker after all: the key is ordinary text.
      if (ending) return this.#takePaste();
    }
    if (seq === "\x1b[200~" || key?.code === "[200") {
      this.#paste = seq === "\x1b[200~" ? "pasting" : "start-marker";
      this.#pasted = "";
      return true;
    }
    if (this.#paste !== "pasting") return false;
    if (seq === "\x1b[201~") {
      this.#paste = "none";
      return this.#takePaste();
    }
    if (key?.code === "[201") {
      this.#paste = "end-marker";
      return true;
    }
    this.#pasted += seq;
    return true;
  }

  #takePaste(): string {
    const text = this.#pasted.replace(/\r\n?/g, "\n");
    this.#pasted = "";
    return text;
  }

  /**
   * Handles a key at the prompt that readline would not do right: Alt-Enter and Ctrl-J (a new
   * line), Ctrl-G (the editor). Returns true when the key was handled here.
   */
  key(sequence: string | undefined, key: KeyPress | undefined): boolean {
    const seq = sequence ?? key?.sequence;
    if (seq === "\r") this.#returnAt = Date.now();
    // The LF of a CR LF Enter is readline's to drop, as it does.
    if (seq === "\n" && Date.now() - this.#returnAt < 100) return false;
    if ((key?.name === "return" && key.meta) || seq === "\x1b\r" || seq === "\n") {
      this.#newLine();
      return true;
    }
    if (key?.ctrl && key.name === "g" && this.view.openEditor) {
      void this.#edit();
      return true;
    }
    if ((seq === "\x1b[Z" || (key?.name === "tab" && key.shift)) && this.view.switchMode) {
      this.view.switchMode();
      return true;
    }
    return false;
  }

  /**
   * Inserts pasted text at the cursor: text without a newline goes into the edited line; with
   * newlines, every line but the last joins the message above it.
   */
  insert(text: string): void {
    const { text: line, cursor } = this.view.line();
    const whole = line.slice(0, cursor) + text + line.slice(cursor);
    const lines = whole.split("\n");
    if (lines.length === 1) {
      this.view.setLine(whole);
      return;
    }
    const pastedLines = text.replace(/\n$/, "").split("\n").length;
    const above = lines.slice(0, -1);
    this.#lines.push(...above);
    this.view.commitLines(
      pastedLines > PASTE_SHOWN_LINES
        ? [`${line.slice(0, cursor)}[pasted ${pastedLines} lines]`]
        : above,
    );
    this.view.setLine(lines.at(-1)!);
  }

  /**
   * The whole message when readline submits its line; the composed lines are cleared.
   *
   * @param line The line readline submitted.
   */
  submit(line: string): string {
    if (this.#lines.length === 0) return line;
    const message = [...this.#lines, line].join("\n");
    this.#lines = [];
    return message;
  }

  /** Forgets the composed lines (Ctrl-C at the prompt). */
  clear(): void {
    this.#lines = [];
  }

  #newLine(): void {
    const { text } = this.view.line();
    this.#lines.push(text);
    this.view.commitLines([text]);
    this.view.setLine("");
  }

  async #edit(): Promise<void> {
    const open = this.view.openEditor;
    if (!open || this.#editing) return;
    const { text } = this.view.line();
    this.#editing = true;
    let edited: string | undefined;
    try {
      edited = await open([...this.#lines, text].join("\n"));
    } finally {
      this.#editing = false;
    }
    if (edited === undefined) return;
    const lines = edited.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
    this.#lines = lines.slice(0, -1);
    if (this.#lines.length > 0) {
      this.view.commitLines(
        this.#lines.length + 1 > PASTE_SHOWN_LINES
          ? [`[edited: ${lines.length} lines]`]
          : this.#lines,
      );
    }
    this.view.setLine(lines.at(-1)!);
  }
}

/** The prompt of a message's second and later lines. */
export const CONTINUATION_PROMPT = "… ";

/** The composer's view on node:readline: its line, the prompt, the terminal for the editor. */
export class ReadlineComposerView implements ComposerView {
  /** The prompt shows the continuation mark: lines are waiting above. */
  #continued = false;
  /** What was typed when Shift-Tab switched the mode: back on the next prompt. */
  #stashed = "";
  readonly openEditor?: (text: string) => Promise<string | undefined>;
  readonly switchMode?: () => void;

  constructor(
    readonly rl: Interface,
    readonly options: PromptMode & {
      input: NodeJS.ReadableStream;
      write(text: string): void;
      style: Style;
      openEditor?: (text: string) => Promise<string | undefined>;
    },
  ) {
    if (options.openEditor) this.openEditor = (text) => this.#openEditor(text);
    const command = options.modeCommand;
    if (command) this.switchMode = () => this.#switchMode(command);
  }

  /** The main prompt, with the mode's mark (`plan > `). */
  mainPrompt(): string {
    const mark = this.options.promptMark?.();
    return mark ? `${mark} ${REPL_PROMPT}` : REPL_PROMPT;
  }

  /** Draws the prompt (the mode's, or the continuation mark), with a line Shift-Tab kept. */
  prompt(keepCursor = false): void {
    this.setContinued(this.#continued);
    this.rl.prompt(keepCursor);
    if (this.#stashed !== "") this.setLine(this.#stashed);
    this.#stashed = "";
  }

  /** Shift-Tab: the mode's command is entered as a line; what was typed waits for the prompt. */
  #switchMode(command: string): void {
    this.#stashed = this.rl.line;
    this.setLine("");
    this.options.write("\n");
    this.rl.emit("line", command);
  }

  line(): { text: string; cursor: number } {
    return { text: this.rl.line, cursor: this.rl.cursor };
  }

  setLine(text: string): void {
    this.rl.write(null, { ctrl: true, name: "e" });
    this.rl.write(null, { ctrl: true, name: "u" });
    if (text !== "") this.rl.write(text);
  }

  /** Shows the main prompt, or the continuation mark while lines wait above. */
  setContinued(continued: boolean): void {
    this.#continued = continued;
    const prompt = continued ? CONTINUATION_PROMPT : this.mainPrompt();
    this.rl.setPrompt(this.options.style.cyan(prompt));
  }

  commitLines(shown: readonly string[]): void {
    const { style } = this.options;
    this.setLine("");
    const first = this.#continued ? CONTINUATION_PROMPT : this.mainPrompt();
    const rows = shown.map((line, i) =>
      `${style.cyan(i === 0 ? first : CONTINUATION_PROMPT)}${terminalLine(line)}`
    );
    this.options.write(`\r\x1b[K${rows.join("\n")}\n`);
    this.setContinued(true);
    this.rl.prompt(true);
  }

  /** Ctrl-G: the terminal goes to the user's editor until it exits. */
  async #openEditor(text: string): Promise<string | undefined> {
    const input = this.options.input as NodeJS.ReadStream;
    input.setRawMode?.(false);
    input.pause();
    this.options.write("\x1b[?2004l");
    try {
      return await this.options.openEditor!(text);
    } finally {
      this.options.write("\x1b[?2004h");
      input.setRawMode?.(true);
      input.resume();
      this.rl.prompt(true);
    }
  }
}
