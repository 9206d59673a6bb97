// What the user types while a turn runs and nothing asks for a key: Enter queues the line
// (sent when the turn ends), Backspace edits it, Esc discards everything typed ahead. Nothing
// is echoed into the streaming answer; the REPL shows the queued lines when it sends them.

/** True when `text` holds no control characters (so no escape sequence either). */
function isPrintable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

/** Lines typed and entered during a turn, and the one being typed. */
export class TypeAhead {
  /** Entered lines, sent in order when the turn ends. */
  queued: string[] = [];
  /** A line being typed, not yet entered: it stays on the next prompt. */
  typed = "";

  /**
   * Takes one key's sequence.
   *
   * @example
   * ```ts
   * import { TypeAhead } from "./type_ahead.ts";
   * const ahead = new TypeAhead();
   * for (const key of ["h", "i", "x", "\x7f", "\r", "n", "\x1b[A"]) ahead.key(key);
   * if (ahead.queued.join() !== "hi" || ahead.typed !== "n") throw new Error();
   * ```
   */
  key(sequence: string): void {
    if (sequence === "\r" || sequence === "\n") {
      if (this.typed.trim() !== "") this.queued.push(this.typed);
      this.typed = "";
    } else if (sequence === "\x7f" || sequence === "\b") {
      this.typed = [...this.typed].slice(0, -1).join("");
    } else if (sequence === "\x1b" || sequence === "\x1b\x1b") {
      this.discard();
    } else if (isPrintable(sequence.replace(/\r?\n$/, ""))) {
      // Printable text (a paste may end with a newline); escape sequences such as arrow
      // keys are ignored.
      const text = sequence.replace(/\r?\n$/, "");
      this.typed += text;
      if (text !== sequence) this.key("\r");
    }
  }

  /** Forgets everything typed ahead (Esc, Ctrl-C). */
  discard(): void {
    this.queued = [];
    this.typed = "";
  }
}
