// The approval prompt's "Edit" answer (prompter.ts): the user changes the call's arguments,
// on the line for one short argument or in their editor for the rest, and sees the changed
// call checked (the tool's schema, the policy rules) and its changes before they allow it
// once or deny it. A failed check keeps the user's text and offers to edit again.

import { type ArgumentChange, argumentChanges } from "../agent/argument_edit.ts";
import { compactJson } from "../permissions/compact_json.ts";
import type { KeyIO, PromptAnswer, PromptRequest } from "../permissions/prompt_types.ts";
import { terminalLine } from "../platform/terminal_text.ts";
import { denyAnswer, readAnswerKey } from "./answer_key.ts";
import { argsSummary } from "./args_summary.ts";
import { argumentsFileText, parseArgumentsFile } from "./arguments_file.ts";
import { editInEditor } from "./external_editor.ts";
import { paint, riskLabel } from "./prompt_paint.ts";
import type * as FileDiffView from "./file_diff_view.ts";

/** The longest value edited on the line; longer ones open in the editor. */
export const INLINE_MAX = 200;

/** Diff lines shown of a changed argument before the rest is summed up. */
const SHOWN_DIFF_LINES = 60;

/** Opens the arguments file in the user's editor: the saved text, or undefined. */
export type ArgumentsEditor = (text: string, io: KeyIO) => Promise<string | undefined>;

/**
 * The user's editor ($VISUAL, $EDITOR, vi) on the terminal, which the prompt gives up while
 * it runs; with piped input the editor gets no input of its own.
 */
export const userEditor: ArgumentsEditor = (text, io) => {
  const warn = (line: string) => io.write(`${line}\n`);
  if (!io.releaseTerminal) return editInEditor(text, { suffix: ".jsonc", terminal: false, warn });
  return io.releaseTerminal(() => editInEditor(text, { suffix: ".jsonc", warn }));
};

/**
 * The argument edited on the line: the one argument the model sent, when it is a string of at
 * most {@link INLINE_MAX} printable characters (no control, bidi or invisible character, which
 * the line would obey rather than show). Undefined: the editor opens.
 *
 * @param request The prompt's request.
 * @returns The argument's name.
 *
 * @example
 * ```ts
 * import { inlineArgument } from "./edit_prompt.ts";
 * const check = () => Promise.resolve({ ok: true as const, value: {} });
 * const request = (command: string) => ({
 *   tool: "run_command", risk: "high" as const, alwaysFile: "p",
 *   args: { command, cwd: "." }, edit: { sent: { command }, check },
 * });
 * if (inlineArgument(request("rm -rf build")) !== "command") throw new Error();
 * if (inlineArgument(request("ls\rrm -rf /")) !== undefined) throw new Error();
 * ```
 */
export function inlineArgument(request: PromptRequest): string | undefined {
  const sent = request.edit?.sent;
  if (typeof sent !== "object" || sent === null || Array.isArray(sent)) return undefined;
  const entries = Object.entries(sent);
  if (entries.length !== 1) return undefined;
  const [key, value] = entries[0]!;
  if (typeof value !== "string" || value.length > INLINE_MAX || terminalLine(value) !== value) {
    return undefined;
  }
  const args = request.args as Record<string, unknown> | null;
  return args?.[key] === value ? key : undefined;
}

/** Where an edit ended: an answer for the approver, or back to the model's call. */
export type EditOutcome = PromptAnswer | { kind: "back" };

/**
 * Runs the "Edit" answer for one call until the user allows the changed call (`edit`), denies
 * it, goes back to the model's call, or stops the turn (Ctrl-C).
 *
 * @param request The prompt's request (it has `edit`).
 * @param options `io`, `color`, and `editor` (the user's editor by default).
 * @param signal Aborting stops the turn.
 * @returns The outcome.
 */
export async function editCall(
  request: PromptRequest,
  options: { io: KeyIO; color: boolean; editor?: ArgumentsEditor },
  signal?: AbortSignal,
): Promise<EditOutcome> {
  const { io, color } = options;
  const editing = request.edit;
  if (!editing) return { kind: "back" };
  const inline = inlineArgument(request);
  const base = request.args as Record<string, unknown>;
  // What the user wrote last: an edit again starts from it, not from the model's version.
  let draft = inline === undefined
    ? argumentsFileText(request.tool, request.args)
    : String(base[inline]);
  for (;;) {
    let args: unknown;
    if (inline !== undefined) {
      io.write(`Change ${inline}, then press Enter (an empty line goes back):\n`);
      const line = await io.readLine(`${inline}: `, draft);
      if (line === null) return { kind: "abort" };
      if (line.trim() === "") return back(io, "Edit cancelled");
      draft = line;
      args = { ...base, [inline]: line };
    } else {
      const saved = await (options.editor ?? userEditor)(draft, io);
      if (saved === undefined) return back(io, "Edit cancelled");
      const read = parseArgumentsFile(saved);
      if ("empty" in read) return back(io, "Edit cancelled: the file was empty");
      draft = saved;
      if ("error" in read) {
        const again = await editAgain(io, `The changed arguments are ${read.error}`, signal);
        if (again === "again") continue;
        return again;
      }
      args = read.value;
    }
    const checked = await editing.check(args);
    if (!checked.ok) {
      const why = checked.problem === "denied"
        ? `A policy rule denies the changed call: ${checked.message}`
        : `The changed arguments do not fit ${request.tool}'s schema: ${checked.message}`;
      const again = await editAgain(io, terminalLine(why), signal);
      if (again === "again") continue;
      return again;
    }
    const changes = await argumentChanges(request.args, checked.value);
    if (changes.length === 0) return back(io, "No change");
    // A file-changing tool shows the changed call's diff, worked out in its sandbox as the
    // model's call's was (the diff module loads with it).
    const value = checked.value;
    const fileDiff = editing.preview
      ? await (await import("./file_diff_view.ts") as typeof FileDiffView).promptDiff(
        () => editing.preview!(value),
        color,
      )
      : undefined;
    const shown = formatChangedCall(request, { args: value, changes }, {
      color,
      ...(fileDiff ? { diff: fileDiff.text } : {}),
    });
    io.write(shown);
    const whole = fileDiff?.whole;
    const answer = await confirmChanged(
      io,
      signal,
      whole && (() => `\n${whole()}${lastLine(shown)}`),
    );
    if (answer !== "again") {
      return answer.kind === "edit" ? { kind: "edit", args: checked.value } : answer;
    }
  }
}

/**
 * The changed call as the prompt shows it before the user allows it: the request line with
 * the changed arguments, then each change (`~ command: "a" → "b"`, `+ cwd: "src"`, or a diff),
 * then what a file-changing tool would change with them (`diff`, from the file diff view).
 *
 * @example
 * ```ts
 * import { formatChangedCall } from "./edit_prompt.ts";
 * const text = formatChangedCall(
 *   { tool: "run_command", args: { command: "a" }, risk: "high", alwaysFile: "p" },
 *   { args: { command: "b" }, changes: [{ key: "command", before: "a", after: "b" }] },
 *   { color: false },
 * );
 * if (!text.includes('  ~ command: "a" → "b"\n')) throw new Error(text);
 * ```
 */
export function formatChangedCall(
  request: PromptRequest,
  changed: { args: unknown; changes: readonly ArgumentChange[] },
  options: { color: boolean; diff?: string },
): string {
  const { args, changes } = changed;
  const { color } = options;
  const lines = [
    `${paint(color, "1", "Changed call")}  ${paint(color, "1", terminalLine(request.tool))}  ${
      argsSummary(args)
    }  risk: ${riskLabel(request.risk, color)}`,
    "Your changes to the model's call:",
  ];
  for (const change of changes) {
    const key = terminalLine(change.key);
    if (change.diff === undefined) {
      lines.push(
        change.before === undefined
          ? paint(color, "32", `  + ${key}: ${compactJson(change.after)}`)
          : change.after === undefined
          ? paint(color, "31", `  - ${key}: ${compactJson(change.before)}`)
          : `  ~ ${key}: ${compactJson(change.before)} → ${compactJson(change.after)}`,
      );
      continue;
    }
    lines.push(`  ~ ${key}:`);
    for (const line of change.diff.slice(0, SHOWN_DIFF_LINES)) {
      const code = line.startsWith("+")
        ? "32"
        : line.startsWith("-")
        ? "31"
        : line.startsWith("@")
        ? "36"
        : "";
      const text = `    ${terminalLine(line)}`;
      lines.push(code ? paint(color, code, text) : text);
    }
    const more = change.diff.length - SHOWN_DIFF_LINES;
    if (more > 0) lines.push(`    … ${more} more lines`);
  }
  if (options.diff !== undefined) lines.push(options.diff.replace(/\n$/, ""));
  lines.push(
    "[1] Allow the changed call once  [4] Deny  [5] Edit again  [0] Back to the model's call",
  );
  return `${lines.join("\n")}\n`;
}

/** After the changed call is shown: allow it, deny, edit again or go back. */
async function confirmChanged(
  io: KeyIO,
  signal: AbortSignal | undefined,
  whole?: () => string,
): Promise<{ kind: "edit" } | EditOutcome | "again"> {
  for (;;) {
    const key = await readAnswerKey(io, signal);
    if (key === null) return { kind: "abort" };
    if (key === "v" && whole) {
      io.write(whole());
      continue;
    }
    switch (key.toLowerCase()) {
      case "1":
        io.write("Allowed the changed call once\n");
        return { kind: "edit" };
      case "4":
        return await denyAnswer(io);
      case "5":
      case "e":
        return "again";
      case "0":
        io.write("Back to the model's call\n");
        return { kind: "back" };
      default:
        io.write(
          `${
            JSON.stringify(key)
          } is not an answer: press 1, 4, 5 or 0 (Ctrl-C denies and stops the turn)\n`,
        );
    }
  }
}

/** After a failed check: say why, then edit again (keeping the user's text) or go back. */
async function editAgain(
  io: KeyIO,
  why: string,
  signal: AbortSignal | undefined,
): Promise<EditOutcome | "again"> {
  io.write(`${why}\n[5] Edit again  [0] Back to the model's call\n`);
  for (;;) {
    const key = await readAnswerKey(io, signal);
    if (key === null) return { kind: "abort" };
    if (key === "5" || key.toLowerCase() === "e") return "again";
    if (key === "0") {
      io.write("Back to the model's call\n");
      return { kind: "back" };
    }
    io.write(`${JSON.stringify(key)} is not an answer: press 5 or 0\n`);
  }
}

/** The last line of a prompt's text (its choices), to show again under a long view. */
function lastLine(text: string): string {
  return text.slice(text.lastIndexOf("\n", text.length - 2) + 1);
}

function back(io: KeyIO, why: string): { kind: "back" } {
  io.write(`${why}: back to the model's call\n`);
  return { kind: "back" };
}
