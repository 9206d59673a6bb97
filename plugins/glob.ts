// Built-in tool glob: lists workspace files whose paths match a glob (npm:picomatch),
// honouring .gitignore and skipping VCS folders; hidden files only when the pattern names
// them. Paths are printed relative to the workspace so other tools can use them directly.
// fd lists the files when the host can run it in the command sandbox (fd_files.ts), else
// the built-in walk does, with the same answer.

import { z } from "zod";
import { defineTool, ToolError } from "../src/tools/define_tool.ts";
import { deniedNote } from "../src/tools/search/denied_note.ts";
import { listWithFd } from "../src/tools/search/fd_files.ts";
import { compileGlob } from "../src/tools/search/glob_matcher.ts";
import { firstInWalkOrder } from "../src/tools/search/walk_order.ts";
import { readRoots } from "../src/tools/search/read_roots.ts";
import { placesUnder, type WalkEntry, walkTree } from "../src/tools/search/walk_tree.ts";
import { workspaceRelative } from "../src/tools/workspace_path.ts";

/** Paths listed before the output is cut (the count stays exact). */
const MAX_LISTED = 2000;

export default defineTool({
  name: "glob",
  description:
    "Find files whose paths match a glob such as `**/*.ts` or `src/**/test_*.py`. A pattern without `/` matches file names in any folder. Honours .gitignore.",
  risk: "safe",
  permissions: { read: ["."] },
  parameters: z.object({
    pattern: z.string().min(1).describe(
      "Glob relative to path, e.g. `**/*.ts`; `*.md` matches in any folder.",
    ),
    path: z.string().default(".").describe("Workspace-relative folder to search in."),
  }),
  async run({ pattern, path }, ctx) {
    const abs = ctx.resolve(path);
    const root = workspaceRelative(ctx.workspace, abs);
    // The built-in walk covers what the read grant reaches (`--allow-read=src`: src/ only).
    let granted: string[] | undefined;
    const placesFrom = async (start: string) => {
      granted ??= ctx.search ? readRoots(ctx.workspace, await ctx.search.grant()) : [""];
      return firstInWalkOrder(placesUnder(granted, start), Infinity);
    };
    try {
      if (!Deno.statSync(abs).isDirectory) {
        throw new ToolError(
          "validation_failed",
          `"${path}" is a file, not a folder: give a folder as path`,
        );
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new ToolError("not_found", `Folder "${path}" does not exist`);
      }
      // An unreadable folder with granted places inside it is walked through them.
      const places = error instanceof Deno.errors.NotCapable ? await placesFrom(root) : [];
      if (places.length === 0 || places[0] === root) throw error;
    }
    const glob = await compileGlob(pattern);
    const prefix = root === "" ? "" : `${root}/`;
    // Start at the pattern's static folder ("src" for "src/**/*.ts") when it exists.
    let start = root;
    if (glob.base !== "") {
      try {
        if (Deno.statSync(ctx.resolve(prefix + glob.base)).isDirectory) start = prefix + glob.base;
      } catch (error) {
        if (error instanceof Deno.errors.NotCapable) throw error;
        return {
          output: `0 files match "${pattern}" in "${path}".`,
          display: `glob ${pattern}: 0 files`,
        };
      }
    }
    const extension = /(?:^|\/)\*\.(\w+)$/.exec(pattern)?.[1];
    const matches = (file: string) => glob.matches(file.slice(prefix.length));
    const listed = ctx.search
      ? await listWithFd(ctx.search, ctx.workspace, start, {
        includeHidden: glob.namesHidden,
        ...(extension === undefined ? {} : { extension }),
        keep: matches,
        ...(glob.suffix === undefined ? {} : { suffix: glob.suffix }),
        limit: MAX_LISTED,
      }, ctx.signal)
      : undefined;
    let count = listed?.count ?? 0;
    const found = listed?.files ?? [];
    const deniedDirs = listed?.deniedDirs ?? [];
    const visit = (entry: WalkEntry) => {
      if (entry.kind === "dir" || !matches(entry.path)) return;
      if (count++ < MAX_LISTED) found.push(entry.path);
    };
    for (const place of listed ? [] : await placesFrom(start)) {
      const options = { includeHidden: glob.namesHidden, respectGitignore: true, visit };
      deniedDirs.push(...walkTree(ctx.workspace, place, options).deniedDirs);
    }
    const lines = [`${count} files match "${pattern}" in "${path}":`, ...found];
    if (count === 0) {
      lines[0] = `0 files match "${pattern}" in "${path}" (.gitignored files are skipped).`;
    }
    if (count > MAX_LISTED) {
      lines.push(`[${count - MAX_LISTED} more not listed: use a narrower pattern or path]`);
    }
    const denied = deniedNote([], deniedDirs);
    if (denied) lines.push(denied);
    return { output: lines.join("\n"), display: `glob ${pattern}: ${count} files` };
  },
});
