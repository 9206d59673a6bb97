// The words an edit's diagnostics reach the model in, after the tool's own result: errors
// first, at most 20 for the edited file and at most 5 other files (3 each), each one line with
// its place, its message and the start of its line, then one short note per language server
// that was skipped. Nothing at all when the edit introduced nothing.

import { type Diagnostic, lineText } from "./diagnostic.ts";

/** The new diagnostics of one file, with its text after the edit. */
export interface FileDiagnostics {
  /** The path as the model names it (workspace-relative). */
  path: string;
  text: string;
  diagnostics: readonly Diagnostic[];
}

/** Diagnostics told at most for the edited file. */
export const MAX_FILE_DIAGNOSTICS = 20;
/** Other files told at most, and diagnostics for each. */
export const MAX_OTHER_FILES = 5;
const MAX_PER_OTHER_FILE = 3;
/** Characters of a line's text shown. */
const EXCERPT = 50;

function excerpt(text: string, line: number): string {
  const shown = lineText(text, line);
  if (shown === "") return "";
  return ` | ${shown.length > EXCERPT ? `${shown.slice(0, EXCERPT)}...` : shown}`;
}

function sorted(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const rank = (d: Diagnostic) => d.severity === "error" ? 0 : 1;
  return [...diagnostics].sort((a, b) => rank(a) - rank(b) || a.line - b.line);
}

function lines(file: FileDiagnostics, max: number): string[] {
  const shown = sorted(file.diagnostics).slice(0, max).map((d) => {
    const from = d.source === "syntax" ? "" : ` (${d.source})`;
    return `${file.path}:${d.line}:${d.column}: ${d.severity}${from}: ${d.message}${
      excerpt(file.text, d.line)
    }`;
  });
  const more = file.diagnostics.length - shown.length;
  if (more > 0) shown.push(`${file.path}: ${more} more`);
  return shown;
}

/**
 * The text added to an edit's result: what the edit introduced, or undefined when nothing.
 *
 * @param file The edited file's new diagnostics.
 * @param others Other files' new diagnostics (a language server's).
 * @param notes Short notes (a server that did not answer in time).
 *
 * @example
 * ```ts
 * import { diagnosticsText } from "./diagnostics_text.ts";
 * const text = diagnosticsText({ path: "a.py", text: "def f(:\n", diagnostics: [{ line: 1, column: 7, severity: "error", message: 'missing ")"', source: "syntax" }] }, [], []);
 * if (text !== '[New problems after this edit]\na.py:1:7: error: missing ")" | def f(:') throw new Error(text);
 * ```
 */
export function diagnosticsText(
  file: FileDiagnostics,
  others: readonly FileDiagnostics[],
  notes: readonly string[],
): string | undefined {
  const found = [
    ...lines(file, MAX_FILE_DIAGNOSTICS),
    ...others.filter((other) => other.diagnostics.length > 0).slice(0, MAX_OTHER_FILES)
      .flatMap((other) => lines(other, MAX_PER_OTHER_FILE)),
  ];
  const skipped = others.filter((other) => other.diagnostics.length > 0).length - MAX_OTHER_FILES;
  if (skipped > 0) found.push(`(${skipped} more files)`);
  if (found.length === 0 && notes.length === 0) return undefined;
  const head = found.length > 0 ? ["[New problems after this edit]"] : [];
  return [...head, ...found, ...notes.map((note) => `[${note}]`)].join("\n");
}
