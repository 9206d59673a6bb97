// The approval prompt's view of a file change: a coloured unified diff with the old and new
// line numbers of each line, or the first lines and size of a new file; long diffs are folded
// and shown whole on request. Every line of the file goes through the terminal sanitiser, so a
// file's escape sequences show as text.

import {
  diffChange,
  type DiffLine,
  type FileChange,
  type PreviewResult,
} from "../tools/file_change.ts";
import { humanSize } from "../platform/human_size.ts";
import { terminalLine, terminalSafe } from "../platform/terminal_text.ts";

/** Lines of a diff shown before it is folded. */
export const FOLDED_DIFF_LINES = 40;
/** Lines of a new file shown. */
const NEW_FILE_LINES = 20;
/** Characters of one line shown. */
const MAX_LINE_CHARS = 400;

/** A call's change as the approval prompt shows it, and the whole diff for the `v` key. */
export interface PromptDiff {
  text: string;
  /** The whole diff, when the fold hides lines. */
  whole?: () => string;
}

/**
 * Works out and renders what an approval request would change; undefined for a call that
 * changes no single file.
 *
 * @param preview The request's preview (run in the tool's sandbox).
 * @param color ANSI colours.
 * @returns The folded view and the whole one, or a line saying why there is no diff.
 *
 * @example
 * ```ts
 * import { promptDiff } from "./file_diff_view.ts";
 * const diff = await promptDiff(() => Promise.resolve({ error: "old_string was not found" }), false);
 * if (diff?.text !== "No diff to show: old_string was not found\n") throw new Error(diff?.text);
 * ```
 */
export async function promptDiff(
  preview: (() => Promise<PreviewResult | undefined>) | undefined,
  color: boolean,
): Promise<PromptDiff | undefined> {
  const result = await preview?.();
  if (result === undefined) return undefined;
  if ("error" in result) {
    return { text: paint(color, "2", `No diff to show: ${terminalLine(result.error)}`) + "\n" };
  }
  const view = formatFileDiff(result.change, { color });
  if (view.hidden === 0) return { text: view.text };
  return {
    text: `${view.text}${
      paint(color, "2", `… ${view.hidden} more lines: press v to show the whole change`)
    }\n`,
    whole: () => formatFileDiff(result.change, { color, all: true }).text,
  };
}

/** The rendered diff, and how many lines the fold hides (0: it is whole). */
export interface DiffView {
  text: string;
  hidden: number;
}

function paint(color: boolean, code: string, text: string): string {
  return color ? `\x1b[${code}m${text}\x1b[0m` : text;
}

function shownLine(text: string): string {
  const line = text.endsWith("\r") ? text.slice(0, -1) : text;
  const cut = line.length > MAX_LINE_CHARS
    ? `${line.slice(0, MAX_LINE_CHARS)}… [${line.length - MAX_LINE_CHARS} more characters]`
    : line;
  // Tabs stay (code is indented with them); everything else that is not text is escaped.
  return terminalSafe(cut);
}

/**
 * Renders a file change for the approval prompt.
 *
 * @param change The file before and after (before null: a new file).
 * @param options `color`: ANSI colours; `all`: no folding; `maxLines`: the fold.
 * @returns The text (ending in a newline) and the number of lines folded away.
 *
 * @example
 * ```ts
 * import { formatFileDiff } from "./file_diff_view.ts";
 * const view = formatFileDiff(
 *   { path: "a.txt", before: "one\ntwo\nthree\n", after: "one\n2\nthree\n" },
 *   { color: false },
 * );
 * if (!view.text.includes("  2     - two\n      2 + 2\n")) throw new Error(view.text);
 * ```
 */
export function formatFileDiff(
  change: FileChange,
  options: { color: boolean; all?: boolean; maxLines?: number },
): DiffView {
  const { color } = options;
  const fold = options.all ? Infinity : options.maxLines ?? FOLDED_DIFF_LINES;
  const name = terminalLine(change.path);
  if (change.before === null) {
    return newFile(name, change.after, color, options.all ? Infinity : NEW_FILE_LINES);
  }
  const diff = diffChange(change);
  if (diff === undefined) {
    return {
      text: `${paint(color, "1", name)}: the change is too large to show as a diff (${
        humanSize(new TextEncoder().encode(change.after).length)
      } after it)\n`,
      hidden: 0,
    };
  }
  if (diff.hunks.length === 0) {
    return { text: `${paint(color, "1", name)}: no change to the file's text\n`, hidden: 0 };
  }
  const last = diff.hunks.at(-1)!;
  const width = String(Math.max(last.oldStart + last.oldLines, last.newStart + last.newLines))
    .length;
  const out = [
    `${paint(color, "1", name)}  ${paint(color, "32", `+${diff.added}`)} ${
      paint(color, "31", `-${diff.removed}`)
    }`,
  ];
  let shown = 0;
  let total = 0;
  for (const hunk of diff.hunks) {
    total += hunk.lines.length + 1;
    if (shown >= fold) continue;
    out.push(paint(
      color,
      "36",
      `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    ));
    shown++;
    for (const line of hunk.lines) {
      if (shown >= fold) break;
      out.push(formatLine(line, width, color));
      shown++;
    }
  }
  return { text: `${out.join("\n")}\n`, hidden: total - shown };
}

function formatLine(line: DiffLine, width: number, color: boolean): string {
  const old = line.oldLine === undefined ? "" : String(line.oldLine);
  const now = line.newLine === undefined ? "" : String(line.newLine);
  const numbers = `${old.padStart(width + 2)} ${now.padStart(width + 2)}`;
  const mark = line.kind === "add" ? "+" : line.kind === "remove" ? "-" : " ";
  const text = `${mark} ${shownLine(line.text)}`;
  const code = line.kind === "add" ? "32" : line.kind === "remove" ? "31" : "";
  return `${paint(color, "2", numbers)} ${code ? paint(color, code, text) : text}`;
}

function newFile(name: string, content: string, color: boolean, fold: number): DiffView {
  const lines = content === "" ? [] : content.replace(/\n$/, "").split("\n");
  const size = humanSize(new TextEncoder().encode(content).length);
  const out = [
    `${paint(color, "1", name)}  ${
      paint(color, "32", `new file, ${lines.length} line${lines.length === 1 ? "" : "s"}, ${size}`)
    }`,
  ];
  const width = String(Math.min(lines.length, fold)).length;
  for (const [i, line] of lines.slice(0, fold).entries()) {
    out.push(
      `${paint(color, "2", String(i + 1).padStart(width + 2))} ${
        paint(color, "32", `+ ${shownLine(line)}`)
      }`,
    );
  }
  const hidden = Math.max(0, lines.length - fold);
  return { text: `${out.join("\n")}\n`, hidden };
}
