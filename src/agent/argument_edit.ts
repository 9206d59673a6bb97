// How the arguments the user ran differ from the model's (an edit at the approval prompt): a
// few short values as "was X, ran Y" phrases, anything longer as unified-diff hunks of the
// value's text or pretty JSON. The call driver tells the model with editNote; the terminal
// prompt (src/ui/edit_prompt.ts) shows the same changes.

import type { ToolResult } from "../messages.ts";
import { compactJson } from "../permissions/compact_json.ts";
import type { PlacedStage } from "./call_flight.ts";

/** Longest value (as one-line JSON) shown as a phrase rather than as a diff. */
const SHORT_VALUE = 120;

/** At most this many changed values are told as phrases; more become diffs. */
const SHORT_CHANGES = 3;

/** One changed argument. A value is absent on the side that has no such argument. */
export interface ArgumentChange {
  /** The argument's name (`(arguments)` when the arguments are not an object). */
  key: string;
  before?: unknown;
  after?: unknown;
  /** Unified-diff lines (` `, `-`, `+`, `@@`) when the change is too long for a phrase. */
  diff?: string[];
}

/**
 * The arguments that differ between the model's call and the user's, in the model's order
 * (new ones last). Values longer than a short phrase, strings with newlines, and every value
 * when more than three changed carry a unified diff of their text (strings) or pretty JSON.
 *
 * @param before The model's validated arguments.
 * @param after The user's validated arguments.
 * @returns The changes; empty when the two are equal.
 *
 * @example
 * ```ts
 * import { argumentChanges } from "./argument_edit.ts";
 * const changes = await argumentChanges({ command: "rm -rf build" }, { command: "rm -rf build/tmp" });
 * if (changes.length !== 1 || changes[0]!.diff !== undefined) throw new Error();
 * ```
 */
export async function argumentChanges(before: unknown, after: unknown): Promise<ArgumentChange[]> {
  const a = asRecord(before);
  const b = asRecord(after);
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const changed = keys.filter((key) => canonical(a[key]) !== canonical(b[key]));
  const changes: ArgumentChange[] = changed.map((key) => ({
    key: isRecord(before) && isRecord(after) ? key : "(arguments)",
    ...(a[key] === undefined ? {} : { before: a[key] }),
    ...(b[key] === undefined ? {} : { after: b[key] }),
  }));
  const many = changes.length > SHORT_CHANGES;
  const long = (change: ArgumentChange) =>
    many || !isShort(change.before) || !isShort(change.after);
  if (!changes.some(long)) return changes;
  // The diff module (and npm:diff) loads only for a long change.
  const { structuredPatch } = await import("diff");
  return changes.map((change) => {
    if (!long(change)) return change;
    const old = diffText(change.before);
    const now = diffText(change.after);
    const patch = structuredPatch("model", "user", old, now, undefined, undefined, {
      context: 2,
    });
    const diff = patch.hunks.flatMap((hunk) => [
      `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
      ...hunk.lines.filter((line) => !line.startsWith("\\")),
    ]);
    return { ...change, diff };
  });
}

/**
 * The line the model reads before the result of a call the user changed, so it does not make
 * the original call again: `The user changed this call before running it: command was "rm -rf
 * build", ran "rm -rf build/tmp"`, or per changed argument a unified diff.
 *
 * @param changes What {@link argumentChanges} returned.
 * @returns The note (no trailing newline).
 *
 * @example
 * ```ts
 * import { argumentChanges, editNote } from "./argument_edit.ts";
 * const note = editNote(await argumentChanges({ command: "rm -rf build" }, { command: "rm -rf build/tmp" }));
 * if (note !== 'The user changed this call before running it: command was "rm -rf build", ran "rm -rf build/tmp"') {
 *   throw new Error(note);
 * }
 * ```
 */
export function editNote(changes: readonly ArgumentChange[]): string {
  const head = "The user changed this call before running it";
  if (changes.every((change) => change.diff === undefined)) {
    return `${head}: ${changes.map(changePhrase).join("; ")}`;
  }
  const parts = changes.map((change) =>
    change.diff === undefined
      ? changePhrase(change)
      : [`${change.key} (- yours, + what ran):`, ...change.diff].join("\n")
  );
  return `${head}:\n${parts.join("\n")}`;
}

/**
 * One short change as a phrase: `command was "a", ran "b"`, `cwd added: "src"`, `cwd removed
 * (was "src")`.
 *
 * @example
 * ```ts
 * import { changePhrase } from "./argument_edit.ts";
 * if (changePhrase({ key: "n", before: 1 }) !== "n removed (was 1)") throw new Error();
 * ```
 */
export function changePhrase(change: ArgumentChange): string {
  if (change.before === undefined) return `${change.key} added: ${compactJson(change.after)}`;
  if (change.after === undefined) {
    return `${change.key} removed (was ${compactJson(change.before)})`;
  }
  return `${change.key} was ${compactJson(change.before)}, ran ${compactJson(change.after)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : value === undefined ? {} : { "": value };
}

/** JSON with object keys sorted, so key order is no change. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) =>
      isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => x < y ? -1 : 1)) : v,
  ) ??
    "undefined";
}

function isShort(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value === "string" && /[\r\n]/.test(value)) return false;
  if (typeof value === "object" && value !== null) return false;
  return compactJson(value).length <= SHORT_VALUE;
}

/** What a long value's diff compares: a string's own lines, else its pretty JSON. */
function diffText(value: unknown): string {
  if (value === undefined) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return text.endsWith("\n") ? text : `${text}\n`;
}

/**
 * A result with the edit note before the tool's output (or its error message).
 *
 * @param result What the changed call returned.
 * @param note What {@link editNote} said.
 * @returns The result the model reads.
 *
 * @example
 * ```ts
 * import { withEditNote } from "./argument_edit.ts";
 * import { makeToolResult } from "../messages.ts";
 * const r = withEditNote(makeToolResult({ data: "ok" }), "The user changed this call");
 * if (r.data !== "The user changed this call\n\nok") throw new Error(r.data ?? "");
 * ```
 */
export function withEditNote(result: ToolResult, note: string): ToolResult {
  if (!result.success) {
    return { ...result, error_message: `${note}\n\n${result.error_message ?? ""}`.trim() };
  }
  const data = result.data ? `${note}\n\n${result.data}` : note;
  return {
    ...result,
    data,
    metadata: { ...result.metadata, data_size_bytes: new TextEncoder().encode(data).length },
  };
}

/**
 * The stage after the run of a call the user changed at the prompt: the model reads first
 * that its call was changed, and how, so it does not repeat it. app/ places it after the
 * stages that shape the tool's own output (curator, image gate) and before the hooks'.
 */
export const EDIT_NOTE_STAGE: PlacedStage = {
  name: "edit_note",
  after: "run",
  async run(flight) {
    if (flight.editedFrom === undefined || flight.result === undefined) return undefined;
    const changes = await argumentChanges(flight.editedFrom, flight.args);
    flight.result = withEditNote(flight.result, editNote(changes));
    return undefined;
  },
};
