// Built-in tool get_file_tree: an indented tree of the files and folders under a workspace
// folder, honouring .gitignore (nested files too) and skipping VCS folders and, unless
// asked, hidden names.

import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import { deniedNote } from "../src/tools/search/denied_note.ts";
import { walkTree } from "../src/tools/search/walk_tree.ts";
import { workspaceRelative } from "../src/tools/workspace_path.ts";

/** Entries shown before the tree is cut. */
const MAX_ENTRIES = 5000;

export default defineTool({
  name: "get_file_tree",
  description:
    "Show the tree of files and folders under a workspace folder, skipping .gitignored files, VCS folders and (by default) hidden names.",
  risk: "safe",
  permissions: { read: ["."] },
  parameters: z.object({
    path: z.string().default(".").describe("Workspace-relative folder to show."),
    max_depth: z.number().int().min(1).optional().describe(
      "How many levels deep to go (1 = direct children); unlimited when omitted.",
    ),
    show_hidden: z.boolean().default(false).describe("Include names starting with a dot."),
  }),
  run({ path, max_depth, show_hidden }, ctx) {
    const abs = ctx.resolve(path);
    try {
      if (!Deno.statSync(abs).isDirectory) {
        throw new ToolError(
          "validation_failed",
          `"${path}" is a file, not a folder: use read_file to read it`,
        );
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new ToolError("not_found", `Folder "${path}" does not exist`);
      }
      throw error;
    }
    const root = workspaceRelative(ctx.workspace, abs);
    const lines: string[] = [];
    let files = 0;
    let dirs = 0;
    const summary = walkTree(ctx.workspace, root, {
      includeHidden: show_hidden,
      respectGitignore: true,
      ...(max_depth === undefined ? {} : { maxDepth: max_depth }),
      visit(entry) {
        if (lines.length >= MAX_ENTRIES) return "stop";
        if (entry.kind === "dir") dirs++;
        else files++;
        const suffix = entry.kind === "dir" ? "/" : entry.kind === "symlink" ? "@" : "";
        lines.push(`${"  ".repeat(entry.depth - 1)}${entry.name}${suffix}`);
      },
    });
    const header = `${root === "" ? "." : root}/ (${dirs} folders, ${files} files${
      max_depth === undefined ? "" : `, max_depth ${max_depth}`
    }; .gitignored${show_hidden ? "" : " and hidden"} entries skipped; @ marks symlinks)`;
    if (lines.length === 0) lines.push("(empty)");
    if (summary.stopped) {
      lines.push(`[Stopped after ${MAX_ENTRIES} entries: use max_depth or a subfolder path]`);
    }
    const denied = deniedNote([], summary.deniedDirs);
    if (denied) lines.push(denied);
    return {
      output: [header, ...lines].join("\n"),
      display: `Tree of ${path}: ${dirs} folders, ${files} files`,
    };
  },
});
