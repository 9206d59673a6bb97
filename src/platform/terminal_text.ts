// The one sanitiser for text harness did not write itself (model text and reasoning, tool
// output and display lines, tool and plugin names, file names from a repository, server
// errors) on its way to the terminal. Escape sequences (OSC 52 clipboard writes, OSC 0 titles,
// OSC 8 links, SGR 8 hidden text, CSI through U+009B), C0 and C1 controls, bidi overrides and
// isolates, and invisible characters are shown as escapes (`\x1b`, `\u202e`), never obeyed.
// Harness adds its own colours after this, so they still work. A command's output shown raw in a
// terminal (an editor's, following a background job) goes through TerminalStreamFilter, which
// keeps its colours and drops every other sequence.

/**
 * Characters that change how a terminal shows text instead of showing themselves: C0 controls
 * but newline and tab, DEL, C1 controls (U+0080-U+009F, CSI as U+009B), the Arabic letter
 * mark, bidi marks, embeddings, overrides and isolates, zero-width and invisible characters,
 * line and paragraph separators, the byte order mark, interlinear annotation and tag
 * characters (invisible text some models read).
 */
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|[\u{e0000}-\u{e007f}]/gu;

/** The same characters plus newline and tab, for text shown on one line. */
const UNSAFE_IN_LINE = new RegExp(`[\\n\\t]|${UNSAFE.source}`, "gu");

/** A whole escape sequence: CSI, OSC, DCS/SOS/PM/APC (7-bit or C1), or ESC and one character. */
const SEQUENCE =
  // deno-lint-ignore no-control-regex
  /(?:\x1b\[|\x9b)[\x20-\x3f]*[\x40-\x7e]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[\x20-\x7e]?/g;

function escape(char: string): string {
  const code = char.codePointAt(0)!;
  if (char === "\n") return "\\n";
  if (char === "\t") return "\\t";
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\u{${code.toString(16)}}`;
}

/**
 * Text made safe to print: every control, C1, bidi and invisible character is shown as an
 * escape (`\x1b`, `\x9b`, `\u202e`), so an escape sequence shows as text and does nothing.
 * Newlines and tabs stay.
 *
 * @param text Text harness did not write (model text, tool output, names).
 * @returns The text to print.
 *
 * @example
 * ```ts
 * import { terminalSafe } from "./terminal_text.ts";
 * if (terminalSafe("a\x1b]52;c;ZXZpbA==\x07b\n") !== "a\\x1b]52;c;ZXZpbA==\\x07b\n") throw new Error();
 * if (terminalSafe("\u202egnp.exe") !== "\\u202egnp.exe") throw new Error();
 * ```
 */
export function terminalSafe(text: string): string {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text) ? text.replace(UNSAFE, escape) : text;
}

/**
 * {@link terminalSafe} for text shown on one line (a tool line, a name, a file name):
 * newlines and tabs are escaped too, so nothing can start a line that looks like harness's.
 *
 * @param text Text harness did not write.
 * @returns One line to print.
 *
 * @example
 * ```ts
 * import { terminalLine } from "./terminal_text.ts";
 * if (terminalLine("a\nAllowed once\x9b2J") !== "a\\nAllowed once\\x9b2J") throw new Error();
 * ```
 */
export function terminalLine(text: string): string {
  UNSAFE_IN_LINE.lastIndex = 0;
  return UNSAFE_IN_LINE.test(text) ? text.replace(UNSAFE_IN_LINE, escape) : text;
}

/**
 * Text with escape sequences and every unsafe character (newlines and tabs too) removed, for a
 * redrawn status line that shows a running tool's last output line: colours a test runner
 * prints are dropped rather than shown as escapes.
 *
 * @param text Tool output.
 * @returns Plain text on one line.
 *
 * @example
 * ```ts
 * import { terminalPlain } from "./terminal_text.ts";
 * if (terminalPlain("\x1b[31mred\x1b[0m\t\x9b8m!\x1b]0;title\x07") !== "red!") throw new Error();
 * ```
 */
export function terminalPlain(text: string): string {
  return text.replace(SEQUENCE, "").replace(UNSAFE_IN_LINE, "");
}

/**
 * JSON text safe to print: the characters {@link terminalSafe} escapes, inside JSON strings,
 * as `\uXXXX` escapes (JSON.stringify escapes only C0 controls). The value is unchanged.
 *
 * @param json Text from JSON.stringify.
 * @returns The same JSON value, printable.
 *
 * @example
 * ```ts
 * import { jsonTerminalSafe } from "./terminal_text.ts";
 * const json = jsonTerminalSafe(JSON.stringify({ text: "a\u009b2J\u202eb" }));
 * if (json !== '{"text":"a\\u009b2J\\u202eb"}' || JSON.parse(json).text !== "a\u009b2J\u202eb") {
 *   throw new Error(json);
 * }
 * ```
 */
export function jsonTerminalSafe(json: string): string {
  UNSAFE.lastIndex = 0;
  if (!UNSAFE.test(json)) return json;
  return json.replace(UNSAFE, (char) => {
    let out = "";
    for (let i = 0; i < char.length; i++) {
      out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
    }
    return out;
  });
}

/** A colour (SGR) sequence: the one kind of escape a followed command's output keeps. */
// deno-lint-ignore no-control-regex
const SGR = /^\x1b\[[0-9;:]*m$/;
/** Controls dropped from a followed command's output: all C0 but tab, newline, CR; DEL; C1. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/gu;
/** The longest escape sequence held back waiting for its end; a longer one is dropped. */
const MAX_HELD = 4096;

// deno-lint-ignore no-control-regex
const CSI_START = /^(?:\x1b\[|\x9b)/;
// deno-lint-ignore no-control-regex
const STRING_START = /^(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])/;
// deno-lint-ignore no-control-regex
const STRING_END = /(?:\x07|\x1b\\|\x9c)$/;

/** Whether `sequence` (a SEQUENCE match) has its final character. */
function sequenceEnded(sequence: string): boolean {
  if (CSI_START.test(sequence)) {
    return /[\x40-\x7e]$/.test(sequence.slice(sequence.startsWith("\x9b") ? 1 : 2));
  }
  if (STRING_START.test(sequence)) return STRING_END.test(sequence);
  return sequence.length > 1;
}

/**
 * A command's output as it comes, for a terminal that shows it (an editor's terminal following
 * a background job): colours (SGR) are kept; every other escape sequence (OSC 52 clipboard
 * writes, titles, links, DCS, cursor and screen control, CSI through U+009B) and every control
 * but tab, newline and carriage return is dropped; bidi and invisible characters show as escapes,
 * as {@link terminalSafe} shows them. A sequence or character cut between chunks waits for the
 * rest.
 *
 * @example
 * ```ts
 * import { TerminalStreamFilter } from "./terminal_text.ts";
 * const filter = new TerminalStreamFilter();
 * const bytes = new TextEncoder().encode("\x1b[31mred\x1b[0m \x1b]52;c;ZXZpbA==\x07ok\n");
 * const out = filter.push(bytes.subarray(0, 20)) + filter.push(bytes.subarray(20)) + filter.end();
 * if (out !== "\x1b[31mred\x1b[0m ok\n") throw new Error(JSON.stringify(out));
 * ```
 */
export class TerminalStreamFilter {
  readonly #decoder = new TextDecoder();
  /** An escape sequence whose end has not come yet. */
  #held = "";

  /** The safe text of the next chunk (part of it may wait for the next). */
  push(chunk: Uint8Array): string {
    return this.#filter(this.#held + this.#decoder.decode(chunk, { stream: true }), false);
  }

  /** What is left at the end of the output (a cut sequence is dropped). */
  end(): string {
    return this.#filter(this.#held + this.#decoder.decode(), true);
  }

  #filter(text: string, last: boolean): string {
    this.#held = "";
    let out = "";
    let from = 0;
    for (const match of text.matchAll(SEQUENCE)) {
      out += plainText(text.slice(from, match.index));
      from = match.index + match[0].length;
      const sequence = match[0];
      if (from === text.length && !last && !sequenceEnded(sequence)) {
        if (sequence.length <= MAX_HELD) this.#held = sequence;
        return out;
      }
      if (SGR.test(sequence)) out += sequence;
    }
    return out + plainText(text.slice(from));
  }
}

/** Text between escape sequences: controls dropped, the other unsafe characters escaped. */
function plainText(text: string): string {
  return text.replace(CONTROL, "").split("\r").map(terminalSafe).join("\r");
}
