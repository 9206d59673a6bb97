// End-to-end search timing, as a user meets it: `harness tool grep_search|glob JSON
// --allow-read=.` run as a process in a tree, minus harness's own start-up (the median of a
// trivial tool call in the same run), against `rg -i -n PATTERN` and `fdfind --glob` on the
// same tree in the same run. Used by search_bench.ts (`--tree DIR`); medians of N runs.

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

/** The glob case and fd's equivalent. */
export const E2E_GLOB_CASE = {
  label: "**/*.ts",
  args: { pattern: "**/*.ts" },
  fd: ["--type", "f", "--glob", "*.ts"],
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs a process in `cwd`; returns wall ms and stdout. */
function run(cwd: string, command: string, args: string[]): { ms: number; out: string } {
  const start = performance.now();
  const result = new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .outputSync();
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

/** Median wall ms of `runs` runs after one warm-up, and the last output. */
function timed(runs: number, fn: () => { ms: number; out: string }): { ms: number; out: string } {
  let last = fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    last = fn();
    times.push(last.ms);
  }
  return { ms: median(times), out: last.out };
}

function harnessTool(tree: string, name: string, args: unknown): { ms: number; out: string } {
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
  ]);
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
  /** Our tool's wall time minus start-up, ms. */
  ours: number;
  theirs: number;
  ratio: number;
  /** First line of our result, and how many lines (or files) the other tool printed. */
  oursSummary: string;
  theirsCount: number;
}

/**
 * Times the cases end to end in `tree` and prints a table with ratios.
 *
 * @param tree A folder to search (a git repository makes rg and fd honour .gitignore too).
 * @param runs Timed runs per case after one warm-up.
 * @returns The rows printed.
 */
export function runEndToEnd(tree: string, runs: number): E2ERow[] {
  const rg = findBinary(["rg"]);
  const fd = findBinary(["fd", "fdfind"]);
  const startup = timed(runs, () => harnessTool(tree, "get_current_time", {})).ms;
  console.log(
    `\nEnd to end in ${tree}: \`harness tool\` minus start-up (${
      startup.toFixed(0)
    } ms, a trivial tool call), against rg and fd in the same run; ${runs} runs, medians`,
  );
  const rows: E2ERow[] = [];
  for (const c of E2E_GREP_CASES) {
    const ours = timed(runs, () => harnessTool(tree, "grep_search", c.args));
    const theirs = rg === null ? null : timed(runs, () => run(tree, rg, c.rg));
    const text = toolText(ours.out);
    rows.push({
      label: `grep ${c.label}`,
      ours: ours.ms - startup,
      theirs: theirs?.ms ?? NaN,
      ratio: theirs === null ? NaN : (ours.ms - startup) / theirs.ms,
      oursSummary: text.split("\n")[0]!,
      theirsCount: theirs === null ? 0 : lineCount(theirs.out),
    });
  }
  {
    const ours = timed(runs, () => harnessTool(tree, "glob", E2E_GLOB_CASE.args));
    const theirs = fd === null ? null : timed(runs, () => run(tree, fd, E2E_GLOB_CASE.fd));
    rows.push({
      label: `glob ${E2E_GLOB_CASE.label}`,
      ours: ours.ms - startup,
      theirs: theirs?.ms ?? NaN,
      ratio: theirs === null ? NaN : (ours.ms - startup) / theirs.ms,
      oursSummary: toolText(ours.out).split("\n")[0]!,
      theirsCount: theirs === null ? 0 : lineCount(theirs.out),
    });
  }
  if (rg === null) console.log("ripgrep (rg) is NOT installed: apt-get install ripgrep");
  if (fd === null) console.log("fd is NOT installed: apt-get install fd-find (binary fdfind)");
  console.log(
    `${"case".padEnd(30)} ${"ours ms".padStart(8)} ${"rg/fd ms".padStart(9)} ${
      "ratio".padStart(6)
    }  results (ours | lines theirs printed)`,
  );
  for (const row of rows) {
    console.log(
      `${row.label.padEnd(30)} ${row.ours.toFixed(0).padStart(8)} ${
        row.theirs.toFixed(0).padStart(9)
      } ${`${row.ratio.toFixed(2)}x`.padStart(6)}  ${
        row.oursSummary.slice(0, 60)
      } | ${row.theirsCount}`,
    );
  }
  return rows;
}
