// Benchmark: our grep_search and glob (run in-process through the plugins' run()) against
// ripgrep and fd on a generated tree of 50,000+ real source files with .gitignore files.
// Run: deno run -A --unstable-worker-options bench/search_bench.ts [--runs N] [--rebuild]
// The tree is cached under /tmp; times are medians of warm runs.

import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import grepSearch from "../plugins/grep_search.ts";
import glob from "../plugins/glob.ts";
import type { ToolContext } from "../src/tools/define_tool.ts";
import { resolveWorkspacePath } from "../src/tools/workspace_path.ts";

const TREE_VERSION = 2;
const ROOT = `/tmp/harness_search_bench_v${TREE_VERSION}`;
const MIN_FILES = 50_000;
const MAX_SOURCE_BYTES = 256 * 1024;
const SOURCE_EXTENSIONS = /\.(ts|mts|js|mjs|cjs|json|md|py|d\.ts|txt)$/;

const { values: flags } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "7" }, rebuild: { type: "boolean", default: false } },
});
const RUNS = Math.max(1, Number(flags.runs));

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

/** Runs `fn` once to warm up, then RUNS times; returns the median in ms and the last result. */
async function time<T>(fn: () => Promise<T> | T): Promise<{ ms: number; result: T }> {
  let result = await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    result = await fn();
    times.push(performance.now() - start);
  }
  return { ms: median(times), result };
}

function findBinary(names: string[]): string | null {
  for (const name of names) {
    try {
      const { success } = new Deno.Command(name, {
        args: ["--version"],
        stdout: "null",
        stderr: "null",
      })
        .outputSync();
      if (success) return name;
    } catch { /* not installed */ }
  }
  return null;
}

function runExternal(binary: string, args: string[]): number {
  const { stdout, code } = new Deno.Command(binary, {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  })
    .outputSync();
  if (code > 1) throw new Error(`${binary} ${args.join(" ")} exited with ${code}`);
  const text = new TextDecoder().decode(stdout);
  return text === "" ? 0 : text.trimEnd().split("\n").length;
}

function context(): ToolContext {
  return {
    workspace: ROOT,
    resolve: (path) => resolveWorkspacePath(ROOT, path),
    signal: new AbortController().signal,
    dataDir: join(ROOT, ".harness"),
    state: {},
  };
}

function resultCount(output: string): number {
  const first = output.split("\n")[0] ?? "";
  return Number(/^(\d+) /.exec(first)?.[1] ?? 0);
}

/** Times our grep in a Worker with a read grant (the way the harness runs tools). */
async function timeInWorker(args: Record<string, unknown>): Promise<number | null> {
  const pluginUrl = new URL("../plugins/grep_search.ts", import.meta.url).href;
  const helperUrl = new URL("../src/tools/workspace_path.ts", import.meta.url).href;
  const source = `
import tool from "${pluginUrl}";
import { resolveWorkspacePath } from "${helperUrl}";
self.onmessage = async (event) => {
  const times = [];
  const ctx = { workspace: ${JSON.stringify(ROOT)}, resolve: (p) => resolveWorkspacePath(${
    JSON.stringify(ROOT)
  }, p), signal: new AbortController().signal, dataDir: "", state: {} };
  const args = tool.parameters.parse(event.data.args);
  await tool.run(args, ctx);
  for (let i = 0; i < event.data.runs; i++) {
    const start = performance.now();
    await tool.run(args, ctx);
    times.push(performance.now() - start);
  }
  self.postMessage(times);
};`;
  const url = URL.createObjectURL(new Blob([source], { type: "application/typescript" }));
  try {
    const worker = new Worker(url, {
      type: "module",
      deno: {
        permissions: {
          read: [
            ROOT,
            dirname(dirname(new URL(import.meta.url).pathname)),
            join(homedir(), ".cache", "deno"),
          ],
          write: false,
          net: false,
          run: false,
          env: false,
        },
      },
    });
    const times = await new Promise<number[]>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<number[]>) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
      };
      worker.postMessage({ args, runs: RUNS });
    });
    worker.terminate();
    return median(times);
  } catch (error) {
    console.log(
      `  (worker measurement skipped: ${error instanceof Error ? error.message : error})`,
    );
    return null;
  } finally {
    URL.revokeObjectURL(url);
  }
}

function row(label: string, ours: number, theirs: number | null, tool: string): void {
  const ratio = theirs === null ? "n/a" : `${(ours / theirs).toFixed(2)}x`;
  const theirText = theirs === null ? `${tool} missing` : `${theirs.toFixed(1)} ms`;
  console.log(
    `${label.padEnd(34)} ours ${ours.toFixed(1).padStart(8)} ms   ${tool.padEnd(6)} ${
      theirText.padStart(10)
    }   ratio ${ratio}`,
  );
}

const tree = ensureTree();
console.log(
  `Tree: ${ROOT} (${tree.files} files searched, ${tree.ignoredFiles} gitignored); ${RUNS} warm runs, medians`,
);
const rg = findBinary(["rg"]);
const fd = findBinary(["fd", "fdfind"]);
if (rg === null) console.log("ripgrep (rg) is NOT installed: apt-get install ripgrep");
if (fd === null) console.log("fd is NOT installed: apt-get install fd-find (binary fdfind)");
const ctx = context();

const cases = [
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
for (const c of cases) {
  const ours = await time(() => grepSearch.run(grepSearch.parameters.parse(c.args), ctx));
  const count = resultCount(ours.result.output);
  const theirs = rg === null ? null : await time(() => runExternal(rg, c.rg));
  row(c.label, ours.ms, theirs?.ms ?? null, "rg");
  console.log(
    `  matching lines: ours ${count}${theirs ? `, rg ${theirs.result}` : ""}${
      ours.result.output.includes("[Stopped") ? " (ours hit max_results)" : ""
    }`,
  );
  if (rg !== null) {
    const single = await time(() => runExternal(rg, ["-j1", ...c.rg]));
    row("  vs rg on one thread (-j1)", ours.ms, single.ms, "rg -j1");
  }
  const inWorker = await timeInWorker(c.args);
  if (inWorker !== null) {
    row(`  same in a Worker (read grant)`, inWorker, theirs?.ms ?? null, "rg");
  }
}

const globOurs = await time(() => glob.run(glob.parameters.parse({ pattern: "**/*.ts" }), ctx));
const globTheirs = fd === null
  ? null
  : await time(() => runExternal(fd, ["--type", "f", "--glob", "*.ts", "."]));
row("glob **/*.ts", globOurs.ms, globTheirs?.ms ?? null, "fd");
console.log(
  `  files: ours ${resultCount(globOurs.result.output)}${
    globTheirs ? `, fd ${globTheirs.result}` : ""
  }`,
);
console.log(
  "Ours runs in-process via the plugin's run(); under a worker read grant each file read costs about 2x (Deno checks every path component).",
);
