// What a file-changing call would do to its file, as a line diff: the approval prompt shows
// it (src/ui/file_diff_view.ts) and the tools count its lines for their `+N -M`. The texts
// come from the tool's own preview, run in its sandbox (src/sandbox/workers/tool_worker.ts), so the
// diff is of exactly what the call would write. npm:diff (jsdiff) computes the hunks.

import { diffLines, structuredPatch } from "diff";

/** A file's text before and after a call; `before` is null for a file the call creates. */
export interface FileChange {
  /** The path as the call names it. */
  path: string;
  before: string | null;
  after: string;
}

/** What a tool's preview gives: the file it would write and its whole new text. */
export interface FilePreview {
  path: string;
  content: string;
}

/** A preview, or why there is none (the call would fail, the path is refused). */
export type PreviewResult = { change: FileChange } | { error: string };

/** One line of a hunk, with its numbers in the old and the new file. */
export interface DiffLine {
  kind: "context" | "add" | "remove";
  /** Line number in the old file (context and removed lines). */
  oldLine?: number;
  /** Line number in the new file (context and added lines). */
  newLine?: number;
  text: string;
}

/** One hunk of a unified diff. */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

/** A change as hunks, with the lines added and removed. */
export interface FileDiff {
  hunks: DiffHunk[];
  added: number;
  removed: number;
}

/** Edit distance past which the diff is not worth computing (a rewrite of a huge file). */
const MAX_EDIT_LENGTH = 20_000;
/** Milliseconds the diff may take before it gives up. */
const DIFF_TIMEOUT_MS = 500;

/**
 * The unified diff of a change, with 3 lines of context, each line numbered in the file it
 * belongs to. Undefined when the change is too large to diff quickly.
 *
 * @param change The file before and after.
 * @returns The hunks and counts, or undefined.
 *
 * @example
 * ```ts
 * import { diffChange } from "./file_change.ts";
 * const diff = diffChange({ path: "a", before: "one\ntwo\nthree\n", after: "one\n2\nthree\n" });
 * if (!diff || diff.added !== 1 || diff.removed !== 1) throw new Error(JSON.stringify(diff));
 * const removed = diff.hunks[0]?.lines.find((l) => l.kind === "remove");
 * if (removed?.oldLine !== 2 || removed.text !== "two") throw new Error(JSON.stringify(removed));
 * ```
 */
export function diffChange(change: FileChange): FileDiff | undefined {
  const patch = structuredPatch(
    change.path,
    change.path,
    change.before ?? "",
    change.after,
    "",
    "",
    {
      context: 3,
      maxEditLength: MAX_EDIT_LENGTH,
      timeout: DIFF_TIMEOUT_MS,
    },
  );
  if (patch === undefined) return undefined;
  let added = 0;
  let removed = 0;
  const hunks = patch.hunks.map((hunk): DiffHunk => {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    const lines: DiffLine[] = [];
    for (const raw of hunk.lines) {
      const mark = raw[0];
      const text = raw.slice(1);
      // jsdiff's "\ No newline at end of file" marker: the last line's ending, not a line.
      if (mark === "\\") continue;
      if (mark === "+") {
        lines.push({ kind: "add", newLine: newLine++, text });
        added++;
      } else if (mark === "-") {
        lines.push({ kind: "remove", oldLine: oldLine++, text });
        removed++;
      } else {
        lines.push({ kind: "context", oldLine: oldLine++, newLine: newLine++, text });
      }
    }
    return {
      oldStart: hunk.oldStart,
      oldLines: hunk.oldLines,
      newStart: hunk.newStart,
      newLines: hunk.newLines,
      lines,
    };
  });
  return { hunks, added, removed };
}

/**
 * Lines added and removed by a change, for a tool's `+N -M`; a change too large to diff counts
 * every old line removed and every new line added.
 *
 * @example
 * ```ts
 * import { lineCounts } from "./file_change.ts";
 * const counts = lineCounts("a\nb\n", "a\nB\nc\n");
 * if (counts.added !== 2 || counts.removed !== 1) throw new Error(JSON.stringify(counts));
 * ```
 */
export function lineCounts(
  before: string | null,
  after: string,
): { added: number; removed: number } {
  const parts = diffLines(before ?? "", after, {
    maxEditLength: MAX_EDIT_LENGTH,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (parts === undefined) return { added: countLines(after), removed: countLines(before ?? "") };
  let added = 0;
  let removed = 0;
  for (const part of parts) {
    if (part.added) added += part.count;
    else if (part.removed) removed += part.count;
  }
  return { added, removed };
}

/**
 * `+N -M` for a tool's display line.
 *
 * @example
 * ```ts
 * import { formatLineCounts } from "./file_change.ts";
 * if (formatLineCounts({ added: 3, removed: 0 }) !== "+3 -0") throw new Error();
 * ```
 */
export function formatLineCounts(counts: { added: number; removed: number }): string {
  return `+${counts.added} -${counts.removed}`;
}

function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}
