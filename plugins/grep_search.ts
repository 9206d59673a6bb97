// Built-in tool grep_search: finds lines containing a text pattern (`*` wildcards) in the
// workspace's text files, honouring .gitignore and skipping hidden files, VCS folders and
// binaries unless asked. ripgrep searches when the host can run it in the command sandbox
// (src/tools/search/rg_grep.ts), else the built-in search (src/tools/search/grep_roots.ts)
// over what the read grant covers, with the same answer.

import { z } from "zod";
import { defineTool } from "../src/tools/define_tool.ts";
import { deniedNote } from "../src/tools/search/denied_note.ts";
import { readRoots } from "../src/tools/search/read_roots.ts";
import { grepRoots } from "../src/tools/search/grep_roots.ts";
import { grepWithRg } from "../src/tools/search/rg_grep.ts";
import { compileGlob } from "../src/tools/search/glob_matcher.ts";

export default defineTool({
  name: "grep_search",
  description:
    "Search the workspace's text files for lines containing a pattern. The pattern is plain text (not a regex) where `*` matches any characters within a line.",
  risk: "low",
  permissions: { read: ["."] },
  parameters: z.object({
    pattern: z.string().min(1).describe(
      "Text to find; `*` matches any characters within a line, e.g. `function*Tool`.",
    ),
    file_filter: z.string().optional().describe(
      "Only search files matching this glob, e.g. `*.ts` (any folder) or `src/**/*.md`.",
    ),
    max_results: z.number().int().min(1).max(1000).default(200).describe(
      "Maximum matching lines to return (at most 1000).",
    ),
    include_hidden: z.boolean().default(false).describe(
      "Also search files and folders whose names start with a dot.",
    ),
    ignore_gitignore: z.boolean().default(false).describe(
      "Also search files that .gitignore excludes.",
    ),
    case_sensitive: z.boolean().default(false).describe("Match upper and lower case exactly."),
  }),
  async run(args, ctx) {
    const options = {
      pattern: args.pattern,
      caseSensitive: args.case_sensitive,
      ...(args.file_filter === undefined
        ? {}
        : { fileFilter: await compileGlob(args.file_filter, { dot: true }) }),
      maxResults: args.max_results,
      includeHidden: args.include_hidden,
      respectGitignore: !args.ignore_gitignore,
    };
    const found = ctx.search
      ? await grepWithRg(ctx.search, ctx.workspace, options, ctx.signal)
      : undefined;
    // The built-in search walks what the read grant covers (`--allow-read=src`: src/ only).
    const summary = found ??
      grepRoots(
        ctx.workspace,
        ctx.search ? readRoots(ctx.workspace, await ctx.search.grant()) : [""],
        options,
      );
    const flags = [
      args.case_sensitive ? "[case-sensitive]" : "",
      args.include_hidden ? "[+hidden]" : "",
      args.ignore_gitignore ? "[+gitignored]" : "",
      args.file_filter ? `[files: ${args.file_filter}]` : "",
    ].filter(Boolean).join(" ");
    const what = `"${args.pattern}"${flags ? ` ${flags}` : ""}`;
    const { matches, filesMatched, filesSearched } = summary;
    const denied = deniedNote(summary.deniedFiles, summary.deniedDirs);
    if (matches.length === 0) {
      const skipped = [
        args.include_hidden ? undefined : ["hidden", "include_hidden"],
        args.ignore_gitignore ? undefined : [".gitignored", "ignore_gitignore"],
      ].filter((kind) => kind !== undefined);
      const hint = skipped.length === 0
        ? ""
        : ` (${skipped.map(([what]) => what).join(" and ")} files were skipped; see ${
          skipped.map(([, flag]) => flag).join(" and ")
        })`;
      return {
        output: `No matches for ${what} in ${filesSearched} files searched${hint}.${
          denied ? `\n${denied}` : ""
        }`,
        display: `grep ${args.pattern}: no matches`,
      };
    }
    const searched = summary.truncated
      ? "stopped at max_results"
      : `${filesSearched} files searched`;
    const lines = [
      `${matches.length} matching lines in ${filesMatched} files for ${what} (${searched}):`,
      ...matches.map((m) => `${m.path}:${m.line}: ${m.text}`),
    ];
    if (summary.truncated) {
      lines.push(
        `[Stopped at ${args.max_results} matches; more exist: narrow the pattern or file_filter, or raise max_results (at most 1000)]`,
      );
    }
    if (denied) lines.push(denied);
    return {
      output: lines.join("\n"),
      display: `grep ${args.pattern}: ${matches.length}${
        summary.truncated ? "+" : ""
      } matches in ${filesMatched} files`,
    };
  },
});
