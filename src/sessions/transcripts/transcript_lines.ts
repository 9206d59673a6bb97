// Small readers shared by the transcript formats: JSON Lines with each line's number and parse
// error, loose field access on unknown JSON, times as ISO strings, and the position of a parse
// error in a one-document file as a line number.

/** One line of a JSON Lines file. */
export type JsonLine =
  | { line: number; value: unknown }
  | { line: number; error: string };

/**
 * Splits JSON Lines text into parsed lines; blank lines are left out, a line that is not JSON
 * carries its parse error.
 *
 * @param text The file's text.
 * @returns One entry per non-blank line, with its 1-based number.
 *
 * @example
 * ```ts
 * import { jsonLines } from "./transcript_lines.ts";
 * const lines = jsonLines('{"a":1}\n\n{oops\n');
 * if (lines.length !== 2 || lines[1]?.line !== 3 || !("error" in lines[1]!)) throw new Error();
 * ```
 */
export function jsonLines(text: string): JsonLine[] {
  const out: JsonLine[] = [];
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    try {
      out.push({ line: index + 1, value: JSON.parse(line) });
    } catch (error) {
      out.push({ line: index + 1, error: (error as Error).message });
    }
  }
  return out;
}

/** A JSON object as a record, or undefined for anything else (arrays included). */
export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/** A string field, or undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * A time as an ISO string: from ISO text or epoch milliseconds; undefined when neither.
 *
 * @example
 * ```ts
 * import { isoTime } from "./transcript_lines.ts";
 * if (isoTime(0) !== "1970-01-01T00:00:00.000Z" || isoTime("x") !== undefined) throw new Error();
 * ```
 */
export function isoTime(value: unknown): string | undefined {
  const ms = typeof value === "number"
    ? value
    : typeof value === "string"
    ? Date.parse(value)
    : NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/**
 * Parses a one-document JSON file; the error names the line and column of the fault.
 *
 * @param source The text.
 * @param startLine The line the text starts on in its file (1 unless lines were skipped).
 * @returns The value, or a message such as `not JSON at line 12 (Unexpected token ...)`.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./transcript_lines.ts";
 * const r = parseDocument('{\n  "a": 1,\n  oops\n}', 1);
 * if (!("error" in r) || !r.error.includes("line 3")) throw new Error(JSON.stringify(r));
 * ```
 */
export function parseDocument(
  source: string,
  startLine: number,
): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(source) };
  } catch (error) {
    const message = (error as Error).message;
    const where = /line (\d+) column (\d+)/.exec(message);
    const position = /position (\d+)/.exec(message)?.[1];
    const line = where
      ? Number(where[1])
      : position === undefined
      ? source.split("\n").length
      : source.slice(0, Number(position)).split("\n").length;
    const column = where ? `, column ${where[2]}` : "";
    const reason = message.replace(/ at position \d+.*$/, "").replace(
      / \(line \d+ column \d+\)/,
      "",
    )
      .replace(/\.$/, "");
    return { error: `not JSON at line ${line + startLine - 1}${column} (${reason})` };
  }
}

/**
 * Text from a list of parts: each string, or each `text` field, joined by blank lines.
 *
 * @example
 * ```ts
 * import { joinTexts } from "./transcript_lines.ts";
 * if (joinTexts(["a", { text: "b" }, { type: "x" }]) !== "a\n\nb") throw new Error();
 * ```
 */
export function joinTexts(parts: readonly unknown[]): string {
  return parts.flatMap((part) => {
    if (typeof part === "string") return [part];
    const value = record(part)?.text;
    return typeof value === "string" ? [value] : [];
  }).join("\n\n");
}
