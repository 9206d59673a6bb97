// Built-in tool insert_lines: inserts text before a 1-based line of a workspace file
// (line count + 1 appends) and shows the insertion point with context lines.

import { z } from "zod";
import { defineTool, type ToolContext, ToolError } from "../src/tools/define_tool.ts";
import {
  checkLineRange,
  contentLines,
  hardLinkNote,
  joinLines,
  splitLines,
  toFileToolError,
} from "../src/tools/builtin/text_file.ts";
import { readEditableText, withBom } from "../src/tools/builtin/read_text_file.ts";

/** Context lines shown before and after the inserted block. */
const CONTEXT_LINES = 3;
/** Inserted lines shown before the preview is cut. */
const PREVIEW_LINES = 12;

interface InsertArgs {
  path: string;
  line_start: number;
  line_end?: number | undefined;
  new_content: string;
}

/** Reads the file and inserts the lines in memory (the write is the caller's). */
async function planInsert(
  { path, line_start, line_end, new_content }: InsertArgs,
  ctx: ToolContext,
) {
  const abs = ctx.resolve(path);
  const content = await readEditableText(ctx.files, abs, path);
  const file = splitLines(content.text);
  const total = file.lines.length;
  if (line_end !== undefined && line_end !== line_start) {
    throw new ToolError(
      "validation_failed",
      `line_end ${line_end} must equal line_start ${line_start} for an insertion (use replace_lines to change a range); valid line_start values are 1-${
        total + 1
      }`,
    );
  }
  const added = contentLines(new_content);
  if (added.length === 0) {
    throw new ToolError("validation_failed", "new_content is empty: nothing to insert");
  }
  checkLineRange({
    lineStart: line_start,
    lineEnd: line_start,
    maxStart: total + 1,
    maxEnd: total + 1,
    path,
  });
  if (total === 0) file.finalNewline = true;
  file.lines.splice(line_start - 1, 0, ...added);
  return { abs, content, file, added, total };
}

export default defineTool({
  name: "insert_lines",
  description:
    "Insert new_content before line line_start of a workspace file (1-based). Use the line count + 1 to append at the end.",
  risk: "high",
  permissions: { read: ["."], write: ["."] },
  parameters: z.object({
    path: z.string().describe("Workspace-relative path of the file to edit."),
    line_start: z.number().int().describe(
      "Insert before this line, 1-based; the file's line count + 1 appends.",
    ),
    line_end: z.number().int().optional().describe("Must equal line_start when given."),
    new_content: z.string().describe("Text to insert; it becomes whole lines."),
  }),
  async preview(args, ctx) {
    return { path: args.path, content: joinLines((await planInsert(args, ctx)).file) };
  },
  async run(args, ctx) {
    const { path, line_start } = args;
    const { abs, content, file, added, total } = await planInsert(args, ctx);
    let links: number;
    try {
      const text = withBom({ text: joinLines(file), bom: content.bom });
      links = (await ctx.files.write(abs, text, path)).links;
    } catch (error) {
      throw toFileToolError(error, path);
    }
    const lastInserted = line_start + added.length - 1;
    const from = Math.max(1, line_start - CONTEXT_LINES);
    const to = Math.min(file.lines.length, lastInserted + CONTEXT_LINES);
    const width = String(to).length;
    const preview: string[] = [];
    for (let n = from; n <= to; n++) {
      const inserted = n >= line_start && n <= lastInserted;
      if (inserted && n - line_start === PREVIEW_LINES) {
        preview.push(`+ ... (${lastInserted - n + 1} more inserted lines)`);
        n = lastInserted;
        continue;
      }
      preview.push(
        `${inserted ? "+" : " "} ${String(n).padStart(width)}: ${file.lines[n - 1] ?? ""}`,
      );
    }
    const where = line_start === total + 1 ? "at the end" : `before line ${line_start}`;
    return {
      output:
        `Inserted ${added.length} lines ${where} of "${path}" (now lines ${line_start}-${lastInserted}; the file has ${file.lines.length} lines).${
          hardLinkNote(links)
        }\n${preview.join("\n")}`,
      display:
        `Inserted ${added.length} lines into ${path} at line ${line_start} +${added.length} -0`,
    };
  },
});
