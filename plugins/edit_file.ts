// Built-in tool edit_file: exact-text replacement in a workspace file. The old text must
// occur exactly once unless replace_all is set; the model is told how many occurrences
// there were and on which lines. Text not found exactly is looked for again with indentation
// and line-end spaces ignored (src/tools/builtin/loose_edit.ts): a unique match is replaced,
// else the model is shown the closest lines and how to use replace_lines. The approval prompt
// shows the diff of the same plan (preview). It reads and writes through ctx.files (the
// editor's buffers under ACP).

import { z } from "zod";
import { defineTool, type ToolContext, ToolError } from "../src/tools/define_tool.ts";
import { readEditableText, withBom } from "../src/tools/builtin/read_text_file.ts";
import { hardLinkNote, toFileToolError } from "../src/tools/builtin/text_file.ts";
import { looseEdit, type LooseEditResult } from "../src/tools/builtin/loose_edit.ts";
import { formatLineCounts, lineCounts } from "../src/tools/file_change.ts";

/** Start indexes of the non-overlapping occurrences of `needle` in `text`. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

/** 1-based line number of a character index. */
function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < index; at = text.indexOf("\n", at + 1)) {
    line++;
  }
  return line;
}

function listLines(text: string, indexes: number[]): string {
  return listNumbers(indexes.map((i) => lineOf(text, i)));
}

function listNumbers(lines: number[]): string {
  return lines.slice(0, 10).join(", ") + (lines.length > 10 ? ", ..." : "");
}

/** Writes the edited text through the tool's file port; returns the file's hard-link count. */
async function writeText(
  ctx: ToolContext,
  target: { abs: string; path: string },
  content: { text: string; bom: boolean },
): Promise<number> {
  try {
    return (await ctx.files.write(target.abs, withBom(content), target.path)).links;
  } catch (error) {
    throw toFileToolError(error, target.path);
  }
}

/** Lines shown of the closest region, and characters of each. */
const SHOWN_LINES = 30;
const SHOWN_CHARS = 300;

/** Why old_string was not found, with what the loose look found and the next call to make. */
function notFound(path: string, text: string, loose: LooseEditResult): ToolError {
  const exactly = "read the file again with read_file and copy the text exactly, including " +
    "whitespace and indentation";
  if (loose.kind === "ambiguous") {
    return new ToolError(
      "validation_failed",
      `old_string was not found exactly in "${path}"; with indentation ignored it matches ${loose.lines.length} places (lines ${
        listNumbers(loose.lines)
      }): ${exactly}, with enough surrounding lines to make it unique`,
    );
  }
  if (loose.kind !== "closest") {
    return new ToolError("validation_failed", `old_string was not found in "${path}": ${exactly}`);
  }
  const { firstLine, lastLine } = loose;
  const lines = text.split(/\r?\n/).slice(firstLine - 1, lastLine);
  const width = String(lastLine).length;
  const shown = lines.slice(0, SHOWN_LINES).map((line, i) => {
    const cut = line.length > SHOWN_CHARS ? `${line.slice(0, SHOWN_CHARS)}…` : line;
    return `${String(firstLine + i).padStart(width)}: ${cut}`;
  });
  if (lines.length > SHOWN_LINES) shown.push(`[${lines.length - SHOWN_LINES} more lines]`);
  const range = firstLine === lastLine ? `line ${firstLine}` : `lines ${firstLine}-${lastLine}`;
  return new ToolError(
    "validation_failed",
    `old_string was not found in "${path}", not even with indentation and spaces at line ends ignored. The closest text is ${range} (${
      Math.round(loose.similarity * 100)
    }% alike):\n${
      shown.join("\n")
    }\nCopy old_string exactly from these lines (without the line numbers), or replace them with replace_lines: {"path": ${
      JSON.stringify(path)
    }, "line_start": ${firstLine}, "line_end": ${lastLine}, "new_content": "..."}`,
  );
}

interface EditArgs {
  path: string;
  old_string: string;
  new_string: string;
  replace_all: boolean;
}

/** What an edit would write: the file's text before and after, and how old_string matched. */
interface EditPlan {
  abs: string;
  bom: boolean;
  before: string;
  after: string;
  /** Where old_string was found exactly; empty when it matched only loosely. */
  found: number[];
  /** The lines of a loose match. */
  loose?: { firstLine: number; lastLine: number };
}

/** Reads the file and works out the edit, or throws the ToolError the model gets. */
async function planEdit(args: EditArgs, ctx: ToolContext): Promise<EditPlan> {
  const { path, old_string, new_string, replace_all } = args;
  if (old_string === "") {
    throw new ToolError(
      "validation_failed",
      "old_string is empty: give the exact text to replace (use write_file to create a file)",
    );
  }
  if (old_string === new_string) {
    throw new ToolError(
      "validation_failed",
      "old_string and new_string are identical: nothing to change",
    );
  }
  const abs = ctx.resolve(path);
  const { text, bom } = await readEditableText(ctx.files, abs, path);
  let oldText = old_string;
  let newText = new_string;
  let found = occurrences(text, oldText);
  // Models usually send "\n"; match a CRLF file anyway and keep its line endings.
  if (found.length === 0 && text.includes("\r\n") && oldText.includes("\n")) {
    oldText = oldText.replace(/\r?\n/g, "\r\n");
    newText = newText.replace(/\r?\n/g, "\r\n");
    found = occurrences(text, oldText);
  }
  if (found.length === 0) {
    const loose = looseEdit(text, old_string, new_string);
    if (loose.kind !== "replaced") throw notFound(path, text, loose);
    const { firstLine, lastLine } = loose;
    return { abs, bom, before: text, after: loose.text, found, loose: { firstLine, lastLine } };
  }
  if (found.length > 1 && !replace_all) {
    throw new ToolError(
      "validation_failed",
      `old_string occurs ${found.length} times in "${path}" (lines ${
        listLines(text, found)
      }): include more surrounding lines to make it unique, or set replace_all to true`,
    );
  }
  return { abs, bom, before: text, after: text.split(oldText).join(newText), found };
}

export default defineTool({
  name: "edit_file",
  description:
    "Replace exact text in a workspace file. old_string must match the file exactly (whitespace included) and be unique unless replace_all is true.",
  risk: "high",
  permissions: { read: ["."], write: ["."] },
  parameters: z.object({
    path: z.string().describe("Workspace-relative path of the file to edit."),
    old_string: z.string().describe(
      "The exact text to replace, copied from the file including indentation.",
    ),
    new_string: z.string().describe("The text to put in its place."),
    replace_all: z.boolean().default(false).describe(
      "Replace every occurrence instead of requiring exactly one.",
    ),
  }),
  async preview(args, ctx) {
    return { path: args.path, content: (await planEdit(args, ctx)).after };
  },
  async run(args, ctx) {
    const { path } = args;
    const plan = await planEdit(args, ctx);
    const links = await writeText(ctx, { abs: plan.abs, path }, {
      text: plan.after,
      bom: plan.bom,
    });
    const counts = formatLineCounts(lineCounts(plan.before, plan.after));
    if (plan.loose) {
      const { firstLine, lastLine } = plan.loose;
      const range = firstLine === lastLine ? `line ${firstLine}` : `lines ${firstLine}-${lastLine}`;
      return {
        output:
          `Replaced 1 occurrence in "${path}" (${range}). old_string matched only with indentation and spaces at line ends ignored, so new_string was given the file's indentation: read those lines again before editing them next.${
            hardLinkNote(links)
          }`,
        display: `Edited ${path} (1 occurrence, indentation adjusted) ${counts}`,
      };
    }
    const count = plan.found.length;
    const noun = count === 1 ? "occurrence" : "occurrences";
    return {
      output: `Replaced ${count} ${noun} in "${path}" (line${count === 1 ? "" : "s"} ${
        listLines(plan.before, plan.found)
      }).${hardLinkNote(links)}`,
      display: `Edited ${path} (${count} ${noun}) ${counts}`,
    };
  },
});
