// Built-in tool read_file: returns numbered lines of a UTF-8 text file in the workspace, or an
// image (PNG, JPEG, GIF, WebP by its first bytes) for a model that can see. Refuses other
// binaries, FIFOs and files over 10 MB, notes a file that is not valid UTF-8, and tells the
// model the exact offset to continue. It reads through ctx.files (the editor's buffers under
// ACP).

import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import { readText } from "../src/tools/builtin/read_text_file.ts";
import { formatBytes, splitLines } from "../src/tools/builtin/text_file.ts";
import { readImageIfAny } from "../src/tools/builtin/read_image.ts";

/** Characters kept of one line; longer lines (minified code) are cut with a marker. */
const MAX_LINE_CHARS = 2000;
/** The harness's default tool output limit, for a context that does not say. */
const DEFAULT_OUTPUT_LIMIT = 30_000;
/** Room kept for the footer that says where to continue. */
const FOOTER_ROOM = 200;

export default defineTool({
  name: "read_file",
  description:
    "Read a UTF-8 text file in the workspace as numbered lines (`N: line`), or look at an image (PNG, JPEG, GIF, WebP). Use offset and limit to page through long files.",
  risk: "medium",
  permissions: { read: ["."] },
  parameters: z.object({
    path: z.string().describe("Workspace-relative path of the file, e.g. src/main.ts."),
    offset: z.number().int().min(1).default(1).describe("First line to read, 1-based."),
    limit: z.number().int().min(1).default(2000).describe("Maximum number of lines to read."),
  }),
  async run({ path, offset, limit }, ctx) {
    const real = ctx.resolve(path);
    const image = await readImageIfAny(ctx.files, real, path);
    if (image) {
      return {
        output: `"${path}" is a ${image.format} image (${formatBytes(image.bytes.length)}), ` +
          "shown to you with this result.",
        display: `Read ${path} (${image.format} image, ${formatBytes(image.bytes.length)})`,
        images: [{ data: image.bytes, name: path }],
      };
    }
    const { text, validUtf8 } = await readText(ctx.files, real, path);
    const { lines } = splitLines(text);
    const total = lines.length;
    if (total === 0) {
      return { output: `"${path}" is empty (0 lines).`, display: `Read ${path} (empty)` };
    }
    if (offset > total) {
      throw new ToolError(
        "validation_failed",
        `offset ${offset} is past the end of "${path}", which has ${total} lines: use an offset from 1 to ${total}`,
      );
    }
    const last = Math.min(total, offset + limit - 1);
    const width = String(last).length;
    const out: string[] = [];
    if (!validUtf8) {
      // First, so no output cap can drop it.
      out.push(
        `[Note: "${path}" is not valid UTF-8; bytes that do not decode are shown as U+FFFD (\ufffd). Edit tools refuse this file: use write_file to replace it whole.]`,
      );
    }
    // Whole lines only, up to what the result may hold: the harness would otherwise cut the
    // middle out (mid-line) and the footer would name lines the model never saw.
    const budget = (ctx.outputLimit ?? DEFAULT_OUTPUT_LIMIT) - FOOTER_ROOM;
    let size = out.reduce((sum, line) => sum + line.length + 1, 0);
    let shown = offset - 1;
    for (let n = offset; n <= last; n++) {
      let line = lines[n - 1] ?? "";
      if (line.length > MAX_LINE_CHARS) {
        line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${
          line.length - MAX_LINE_CHARS
        } more characters]`;
      }
      const numbered = `${String(n).padStart(width)}: ${line}`;
      // The first line always comes, so a call always makes progress.
      if (n > offset && size + numbered.length + 1 > budget) break;
      out.push(numbered);
      size += numbered.length + 1;
      shown = n;
    }
    if (shown < total) {
      const why = shown < last ? " (the output limit)" : "";
      out.push(
        `[Showing lines ${offset}-${shown} of ${total}${why}. ${
          total - shown
        } more lines: call read_file with offset ${shown + 1} to continue.]`,
      );
    }
    return {
      output: out.join("\n"),
      display: `Read ${path} (lines ${offset}-${shown} of ${total})`,
    };
  },
});
