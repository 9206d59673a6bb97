// The temporary file in which the user edits a call's arguments (the approval prompt's "Edit"
// answer, edit_prompt.ts): pretty JSON between five comment lines above and five below, and
// reading it back. The model writes the JSON's strings, so none of its text may sit in the
// first or last five lines, where vi, vim and neovim read modelines; strings show bidi and
// invisible characters escaped, as the prompt does.

import { parse, type ParseError, stripComments } from "jsonc-parser";
import { jsoncErrorReason } from "../platform/jsonc_error_reason.ts";
import { jsonTerminalSafe } from "../platform/terminal_text.ts";

/** Comment lines kept above and below the arguments (vim reads modelines in five). */
export const FRAME_LINES = 5;

/**
 * The file's text for a call: instructions, the arguments as pretty JSON, a closing frame.
 *
 * @param tool The tool's name (letters, digits, `_` and `-` only).
 * @param args The arguments to edit.
 * @returns The text, ending in a newline.
 *
 * @example
 * ```ts
 * import { argumentsFileText } from "./arguments_file.ts";
 * const text = argumentsFileText("run_command", { command: "vim: set shell=x:" });
 * const lines = text.trimEnd().split("\n");
 * if (lines.slice(0, 5).concat(lines.slice(-5)).some((line) => line.includes("vim:"))) {
 *   throw new Error(text);
 * }
 * ```
 */
export function argumentsFileText(tool: string, args: unknown): string {
  const head = [
    `// The arguments of ${tool}, as the model wrote them. Change them, save and close the`,
    "// editor. The changed call is checked against the tool's schema and your policy rules",
    "// and shown with its changes; it runs only when you then allow it, once.",
    "// Lines starting with // are ignored. Save an empty file (or change nothing) to go back.",
    "//",
  ];
  const tail = [
    "//",
    "// harness keeps these comment lines around the arguments so that no text of the model",
    "// is at the start or the end of this file, where editors read settings (modelines).",
    "//",
    "// End of the file.",
  ];
  const json = jsonTerminalSafe(JSON.stringify(args ?? {}, null, 2));
  return [...head, json, ...tail, ""].join("\n");
}

/**
 * Reads the saved file: comments dropped, then one JSON value.
 *
 * @param text What the editor saved.
 * @returns The value; `empty` when nothing but comments is left; or the syntax error with its
 *   line and column.
 *
 * @example
 * ```ts
 * import { parseArgumentsFile } from "./arguments_file.ts";
 * const read = parseArgumentsFile('// note\n{ "path": "a" }\n');
 * if (!("value" in read) || JSON.stringify(read.value) !== '{"path":"a"}') throw new Error();
 * if (!("empty" in parseArgumentsFile("// only\n\n"))) throw new Error();
 * ```
 */
export function parseArgumentsFile(
  text: string,
): { value: unknown } | { empty: true } | { error: string } {
  if (stripComments(text).trim() === "") return { empty: true };
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: false });
  const first = errors[0];
  if (first) return { error: `not valid JSON: ${jsoncErrorReason(text, first)}` };
  return { value };
}
