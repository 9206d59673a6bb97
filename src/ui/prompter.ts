// The interactive permission prompt: prints the request, reads one key (no Enter) and returns
// the user's answer. All terminal I/O goes through an injected KeyIO (the REPL's turn input,
// scripted keys in tests); this module never touches Deno.stdin. The policy approver
// (permissions/policy_approver.ts) asks through it when the policy says "ask".

import { compactJson } from "../permissions/compact_json.ts";
import { argsSummary, summaryIsWhole } from "./args_summary.ts";
import { denyAnswer, readAnswerKey } from "./answer_key.ts";
import { askBatch } from "./batch_prompt.ts";
import { type ArgumentsEditor, editCall } from "./edit_prompt.ts";
import type { KeyIO, Prompter, PromptRequest } from "../permissions/prompt_types.ts";
import { paint, riskLabel } from "./prompt_paint.ts";
import { terminalLine } from "../platform/terminal_text.ts";
import type * as FileDiffView from "./file_diff_view.ts";

/**
 * Formats the prompt's lines: the request line
 * (`Permission request  read_file  {"path": "README.md"}  risk: MEDIUM`), a warning line for
 * high risk, the rule "Always" would save, and the choices.
 *
 * @param request What to show.
 * @param options `color`: ANSI colours (the caller handles NO_COLOR).
 * @returns The text, ending in a newline.
 *
 * @example
 * ```ts
 * import { formatPermissionPrompt } from "./prompter.ts";
 * const text = formatPermissionPrompt(
 *   { tool: "read_file", args: { path: "README.md" }, risk: "medium", alwaysFile: "p.jsonc" },
 *   { color: false },
 * );
 * if (!text.startsWith('Permission request  read_file  {"path": "README.md"}  risk: MEDIUM\n')) {
 *   throw new Error(text);
 * }
 * ```
 */
export function formatPermissionPrompt(
  request: PromptRequest,
  options: { color: boolean; note?: string | undefined; diff?: string | undefined },
): string {
  const { color } = options;
  const riskText = riskLabel(request.risk, color);
  const lines = [
    // A subagent's call names the subagent first: its parent's prompt asks for it.
    ...(request.asker ? [paint(color, "1;36", `${terminalLine(request.asker.label)} asks:`)] : []),
    `${paint(color, "1", "Permission request")}  ${
      paint(color, "1", terminalLine(request.tool))
    }  ${argsSummary(request.args)}  risk: ${riskText}`,
  ];
  if (request.risk === "high") {
    lines.push(
      paint(color, "1;31", "⚠ HIGH RISK: this call can change files or run programs; check it"),
    );
  }
  // A file change shows as its diff, worked out from the same arguments in the tool's sandbox.
  if (options.diff !== undefined) lines.push(options.diff.replace(/\n$/, ""));
  // The first line cuts long arguments; what is approved is shown whole below it, one
  // argument per line, as JSON (so control characters show escaped, never raw). A model
  // cannot push the part that matters past the cut. A diff already shows what changes.
  else if (!summaryIsWhole(request.args)) {
    lines.push("Arguments in full:");
    const args = request.args !== null && typeof request.args === "object" &&
        !Array.isArray(request.args)
      ? Object.entries(request.args).filter(([, value]) => value !== undefined)
      : [["(value)", request.args] as const];
    for (const [key, value] of args) lines.push(`  ${compactJson(key)}: ${compactJson(value)}`);
  }
  // What confines the call beyond the permission flags, e.g. whether a command is sandboxed.
  if (options.note) lines.push(paint(color, "2", options.note));
  lines.push(
    request.alwaysRule
      ? paint(
        color,
        "2",
        `[3] saves ${compactJson(request.alwaysRule)} to ${request.alwaysFile}`,
      )
      : paint(color, "2", "[3] is not available: no rule can match this call exactly"),
  );
  lines.push(
    `[1] Allow once  [2] Allow for this session  [3] Always allow  [4] Deny${
      request.edit ? "  [5] Edit" : ""
    }`,
  );
  return `${lines.join("\n")}\n`;
}

/**
 * Creates the prompter. One key answers: `1` allow once, `2` allow for this session, `3`
 * always allow, `4` deny (then an optional one-line reason for the model), `5` edit (when the
 * request offers it: change the arguments, then allow the changed call once or deny it;
 * edit_prompt.ts), Ctrl-C (or end of input) denies and aborts the turn. Any other key re-asks.
 * `askMany` asks about several calls at once (batch_prompt.ts).
 *
 * @param options `io`: the terminal seam; `color`: ANSI colours; `toolNote`: a line to show
 *   under a tool's requests (run_command: whether commands run confined); `editor`: opens the
 *   arguments file (tests).
 * @returns A Prompter.
 *
 * @example
 * ```ts
 * import { createPrompter } from "./prompter.ts";
 * const keys = ["x", "2"];
 * const prompter = createPrompter({
 *   io: { readKey: () => Promise.resolve(keys.shift() ?? ""), readLine: () => Promise.resolve(null), write: () => {} },
 *   color: false,
 * });
 * const answer = await prompter.ask({ tool: "t", args: {}, risk: "low", alwaysFile: "p" });
 * if (answer.kind !== "session") throw new Error();
 * ```
 */
export function createPrompter(
  options: {
    io: KeyIO;
    color: boolean;
    toolNote?: (tool: string) => string | undefined;
    /** Opens the arguments file for "Edit" (default: the user's $VISUAL, $EDITOR or vi). */
    editor?: ArgumentsEditor;
  },
): Prompter {
  const { io, color } = options;
  const note = options.toolNote;
  const editorOption = options.editor ? { editor: options.editor } : {};
  /** Writes the prompt (with a file change's diff); returns them for the `v` key. */
  const show = async (request: PromptRequest) => {
    // The diff module (and npm:diff) loads with the first file change asked about.
    const diff = request.preview
      ? await (await import("./file_diff_view.ts") as typeof FileDiffView).promptDiff(
        request.preview,
        color,
      )
      : undefined;
    const prompt = formatPermissionPrompt(request, {
      color,
      note: options.toolNote?.(request.tool),
      diff: diff?.text,
    });
    io.write(prompt);
    return { diff, prompt };
  };
  return {
    askMany(requests, signal) {
      return askBatch(requests, { io, color, ...(note ? { note } : {}) }, signal);
    },
    async ask(request, signal) {
      let { diff, prompt } = await show(request);
      for (;;) {
        const key = await readAnswerKey(io, signal);
        if (key === null) return { kind: "abort" };
        if (key === "v" && diff?.whole) {
          // The whole change, then the choices again (its last line) under it.
          io.write(
            `\n${diff.whole()}${prompt.slice(prompt.lastIndexOf("\n", prompt.length - 2) + 1)}`,
          );
          continue;
        }
        switch (key) {
          case "1":
            io.write("Allowed once\n");
            return { kind: "once" };
          case "2":
            io.write("Allowed for this session\n");
            return { kind: "session" };
          case "3":
            if (!request.alwaysRule) {
              io.write("3 is not available for this call: press 1, 2 or 4\n");
              continue;
            }
            io.write(`Always allow: saving the rule to ${request.alwaysFile}\n`);
            return { kind: "always" };
          case "4":
            return await denyAnswer(io);
          case "5":
          case "e": {
            if (!request.edit) {
              io.write(`${key} is not available for this call: press 1, 2, 3 or 4\n`);
              continue;
            }
            const edited = await editCall(request, { io, color, ...editorOption }, signal);
            if (edited.kind !== "back") return edited;
            ({ diff, prompt } = await show(request));
            continue;
          }
          default:
            io.write(
              `${JSON.stringify(key)} is not an answer: press 1, 2, 3, 4${
                request.edit ? " or 5" : ""
              } (Ctrl-C denies and stops the turn)\n`,
            );
        }
      }
    },
  };
}
