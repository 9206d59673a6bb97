// Built-in tool replace_lines: replaces an inclusive, 1-based range of lines in a workspace
// file and shows a short diff-style preview. Keeps the file's line endings.

import { z } from "zod";
import { defineTool, type ToolContext } from "../src/tools/define_tool.ts";
import { formatLineCounts, lineCounts } from "../src/tools/file_change.ts";
import {
  checkLineRange,
  contentLines,
  hardLinkNote,
  joinLines,
  splitLines,
  toFileToolError,
} from "../src/tools/builtin/text_file.ts";
import { readEditableText, withBom } from "../src/tools/builtin/read_text_file.ts";

/** Lines of each side shown in the preview before it is cut. */
const PREVIEW_LINES = 12;

function side(prefix: string, lines: string[]): string[] {
  const shown = lines.slice(0, PREVIEW_LINES).map((line) => `${prefix}${line}`);
  if (lines.length > PREVIEW_LINES) {
    shown.push(`${prefix}... (${lines.length - PREVIEW_LINES} more lines)`);
  }
  return shown;
}

interface ReplaceArgs {
  path: string;
  line_start: number;
  line_end: number;
  new_content: string;
}

/** Reads the file and replaces the lines in memory (the write is the caller's). */
async function planReplace(
  { path, line_start, line_end, new_content }: ReplaceArgs,
  ctx: ToolContext,
) {
  const abs = ctx.resolve(path);
  const content = await readEditableText(ctx.files, abs, path);
  const file = splitLines(content.text);
  const total = file.lines.length;
  checkLineRange({
    lineStart: line_start,
    lineEnd: line_end,
    maxStart: total,
    maxEnd: total,
    path,
  });
  const added = contentLines(new_content);
  const removed = file.lines.splice(line_start - 1, line_end - line_start + 1, ...added);
  if (file.lines.length === 0) file.finalNewline = false;
  return { abs, content, file, added, removed };
}

export default defineTool({
  name: "replace_lines",
  description:
    "Replace lines line_start..line_end (inclusive, 1-based) of a workspace file with new_content. An empty new_content deletes the lines.",
  risk: "high",
  permissions: { read: ["."], write: ["."] },
  parameters: z.object({
    path: z.string().describe("Workspace-relative path of the file to edit."),
    line_start: z.number().int().describe("First line to replace, 1-based."),
    line_end: z.number().int().describe("Last line to replace, inclusive; at least line_start."),
    new_content: z.string().describe("Text that replaces those lines; empty deletes them."),
  }),
  async preview(args, ctx) {
    const plan = await planReplace(args, ctx);
    return { path: args.path, content: joinLines(plan.file) };
  },
  async run(args, ctx) {
    const { path, line_start, line_end } = args;
    const { abs, content, file, added, removed } = await planReplace(args, ctx);
    let links: number;
    try {
      const text = withBom({ text: joinLines(file), bom: content.bom });
      links = (await ctx.files.write(abs, text, path)).links;
    } catch (error) {
      throw toFileToolError(error, path);
    }
    const preview = [
      `@@ -${line_start},${removed.length} +${line_start},${added.length} @@`,
      ...side("-", removed),
      ...side("+", added),
    ];
    return {
      output:
        `Replaced lines ${line_start}-${line_end} of "${path}" (${removed.length} lines -> ${added.length} lines); the file now has ${file.lines.length} lines.${
          hardLinkNote(links)
        }\n${preview.join("\n")}`,
      display: `Replaced lines ${line_start}-${line_end} of ${path} ${
        formatLineCounts(lineCounts(content.text, joinLines(file)))
      }`,
    };
  },
});
