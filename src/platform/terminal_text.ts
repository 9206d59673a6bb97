// The one sanitiser for text harness did not write itself (model text and reasoning, tool
// output and display lines, tool and plugin names, file names from a repository, server
// errors) on its way to the terminal. Escape sequences (OSC 52 clipboard writes, OSC 0 titles,
// OSC 8 links, SGR 8 hidden text, CSI through U+009B), C0 and C1 controls, bidi overrides and
// isolates, and invisible characters are shown as escapes (`\x1b`, `\u202e`), never obeyed.
// Harness adds its own colours after this, so they still work.

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
