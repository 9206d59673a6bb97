// Built-in tool write_file: creates or overwrites a file in the workspace with the given
// content, creating parent folders and writing atomically (temp file + rename). The approval
// prompt shows the new content against the file as it is (preview). It reads and writes through
// ctx.files (the editor's buffers under ACP).

import { z } from "zod";
import { defineTool } from "../src/tools/define_tool.ts";
import { hardLinkNote, toFileToolError } from "../src/tools/builtin/text_file.ts";
import { readText } from "../src/tools/builtin/read_text_file.ts";
import type { FilePort, FileWrite } from "../src/tools/file_port.ts";
import { formatLineCounts, lineCounts } from "../src/tools/file_change.ts";

/** The file's text before the write, for the line counts; null when absent or not text. */
async function previousText(files: FilePort, abs: string, path: string): Promise<string | null> {
  try {
    return (await readText(files, abs, path)).text;
  } catch {
    return null;
  }
}

export default defineTool({
  name: "write_file",
  description:
    "Create or overwrite a file in the workspace with the given content. Parent folders are created.",
  risk: "high",
  permissions: { read: ["."], write: ["."] },
  parameters: z.object({
    path: z.string().describe("Workspace-relative path of the file to write, e.g. src/app.ts."),
    content: z.string().describe("The complete new content of the file."),
  }),
  preview: ({ path, content }) => ({ path, content }),
  async run({ path, content }, ctx) {
    const abs = ctx.resolve(path);
    const before = await previousText(ctx.files, abs, path);
    let result: FileWrite;
    try {
      result = await ctx.files.write(abs, content, path);
    } catch (error) {
      throw toFileToolError(error, path);
    }
    const verb = result.existed ? "Overwrote" : "Created";
    return {
      output: `${verb} "${path}": wrote ${result.bytes} bytes.${hardLinkNote(result.links)}`,
      display: `${verb} ${path} (${result.bytes} bytes) ${
        formatLineCounts(lineCounts(before, content))
      }`,
    };
  },
});
