// What a check says about a file: a problem at a line and column, its severity, a message and
// the text of its line. Both checks (tree-sitter's syntax check and language servers) give
// these; `newDiagnostics` keeps what an edit introduced, so a problem the file had before the
// edit is never repeated, wherever the edit moved it.

/** One problem in a file. */
export interface Diagnostic {
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  severity: "error" | "warning";
  message: string;
  /** Who found it: "syntax" (tree-sitter) or a language server's name. */
  source: string;
}

/** The text of 1-based `line` of `text`, trimmed. */
export function lineText(text: string, line: number): string {
  let start = 0;
  for (let at = 1; at < line; at++) {
    const next = text.indexOf("\n", start);
    if (next < 0) return "";
    start = next + 1;
  }
  const end = text.indexOf("\n", start);
  return text.slice(start, end < 0 ? text.length : end).trim();
}

/** What makes two diagnostics the same problem: what it says, and the line it is on. */
function keyOf(diagnostic: Diagnostic, text: string): string {
  return `${diagnostic.severity}\u0000${diagnostic.message}\u0000${
    lineText(text, diagnostic.line)
  }`;
}

/**
 * The diagnostics of `after` that `before` did not have: a problem with the same message on a
 * line of the same text counts as the same one (as many times as it was there), so an edit
 * that moves old errors up or down does not bring them back.
 *
 * @param before The diagnostics of the file before the edit, with its text.
 * @param after The diagnostics after it, with its text.
 * @returns The new ones, in the order of `after`.
 *
 * @example
 * ```ts
 * import { newDiagnostics } from "./diagnostic.ts";
 * const d = (line: number) => ({ line, column: 1, severity: "error" as const, message: "x", source: "syntax" });
 * const fresh = newDiagnostics({ text: "bad\n", diagnostics: [d(1)] }, { text: "ok\nbad\nworse\n", diagnostics: [d(2), d(3)] });
 * if (fresh.length !== 1 || fresh[0]!.line !== 3) throw new Error(JSON.stringify(fresh));
 * ```
 */
export function newDiagnostics(
  before: { text: string; diagnostics: readonly Diagnostic[] },
  after: { text: string; diagnostics: readonly Diagnostic[] },
): Diagnostic[] {
  const old = new Map<string, number>();
  for (const diagnostic of before.diagnostics) {
    const key = keyOf(diagnostic, before.text);
    old.set(key, (old.get(key) ?? 0) + 1);
  }
  return after.diagnostics.filter((diagnostic) => {
    const key = keyOf(diagnostic, after.text);
    const left = old.get(key) ?? 0;
    if (left === 0) return true;
    old.set(key, left - 1);
    return false;
  });
}
