// Benchmark: our grep_search and glob against ripgrep and fd on a generated tree of 50,000+
// real source files with .gitignore files. First the built-in search (the fallback without
// rg or a sandbox), in-process and in a Worker with a read grant, with a breakdown of where
// the time goes (walk, .gitignore, file reads, decoding, matching); then `harness tool
// grep_search|glob` end to end and in its worker, with rg and fd on PATH (run in the command
// sandbox) and without, start-up subtracted, against bare `rg -i -n` and fd in the same run
// (search_e2e.ts). Run: deno run -A --unstable-worker-options bench/search_bench.ts
// [--runs N] [--rebuild]; the tree is cached under /tmp; medians. `--tree DIR` (repeatable)
// runs only the end-to-end part, in each DIR (e.g. a large public repository fetched to
// /work/bench_trees/, kept outside the repository); `--case glob` (repeatable) only the
// end-to-end cases whose label contains it; `--glob "**/*.py"` the glob case's pattern.

import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import grepSearch from "../plugins/grep_search.ts";
import glob from "../plugins/glob.ts";
import type { ToolContext } from "../src/tools/define_tool.ts";
import { FileReader } from "../src/tools/search/file_reader.ts";
import { walkTree } from "../src/tools/search/walk_tree.ts";
import { resolveWorkspacePath } from "../src/tools/workspace_path.ts";
import { localFiles } from "../src/tools/local_files.ts";
import { globCase, runEndToEnd } from "./search_e2e.ts";

const TREE_VERSION = 2;
const ROOT = `/tmp/harness_search_bench_v${TREE_VERSION}`;
const MIN_FILES = 50_000;
const MAX_SOURCE_BYTES = 256 * 1024;
const SOURCE_EXTENSIONS = /\.(ts|mts|js|mjs|cjs|json|md|py|d\.ts|txt)$/;

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "7" },
    rebuild: { type: "boolean", default: false },
    tree: { type: "string", multiple: true },
    case: { type: "string", multiple: true },
    glob: { type: "string" },
  },
});

/** Text source files to copy (the Deno npm cache and Python's library), relative to `/`. */
function collectSources(): string[] {
  const roots = [
    join(homedir(), ".cache", "deno", "npm"),
    join(homedir(), ".cache", "deno", "remote"),
  ];
  for (const entry of safeReadDir("/usr/lib")) {
    if (/^python3(\.\d+)?$/.test(entry.name)) roots.push(join("/usr/lib", entry.name));
  }
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of safeReadDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && SOURCE_EXTENSIONS.test(entry.name)) {
        const size = Deno.statSync(path).size;
        if (size > 0 && size <= MAX_SOURCE_BYTES) found.push(path);
      }
    }
  };
  for (const root of roots) walk(root);
  return found.sort();
}

function safeReadDir(dir: string): Deno.DirEntry[] {
  try {
    return Array.from(Deno.readDirSync(dir));
  } catch {
    return [];
  }
}

/** Builds (or reuses) the tree: copies of the sources in pkg_N folders plus ignored folders. */
function ensureTree(): { files: number; ignoredFiles: number } {
  const marker = join(ROOT, ".bench_tree.json");
  if (!flags.rebuild) {
    try {
      return JSON.parse(Deno.readTextFileSync(marker));
    } catch { /* build it */ }
  }
  try {
    Deno.removeSync(ROOT, { recursive: true });
  } catch { /* nothing to remove */ }
  const sources = collectSources();
  if (sources.length === 0) throw new Error("No source files found to build the benchmark tree");
  console.log(`Building ${ROOT} from ${sources.length} source files...`);
  Deno.mkdirSync(join(ROOT, ".git"), { recursive: true });
  Deno.writeTextFileSync(join(ROOT, ".git", "HEAD"), "ref: refs/heads/main\n");
  Deno.writeTextFileSync(join(ROOT, ".gitignore"), "*.log\nbuild/\nnode_modules/\n");
  let files = 0;
  let ignoredFiles = 0;
  const contents = sources.map((path) => Deno.readFileSync(path));
  for (let copy = 0; files < MIN_FILES; copy++) {
    const pkg = join(ROOT, "packages", `pkg_${copy}`);
    for (let i = 0; i < sources.length; i++) {
      // "root/.cache/deno/npm/..." -> "root/_cache/deno/npm/...": no hidden folders.
      const target = join(pkg, relative("/", sources[i]!).replace(/(^|\/)\./g, "$1_"));
      Deno.mkdirSync(dirname(target), { recursive: true });
      Deno.writeFileSync(target, contents[i]!);
      files++;
    }
    // Nested .gitignore files and content they exclude.
    Deno.writeTextFileSync(join(pkg, ".gitignore"), "*.gen.ts\ncoverage/\n");
    for (let i = 0; i < 50; i++) {
      const text = contents[i % contents.length]!;
      Deno.mkdirSync(join(pkg, "coverage"), { recursive: true });
      Deno.writeFileSync(join(pkg, "coverage", `c${i}.js`), text);
      Deno.writeFileSync(join(pkg, `f${i}.gen.ts`), text);
      Deno.writeFileSync(join(pkg, `run${i}.log`), text);
      ignoredFiles += 3;
    }
  }
  const summary = { files, ignoredFiles };
  Deno.writeTextFileSync(marker, JSON.stringify(summary));
  return summary;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `fn` once to warm up, then `runs` times; returns the median in ms and the last result. */
async function time<T>(runs: number, fn: () => Promise<T> | T): Promise<{ ms: number; result: T }> {
  let result = await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    result = await fn();
    times.push(performance.now() - start);
  }
  return { ms: median(times), result };
}

function context(root: string): ToolContext {
  return {
    workspace: root,
    resolve: (path) => resolveWorkspacePath(root, path),
    files: localFiles,
    signal: new AbortController().signal,
    dataDir: join(root, ".harness"),
    state: {},
    // The search tools start no commands.
    spawn: () => {
      throw new Error("the search bench starts no commands");
    },
    commands: null as unknown as ToolContext["commands"],
  };
}

/** The first number of a tool's output ("40 matching lines...", "14224 files match..."). */
function resultCount(output: string): number {
  return Number(/^(\d+) /.exec(output)?.[1] ?? 0);
}

/** Walks like grep_search (gitignore on, hidden off) and calls `onFile` for each file. */
function walkFiles(root: string, gitignore: boolean, onFile: (absPath: string) => void): void {
  walkTree(root, "", {
    includeHidden: false,
    respectGitignore: gitignore,
    visit(entry) {
      if (entry.kind === "file") onFile(entry.absPath);
    },
  });
}

const GREP_CASES = [
  {
    label: "grep literal (case-sensitive)",
    args: { pattern: "XMLHttpRequest", case_sensitive: true, max_results: 1000 },
    rg: ["-n", "-F", "--no-heading", "XMLHttpRequest", "."],
  },
  {
    label: "grep wildcard (case-insensitive)",
    args: { pattern: "deprecated*since", max_results: 1000 },
    rg: ["-n", "-i", "--no-heading", "deprecated.*since", "."],
  },
];
const GLOB_CASE = {
  label: "glob **/*.ts",
  args: { pattern: "**/*.ts" },
  fd: ["--type", "f", "--glob", "*.ts", "."],
};

/**
 * The measured steps, each a superset of the one before it, so differences show where
 * the time goes. Each returns a count (files, matching lines) to check the work done.
 */
export const PHASES: Record<string, (root: string) => number | Promise<number>> = {
  "walk (readDir only, no .gitignore)": (root) => {
    let files = 0;
    walkFiles(root, false, () => files++);
    return files;
  },
  "walk + .gitignore": (root) => {
    let files = 0;
    walkFiles(root, true, () => files++);
    return files;
  },
  "+ open/read/close every file": (root) => {
    const reader = new FileReader();
    let bytes = 0;
    walkFiles(root, true, (path) => bytes += reader.read(path)?.length ?? 0);
    return bytes;
  },
  "+ decode UTF-8": (root) => {
    const reader = new FileReader();
    const decoder = new TextDecoder();
    let chars = 0;
    walkFiles(root, true, (path) => chars += decoder.decode(reader.read(path) ?? undefined).length);
    return chars;
  },
  ...Object.fromEntries(GREP_CASES.map((c) => [
    `${c.label}, whole tool`,
    async (root: string) => {
      const args = grepSearch.parameters.parse(c.args);
      return resultCount((await grepSearch.run(args, context(root))).output);
    },
  ])),
  [`${GLOB_CASE.label}, whole tool`]: async (root) => {
    const args = glob.parameters.parse(GLOB_CASE.args);
    return resultCount((await glob.run(args, context(root))).output);
  },
};

/**
 * Times every phase; exported so a Worker can run the same code.
 *
 * @param root The tree.
 * @param runs Timed runs per phase (after one warm-up).
 * @returns Median ms and count per phase name.
 */
export async function timePhases(
  root: string,
  runs: number,
): Promise<Record<string, { ms: number; count: number }>> {
  const out: Record<string, { ms: number; count: number }> = {};
  for (const [name, phase] of Object.entries(PHASES)) {
    const { ms, result } = await time(runs, () => phase(root));
    out[name] = { ms, count: result };
  }
  return out;
}

/** Runs timePhases in a Worker granted read access to the tree and the code only. */
async function timePhasesInWorker(
  root: string,
  runs: number,
): Promise<Record<string, { ms: number; count: number }> | null> {
  const benchUrl = import.meta.url;
  const source = `import { timePhases } from ${JSON.stringify(benchUrl)};
self.onmessage = async (e) => self.postMessage(await timePhases(e.data.root, e.data.runs));`;
  const url = URL.createObjectURL(new Blob([source], { type: "application/typescript" }));
  const repo = dirname(dirname(new URL(benchUrl).pathname));
  const worker = new Worker(url, {
    type: "module",
    deno: {
      permissions: {
        read: [root, repo, join(homedir(), ".cache", "deno")],
        write: false,
        net: false,
        run: false,
        env: false,
      },
    },
  });
  try {
    return await new Promise((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
      };
      worker.postMessage({ root, runs });
    });
  } catch (error) {
    console.log(`(worker measurement skipped: ${error instanceof Error ? error.message : error})`);
    return null;
  } finally {
    worker.terminate();
    URL.revokeObjectURL(url);
  }
}

function findBinary(names: string[]): string | null {
  for (const name of names) {
    try {
      const command = new Deno.Command(name, {
        args: ["--version"],
        stdout: "null",
        stderr: "null",
      });
      if (command.outputSync().success) return name;
    } catch { /* not installed */ }
  }
  return null;
}

/** Runs an external tool in the tree; returns its number of output lines. */
function runExternal(binary: string, args: string[]): number {
  const { stdout, code } = new Deno.Command(binary, {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  if (code > 1) throw new Error(`${binary} ${args.join(" ")} exited with ${code}`);
  const text = new TextDecoder().decode(stdout);
  return text === "" ? 0 : text.trimEnd().split("\n").length;
}

function ms(value: number | undefined): string {
  return value === undefined ? "n/a" : value.toFixed(1);
}

function ratio(ours: number | undefined, theirs: number | undefined): string {
  return ours === undefined || theirs === undefined ? "n/a" : `${(ours / theirs).toFixed(2)}x`;
}

async function main(): Promise<void> {
  const runs = Math.max(1, Number(flags.runs));
  if (flags.tree !== undefined && flags.tree.length > 0) {
    const glob = globCase(flags.glob);
    for (const dir of flags.tree) runEndToEnd(dir, runs, flags.case ?? [], glob);
    return;
  }
  const tree = ensureTree();
  console.log(
    `Tree: ${ROOT} (${tree.files} files searched, ${tree.ignoredFiles} gitignored); ${runs} warm runs, medians`,
  );
  const rg = findBinary(["rg"]);
  const fd = findBinary(["fd", "fdfind"]);
  if (rg === null) console.log("ripgrep (rg) is NOT installed: apt-get install ripgrep");
  if (fd === null) console.log("fd is NOT installed: apt-get install fd-find (binary fdfind)");

  const local = await timePhases(ROOT, runs);
  const inWorker = await timePhasesInWorker(ROOT, runs);
  const external: Record<string, { ms: number; count: number; oneThread: number }> = {};
  for (const c of GREP_CASES) {
    if (rg === null) continue;
    const all = await time(runs, () => runExternal(rg, c.rg));
    const one = await time(runs, () => runExternal(rg, ["-j1", ...c.rg]));
    external[`${c.label}, whole tool`] = { ms: all.ms, count: all.result, oneThread: one.ms };
  }
  if (fd !== null) {
    const all = await time(runs, () => runExternal(fd, GLOB_CASE.fd));
    const one = await time(runs, () => runExternal(fd, ["-j1", ...GLOB_CASE.fd]));
    external[`${GLOB_CASE.label}, whole tool`] = {
      ms: all.ms,
      count: all.result,
      oneThread: one.ms,
    };
  }

  console.log(
    "\nWhere the time goes (each row adds to the one above; worker = read grant on the tree only)",
  );
  console.log(
    `${"phase".padEnd(44)} ${"in-process".padStart(10)} ${"in worker".padStart(10)} ${
      "worker/in-proc".padStart(14)
    }`,
  );
  for (const name of Object.keys(PHASES)) {
    const a = local[name]?.ms;
    const b = inWorker?.[name]?.ms;
    console.log(
      `${name.padEnd(44)} ${ms(a).padStart(10)} ${ms(b).padStart(10)} ${ratio(b, a).padStart(14)}`,
    );
  }

  console.log("\nAgainst ripgrep / fd (same run; ratio = ours / theirs)");
  console.log(
    `${"case".padEnd(34)} ${"ours".padStart(8)} ${"worker".padStart(8)} ${"rg/fd".padStart(8)} ${
      "ratio".padStart(7)
    } ${"worker".padStart(7)} ${"-j1".padStart(8)} ${"vs -j1".padStart(7)}  results`,
  );
  for (const name of Object.keys(external)) {
    const theirs = external[name]!;
    const ours = local[name]!;
    const worker = inWorker?.[name]?.ms;
    const label = name.replace(", whole tool", "");
    console.log(
      `${label.padEnd(34)} ${ms(ours.ms).padStart(8)} ${ms(worker).padStart(8)} ${
        ms(theirs.ms).padStart(8)
      } ${ratio(ours.ms, theirs.ms).padStart(7)} ${ratio(worker, theirs.ms).padStart(7)} ${
        ms(theirs.oneThread).padStart(8)
      } ${
        ratio(ours.ms, theirs.oneThread).padStart(7)
      }  ours ${ours.count}, theirs ${theirs.count}`,
    );
  }
  runEndToEnd(ROOT, Math.min(runs, 5));
}

if (import.meta.main) await main();
