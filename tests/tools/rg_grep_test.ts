// grep_search and glob through ripgrep and fd (run by the host's SearchService in the real
// command sandbox) against the built-in search and walk, on the generated repository
// (tests/helpers/search_tree.ts) and on this repository's own checkout: the same summaries
// and the same tool output, for every pattern, cap and filter below. Skipped by name where
// rg, fd or bubblewrap is missing (CI installs them).

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import glob from "../../plugins/glob.ts";
import grepSearch from "../../plugins/grep_search.ts";
import { parseGrantFlags } from "../../src/cli/grant_flags.ts";
import {
  findProgram,
  probeCommandSandbox,
} from "../../src/sandbox/commands/command_sandbox_probe.ts";
import { effectivePermissions } from "../../src/sandbox/grants/effective_permissions.ts";
import { SearchService } from "../../src/sandbox/processes/search_service.ts";
import type { ToolContext } from "../../src/tools/define_tool.ts";
import { type GrepOptions, type GrepSummary, grepTree } from "../../src/tools/search/grep_files.ts";
import { grepWithRg } from "../../src/tools/search/rg_grep.ts";
import { compileGlob } from "../../src/tools/search/glob_matcher.ts";
import { listWithFd } from "../../src/tools/search/fd_files.ts";
import { SearchClient } from "../../src/tools/search/search_client.ts";
import { resolveWorkspacePath } from "../../src/tools/workspace_path.ts";
import { localFiles } from "../../src/tools/local_files.ts";
import { buildSearchTree } from "../helpers/search_tree.ts";

const PATH = Deno.env.get("PATH");
const HAVE_RG = findProgram("rg", PATH) !== undefined;
const HAVE_FD = findProgram("fd", PATH) !== undefined || findProgram("fdfind", PATH) !== undefined;
const CONFINED = Deno.build.os === "linux" &&
  (await probeCommandSandbox("auto", {
      grants: parseGrants(["--allow-read=."], "/").grants,
      env: Deno.env.toObject(),
    })).confinement.kind === "bwrap";
const REPO = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

function parseGrants(flags: string[], cwd: string) {
  const parsed = parseGrantFlags(flags, { cwd });
  if (!parsed.ok) throw new Error(`bad flags ${flags.join(" ")}`);
  return parsed.value;
}

/** A search service over `workspace` with `--allow-read=.`, as the tool host opens it. */
function service(workspace: string): { open(): SearchClient; close(): void } {
  const { grants } = parseGrants(["--allow-read=."], workspace);
  const search = new SearchService({ grants, workspace });
  const effective = effectivePermissions(grants, { read: ["."] }, { workspace });
  const calls: (() => void)[] = [];
  return {
    open() {
      const call = search.open(effective);
      calls.push(call.close);
      return new CountingClient(call.port);
    },
    close() {
      for (const close of calls) close();
      search.close();
    },
  };
}

/** A search client that counts the processes it runs. */
class CountingClient extends SearchClient {
  runs = 0;

  override run(...args: Parameters<SearchClient["run"]>): ReturnType<SearchClient["run"]> {
    this.runs++;
    return super.run(...args);
  }
}

function context(workspace: string, search?: SearchClient): ToolContext {
  return {
    workspace,
    resolve: (path) => resolveWorkspacePath(workspace, path),
    files: localFiles,
    signal: new AbortController().signal,
    dataDir: `${workspace}/.harness`,
    state: {},
    spawn: () => {
      throw new Error("the search tools start no commands");
    },
    commands: null as unknown as ToolContext["commands"],
    ...(search ? { search } : {}),
  };
}

/** The summary without what ripgrep cannot count (files searched past a stop). */
function comparable(summary: GrepSummary): Record<string, unknown> {
  const { filesSearched, ...rest } = summary;
  return summary.truncated ? rest : { ...rest, filesSearched };
}

async function toolOutput(
  tool: typeof grepSearch | typeof glob,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  const parsed = tool.parameters.parse(args);
  // deno-lint-ignore no-explicit-any -- either tool's parsed arguments
  return (await tool.run(parsed as any, ctx)).output;
}

/** The search options with file_filter as the tool takes it (a glob, compiled by `same`). */
type TestOptions = Omit<GrepOptions, "fileFilter"> & { fileFilter?: string };

/** Checks one option set both ways; returns ripgrep's summary. */
async function same(
  workspace: string,
  search: { open(): SearchClient },
  given: TestOptions,
): Promise<GrepSummary> {
  const label = JSON.stringify(given);
  const { fileFilter: filterGlob, ...rest } = given;
  const options: GrepOptions = filterGlob === undefined
    ? rest
    : { ...rest, fileFilter: await compileGlob(filterGlob, { dot: true }) };
  const ours = grepTree(workspace, "", options);
  const theirs = await grepWithRg(search.open(), workspace, options);
  assert(theirs !== undefined, `ripgrep did not answer ${label}`);
  assertEquals(comparable(theirs), comparable(ours), label);
  const args = {
    pattern: options.pattern,
    case_sensitive: options.caseSensitive,
    max_results: options.maxResults,
    include_hidden: options.includeHidden,
    ignore_gitignore: !options.respectGitignore,
    ...(filterGlob ? { file_filter: filterGlob } : {}),
  };
  assertEquals(
    await toolOutput(grepSearch, args, context(workspace, search.open())),
    await toolOutput(grepSearch, args, context(workspace)),
    label,
  );
  return theirs;
}

function options(pattern: string, extra: Partial<TestOptions> = {}): TestOptions {
  return {
    pattern,
    caseSensitive: false,
    maxResults: 1000,
    includeHidden: false,
    respectGitignore: true,
    ...extra,
  };
}

Deno.test({
  name: "grep_search through ripgrep answers as the built-in search on the generated tree",
  ignore: !HAVE_RG || !CONFINED,
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_rg_" }));
    const search = service(workspace);
    try {
      await buildSearchTree(workspace, 300);
      const patterns = [
        "needle",
        "return",
        "foo*bar",
        "deprecated*since",
        "a.b",
        "(x)",
        "_id",
        "déjà",
        "日本*needle",
        "x",
        "zzz_absent",
        "needle*",
      ];
      for (const pattern of patterns) {
        for (const maxResults of [1, 7, 1000]) {
          await same(workspace, search, options(pattern, { maxResults }));
        }
      }
      for (const pattern of ["needle", "NEEDLE", "FooBar"]) {
        await same(workspace, search, options(pattern, { caseSensitive: true }));
      }
      for (const extra of [{ includeHidden: true }, { respectGitignore: false }]) {
        for (const maxResults of [5, 1000]) {
          await same(workspace, search, options("needle", { ...extra, maxResults }));
        }
      }
      await same(
        workspace,
        search,
        options("needle", { includeHidden: true, respectGitignore: false }),
      );
      for (
        const fileFilter of [
          "*.ts",
          "**/*.md",
          "*.{ts,js}",
          "src/**/*.ts",
          "pkg/a/*.js",
          "src/nested/*",
          "f1*",
          "*.tmp",
        ]
      ) {
        await same(workspace, search, options("needle", { fileFilter, maxResults: 4 }));
        await same(workspace, search, options("return", { fileFilter }));
      }
      // The tree exercises what it claims: nested .gitignore files, a binary, caps met.
      const needles = await same(workspace, search, options("needle in a", { maxResults: 10 }));
      assertEquals(needles.matches.map((m) => m.path), ["keep.log"]);
      const tmp = await same(workspace, search, options("needle tmp"));
      assertEquals(tmp.matches.map((m) => m.path), ["src/nested/important.tmp"]);
      const blob = await same(workspace, search, options("needle", { fileFilter: "*.bin" }));
      assert(blob.matches.length === 0 && blob.filesSearched === 1, JSON.stringify(blob));
      const binary = await same(workspace, search, options("needle", { respectGitignore: false }));
      assert(!binary.matches.some((m) => m.path === "bin/blob.bin"), JSON.stringify(binary));
      assert((await same(workspace, search, options("return", { maxResults: 7 }))).truncated);
    } finally {
      search.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "grep_search cuts at max_results from one ripgrep run unless far more lines match",
  ignore: !HAVE_RG || !CONFINED,
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_rg_" }));
    const search = service(workspace);
    try {
      // 90 matching lines, three in each of 30 files, in folders that sort around "/".
      for (let i = 0; i < 30; i++) {
        const folder = ["a", "a-b", "a.b", "a/b"][i % 4];
        await Deno.mkdir(`${workspace}/${folder}`, { recursive: true });
        await Deno.writeTextFile(`${workspace}/${folder}/f${(i * 7) % 30}.txt`, "word\n".repeat(3));
      }
      const runs = async (maxResults: number) => {
        const client = search.open() as CountingClient;
        const given: GrepOptions = {
          pattern: "word",
          caseSensitive: false,
          maxResults,
          includeHidden: false,
          respectGitignore: true,
        };
        const summary = await grepWithRg(client, workspace, given);
        assertEquals(comparable(summary!), comparable(grepTree(workspace, "", given)));
        return { runs: client.runs, truncated: summary!.truncated };
      };
      // 90 lines for 20 asked: read whole and cut in walk order (the old code ran twice).
      assertEquals(await runs(20), { runs: 1, truncated: true });
      assertEquals(await runs(89), { runs: 1, truncated: true });
      assertEquals(await runs(90), { runs: 1, truncated: false });
      // 90 lines for 5 asked (more than eight times as many): stopped, then a sorted run.
      assertEquals(await runs(5), { runs: 2, truncated: true });
      assertEquals(await runs(1), { runs: 2, truncated: true });
    } finally {
      search.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "grep_search through ripgrep answers as the built-in search on this repository",
  ignore: !HAVE_RG || !CONFINED,
  async fn() {
    const search = service(REPO);
    try {
      for (
        const [pattern, extra] of [
          ["grepTree", {}],
          ["import*from", { maxResults: 50 }],
          ["import*from", { fileFilter: "src/**/*.ts", maxResults: 1000 }],
          ["TODO", {}],
          ["deno", { caseSensitive: true, maxResults: 300 }],
          ["ToolContext", { fileFilter: "*.ts" }],
          ["zzz_never_anywhere_zzz", {}],
        ] as const
      ) {
        await same(REPO, search, options(pattern, extra));
      }
    } finally {
      search.close();
    }
  },
});

Deno.test({
  name: "glob through fd lists what the built-in walk lists",
  ignore: !HAVE_FD || !CONFINED,
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_fd_" }));
    const search = service(workspace);
    try {
      await buildSearchTree(workspace, 120);
      await Deno.symlink("keep.log", `${workspace}/link.md`);
      for (
        const args of [
          { pattern: "**/*.ts" },
          { pattern: "*.tmp" },
          { pattern: "*" },
          { pattern: "src/**/*.ts" },
          { pattern: "*.log" },
          { pattern: "*.md" },
          { pattern: ".hidden/*" },
          { pattern: "**/.env*" },
          { pattern: "*.js", path: "build" },
          { pattern: "*.ts", path: "src/nested" },
          { pattern: "nothing*.zz" },
        ]
      ) {
        const theirs = await toolOutput(glob, args, context(workspace, search.open()));
        const ours = await toolOutput(glob, args, context(workspace));
        assertEquals(theirs, ours, JSON.stringify(args));
      }
      const links = await toolOutput(glob, { pattern: "*.md" }, context(workspace, search.open()));
      assert(links.includes("\nlink.md"), links);
      // fd answered (the comparisons above would also pass if it had not).
      const listed = await listWithFd(search.open(), workspace, "", { includeHidden: false });
      assert(listed !== undefined && listed.files.includes("link.md"), JSON.stringify(listed));
    } finally {
      search.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "glob through fd lists the same first 2000 files as the walk when more match",
  ignore: !HAVE_FD || !CONFINED,
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_fd_" }));
    const search = service(workspace);
    try {
      // Folder names that sort around "/" ("a-1" before "a/", "a.1", "a 1") and 2,400 files.
      for (const folder of ["a", "a-1", "a.1", "a 1", "a/b", "a/b-c", "b/x/y"]) {
        await Deno.mkdir(`${workspace}/${folder}`, { recursive: true });
        for (let i = 0; i < 350; i++) {
          await Deno.writeTextFile(`${workspace}/${folder}/f${(i * 7919) % 350}.ts`, "");
        }
      }
      // A git repository: fd before 8.7 honours .gitignore files only in one.
      await Deno.mkdir(`${workspace}/.git`);
      // Hidden names a .gitignore `!` rule brings back, VCS folders, a hidden start folder.
      const extra = {
        ".gitignore": "!.keep.ts\n!.shown/\n",
        ".keep.ts": "",
        ".shown/x.ts": "",
        "_darcs/x.ts": "",
        "b/_darcs/y.ts": "",
        "_darcsx/z.ts": "",
        ".h/in.ts": "",
        ".h/.deeper/no.ts": "",
      };
      for (const [path, text] of Object.entries(extra)) {
        await Deno.mkdir(`${workspace}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
        await Deno.writeTextFile(`${workspace}/${path}`, text);
      }
      for (
        const args of [
          { pattern: "**/*.ts" },
          { pattern: "*" },
          { pattern: "a/**/f1*.ts" },
          { pattern: "**/*.ts", path: ".h" },
          { pattern: "*.ts", path: "b" },
          { pattern: "**/.*" },
          { pattern: "_darcs*/*" },
        ]
      ) {
        const theirs = await toolOutput(glob, args, context(workspace, search.open()));
        const ours = await toolOutput(glob, args, context(workspace));
        assertEquals(theirs, ours, JSON.stringify(args));
      }
      // fd answered (the comparisons above would also pass if it had not).
      const listed = await listWithFd(search.open(), workspace, "", { includeHidden: false });
      assert(listed?.files.includes("_darcsx/z.ts"), JSON.stringify(listed));
      const capped = await toolOutput(
        glob,
        { pattern: "**/*.ts" },
        context(workspace, search.open()),
      );
      assert(
        capped.startsWith("2451 files match") && capped.includes("[451 more not listed"),
        capped,
      );
    } finally {
      search.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "glob through fd reads a plain listing of 8,400 files in bulk as the walk lists them",
  ignore: !HAVE_FD || !CONFINED,
  async fn() {
    const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_fd_" }));
    const search = service(workspace);
    try {
      // No hidden name, no .gitignore: fd_listing.ts's bulk reading (more than four times the
      // 2,000 listed, every path ending with the suffix). Folder names sort around "/".
      await Deno.mkdir(`${workspace}/.git`);
      const folders = ["a", "a-1", "a.1", "a 1", "a/b", "a/b-c", "b/x/y", "é", "z"];
      for (const folder of folders) {
        await Deno.mkdir(`${workspace}/${folder}`, { recursive: true });
        for (let i = 0; i < 900; i++) {
          Deno.writeTextFileSync(`${workspace}/${folder}/f${(i * 7919) % 900}.ts`, "");
        }
      }
      const compare = async () => {
        for (const args of [{ pattern: "**/*.ts" }, { pattern: "*.ts" }, { pattern: "*.TS" }]) {
          const theirs = await toolOutput(glob, args, context(workspace, search.open()));
          const ours = await toolOutput(glob, args, context(workspace));
          assertEquals(theirs, ours, JSON.stringify(args));
        }
      };
      await compare();
      // fd's --extension ignores case: one path the pattern does not keep, read path by path.
      Deno.writeTextFileSync(`${workspace}/a/UPPER.TS`, "");
      await compare();
      const listed = await listWithFd(search.open(), workspace, "", { includeHidden: false });
      assert(listed?.count === 8101, `fd answered: ${listed?.count}`);
    } finally {
      search.close();
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "glob through fd lists what the built-in walk lists in this repository",
  ignore: !HAVE_FD || !CONFINED,
  async fn() {
    const search = service(REPO);
    try {
      for (const args of [{ pattern: "**/*.ts" }, { pattern: "*.md" }, { pattern: "src/**/*" }]) {
        const theirs = await toolOutput(glob, args, context(REPO, search.open()));
        assertEquals(theirs, await toolOutput(glob, args, context(REPO)), JSON.stringify(args));
      }
    } finally {
      search.close();
    }
  },
});
