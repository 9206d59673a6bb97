// End-to-end search timing, as a user meets it: `harness tool grep_search|glob JSON
// --allow-read=.` run as a process in a tree, minus harness's own start-up (the median of a
// trivial tool call in the same run), with rg and fd on PATH (they run in the command sandbox)
// and without them (the built-in search), against `rg -i -n PATTERN` and `fdfind --glob` on
// the same tree in the same run. Used by search_bench.ts (`--tree DIR`); medians of N runs.

import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

/** One grep case: our tool's arguments and ripgrep's equivalent. */
export interface GrepCase {
  label: string;
  args: Record<string, unknown>;
  rg: string[];
}

/** Rare literal, common word, and a wildcard (regex for rg); case-insensitive like `rg -i`. */
export const E2E_GREP_CASES: GrepCase[] = [
  {
    label: "rare literal",
    args: { pattern: "XMLHttpRequest", max_results: 1000 },
    rg: ["-i", "-n", "XMLHttpRequest"],
  },
  {
    label: "common word (cap 200)",
    args: { pattern: "return", max_results: 200 },
    rg: ["-i", "-n", "return"],
  },
  {
    label: "wildcard / regex",
    args: { pattern: "deprecated*since", max_results: 1000 },
    rg: ["-i", "-n", "deprecated.*since"],
  },
];

/** The glob case for a pattern `**\/NAME-GLOB` (default `**\/*.ts`) and fd's equivalent. */
export function globCase(pattern = "**/*.ts"): { label: string; args: unknown; fd: string[] } {
  const name = pattern.replace(/^\*\*\//, "");
  if (name.includes("/")) {
    throw new Error(`--glob "${pattern}": give **/NAME, e.g. **/*.py (fd matches file names)`);
  }
  // The tool lists links too (as the built-in walk does).
  return { label: pattern, args: { pattern }, fd: ["--type", "f", "--type", "l", "--glob", name] };
}

/** The glob case and fd's equivalent. */
export const E2E_GLOB_CASE = globCase();

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs a process in `cwd`; returns wall ms and stdout. */
function run(
  cwd: string,
  command: string,
  args: string[],
  env?: Record<string, string>,
): { ms: number; out: string } {
  const start = performance.now();
  const result = new Deno.Command(command, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    ...(env ? { env, clearEnv: true } : {}),
  }).outputSync();
  const ms = performance.now() - start;
  if (result.code > 1) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${result.code}: ${
        new TextDecoder().decode(result.stderr).slice(0, 500)
      }`,
    );
  }
  return { ms, out: new TextDecoder().decode(result.stdout) };
}

function harnessTool(
  tree: string,
  name: string,
  args: unknown,
  env?: Record<string, string>,
): { ms: number; out: string } {
  return run(tree, Deno.execPath(), [
    "run",
    "-A",
    "--no-prompt",
    "--unstable-worker-options",
    MAIN,
    "tool",
    name,
    JSON.stringify(args),
    "--allow-read=.",
  ], env);
}

/**
 * harness's environment with a PATH that has deno and bubblewrap but no rg or fd, so the
 * search tools fall back to the built-in search; the folder is removed by the caller.
 */
function withoutSearchPrograms(): { env: Record<string, string>; bin: string } {
  const bin = Deno.makeTempDirSync({ prefix: "harness_bench_path_" });
  Deno.symlinkSync(Deno.execPath(), `${bin}/deno`);
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      Deno.statSync(`${dir}/bwrap`);
      Deno.symlinkSync(`${dir}/bwrap`, `${bin}/bwrap`);
      break;
    } catch { /* not here */ }
  }
  return { env: { ...Deno.env.toObject(), PATH: bin }, bin };
}

/** The tool's text result from `harness tool`'s JSON output. */
function toolText(out: string): string {
  try {
    const parsed = JSON.parse(out) as { data?: unknown; error?: { message?: string } };
    return typeof parsed.data === "string" ? parsed.data : JSON.stringify(parsed).slice(0, 300);
  } catch {
    return out.slice(0, 300);
  }
}

function lineCount(text: string): number {
  return text === "" ? 0 : text.trimEnd().split("\n").length;
}

function findBinary(names: string[]): string | null {
  for (const name of names) {
    try {
      const ok = new Deno.Command(name, { args: ["--version"], stdout: "null", stderr: "null" })
        .outputSync().success;
      if (ok) return name;
    } catch { /* not installed */ }
  }
  return null;
}

/** One row of the end-to-end table. */
export interface E2ERow {
  label: string;
  /** Our tool's wall time minus start-up (the trivial call's median), ms; rg/fd on PATH. */
  ours: number;
  /**
   * The median over the rounds of our tool's wall time minus the trivial call's in the same
   * round: less moved by load that changes from one round to the next.
   */
  oursPaired: number;
  /** The tool's own time inside its sandbox worker (`execution_time_ms`), ms; rg/fd on PATH. */
  inWorker: number;
  /** The same without rg and fd on PATH (the built-in search), ms. */
  builtin: number;
  builtinInWorker: number;
  theirs: number;
  /** First line of our result, and how many lines the other tool printed. */
  oursSummary: string;
  /** Whether the built-in search gave the same first line. */
  sameAnswer: boolean;
  theirsCount: number;
}

/** `execution_time_ms` of `harness tool`'s JSON output (the tool's run in its worker). */
function executionMs(out: string): number {
  try {
    return (JSON.parse(out) as { metadata?: { execution_time_ms?: number } }).metadata
      ?.execution_time_ms ?? NaN;
  } catch {
    return NaN;
  }
}

/** The timings of one command over the runs, and its last output. */
interface Timed {
  ms: number[];
  inWorker: number[];
  out: string;
}

/**
 * Times the commands in turn (one warm-up each, then `runs` rounds), so load from other
 * processes falls on all alike.
 */
function alternate(runs: number, commands: (() => { ms: number; out: string })[]): Timed[] {
  const timed: Timed[] = commands.map((command) => ({ ms: [], inWorker: [], out: command().out }));
  for (let i = 0; i < runs; i++) {
    commands.forEach((command, at) => {
      const { ms, out } = command();
      timed[at]!.ms.push(ms);
      timed[at]!.inWorker.push(executionMs(out));
      timed[at]!.out = out;
    });
  }
  return timed;
}

/** The 1-minute load average (Linux), or "n/a". */
function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ")[0]!;
  } catch {
    return "n/a";
  }
}

function ratio(ours: number, theirs: number): string {
  return Number.isFinite(ours / theirs) ? `${(ours / theirs).toFixed(2)}x` : "n/a";
}

/**
 * Times the cases end to end in `tree` and prints a table with ratios against rg and fd.
 *
 * @param tree A folder to search (a git repository makes rg and fd honour .gitignore too).
 * @param runs Timed runs per case after one warm-up.
 * @param only Only the cases whose label contains one of these (all when empty).
 * @param glob The glob case (default `**\/*.ts`).
 * @returns The rows printed.
 */
export function runEndToEnd(
  tree: string,
  runs: number,
  only: readonly string[] = [],
  glob = E2E_GLOB_CASE,
): E2ERow[] {
  const rg = findBinary(["rg"]);
  const fd = findBinary(["fd", "fdfind"]);
  if (rg === null) console.log("ripgrep (rg) is NOT installed: apt-get install ripgrep");
  if (fd === null) console.log("fd is NOT installed: apt-get install fd-find (binary fdfind)");
  const hidden = withoutSearchPrograms();
  try {
    console.log(
      `\nEnd to end in ${tree}, ${runs} rounds, medians. Each round runs a trivial tool call, ` +
        `the case with rg and fd on PATH (run in the command sandbox), without them (built-in) ` +
        `and bare rg/fd, in turn. "ours" = wall time of \`harness tool\` minus the trivial ` +
        `call's (start-up), medians; "paired" = the median of that difference round by round; ` +
        `"worker" = the tool's execution_time_ms inside its sandbox worker.`,
    );
    const startups: number[] = [];
    const loadAtStart = loadAverage();
    const cases = [
      ...E2E_GREP_CASES.map((c) => ({
        label: `grep ${c.label}`,
        name: "grep_search",
        args: c.args,
        theirs: rg === null ? null : () => run(tree, rg, c.rg),
      })),
      {
        label: `glob ${glob.label}`,
        name: "glob",
        args: glob.args,
        theirs: fd === null ? null : () => run(tree, fd, glob.fd),
      },
    ];
    const chosen = cases.filter((c) => only.length === 0 || only.some((o) => c.label.includes(o)));
    const rows: E2ERow[] = chosen.map((c) => {
      const [trivial, ours, builtin, theirs] = alternate(runs, [
        () => harnessTool(tree, "get_current_time", {}),
        () => harnessTool(tree, c.name, c.args),
        () => harnessTool(tree, c.name, c.args, hidden.env),
        ...(c.theirs ? [c.theirs] : []),
      ]);
      const startup = median(trivial!.ms);
      startups.push(startup);
      const summary = toolText(ours!.out).split("\n")[0]!;
      return {
        label: c.label,
        ours: median(ours!.ms) - startup,
        oursPaired: median(ours!.ms.map((ms, round) => ms - trivial!.ms[round]!)),
        inWorker: median(ours!.inWorker),
        builtin: median(builtin!.ms) - startup,
        builtinInWorker: median(builtin!.inWorker),
        theirs: theirs ? median(theirs.ms) : NaN,
        oursSummary: summary,
        sameAnswer: toolText(builtin!.out).split("\n")[0] === summary,
        theirsCount: theirs ? lineCount(theirs.out) : 0,
      };
    });
    console.log(
      `${"case".padEnd(28)} ${"ours".padStart(6)} ${"worker".padStart(6)} ${"rg/fd".padStart(6)} ${
        "ratio".padStart(6)
      } ${"paired".padStart(6)} ${"worker".padStart(6)} ${"built-in".padStart(8)} ${
        "worker".padStart(6)
      } ${"ratio".padStart(6)}  results (ours | lines theirs printed)`,
    );
    console.log(
      `(start-up, the trivial call per case: ${
        startups.map((ms) => ms.toFixed(0)).join(", ")
      } ms; load average ${loadAtStart} at the start, ${loadAverage()} at the end)`,
    );
    for (const row of rows) {
      console.log(
        `${row.label.padEnd(28)} ${row.ours.toFixed(0).padStart(6)} ${
          row.inWorker.toFixed(0).padStart(6)
        } ${row.theirs.toFixed(0).padStart(6)} ${ratio(row.ours, row.theirs).padStart(6)} ${
          ratio(row.oursPaired, row.theirs).padStart(6)
        } ${ratio(row.inWorker, row.theirs).padStart(6)} ${row.builtin.toFixed(0).padStart(8)} ${
          row.builtinInWorker.toFixed(0).padStart(6)
        } ${ratio(row.builtin, row.theirs).padStart(6)}  ${row.oursSummary.slice(0, 50)}${
          row.sameAnswer ? "" : " (built-in differs!)"
        } | ${row.theirsCount}`,
      );
    }
    return rows;
  } finally {
    Deno.removeSync(hidden.bin, { recursive: true });
  }
}
