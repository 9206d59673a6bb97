// The slowest tests of a run, read from `deno test --junit-path=FILE` (or `--reporter=junit`)
// output: the N slowest tests with their file and seconds, or the N slowest files (their tests'
// seconds summed). Given a second report with --before, each row shows both runs' seconds, so a
// change to the suite's time can be shown test by test.
//
//   deno run -A scripts/slowest_tests.ts [--top N] [--files] [--before OLD.xml] REPORT.xml

import { parseArgs } from "node:util";

const USAGE = "Usage: deno run -A scripts/slowest_tests.ts [--top N] [--files] " +
  "[--before OLD.xml] REPORT.xml\n" +
  "  REPORT.xml    what deno test --junit-path=REPORT.xml (or --reporter=junit) wrote\n" +
  "  --top N       how many rows (default 20)\n" +
  "  --files       rank test files by their tests' seconds summed, not single tests\n" +
  "  --before OLD  an earlier report: each row shows its seconds too (- where it has none)";

/** One test of a junit report. */
export interface TestTime {
  /** The test file as deno test names it (`./tests/x/y_test.ts`). */
  file: string;
  /** The test's name (a step's is `test > step`). */
  name: string;
  seconds: number;
  failed: boolean;
}

/** What a junit report holds: its tests and the run's total seconds. */
export interface JunitReport {
  tests: TestTime[];
  /** The `time` of `<testsuites>`: the run's wall time as deno test measured it. */
  seconds: number;
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, entity: string) => {
    if (entity.startsWith("#x") || entity.startsWith("#X")) {
      return String.fromCodePoint(parseInt(entity.slice(2), 16));
    }
    if (entity.startsWith("#")) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return ENTITIES[entity] ?? whole;
  });
}

function attribute(tag: string, name: string): string | undefined {
  const value = new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
  return value === undefined ? undefined : unescapeXml(value);
}

/**
 * Reads the tests of a junit report as deno test writes it: `<testsuite name=FILE>` holding
 * `<testcase name=... time=...>` elements, a failed one holding `<failure>`.
 *
 * @param xml The report's text.
 * @returns Its tests in report order and the run's seconds.
 * @throws {Error} When the text holds no `<testsuites>` element (not a junit report).
 *
 * @example
 * ```ts
 * import { parseJunit } from "./slowest_tests.ts";
 * const report = parseJunit(
 *   '<testsuites time="2.5"><testsuite name="./a_test.ts">' +
 *     '<testcase name="adds &amp; subtracts" time="1.250"></testcase>' +
 *     "</testsuite></testsuites>",
 * );
 * if (report.tests[0]?.name !== "adds & subtracts" || report.seconds !== 2.5) throw new Error();
 * ```
 */
export function parseJunit(xml: string): JunitReport {
  const suites = /<testsuites\b[^>]*>/.exec(xml);
  if (suites === null) throw new Error("Not a junit report: no <testsuites> element");
  const tests: TestTime[] = [];
  const elements = /<testsuite\b[^>]*>|<testcase\b[^>]*?(\/?)>|<failure\b|<\/testcase>/g;
  let file = "";
  let open: TestTime | undefined;
  for (const match of xml.matchAll(elements)) {
    const tag = match[0];
    if (tag.startsWith("<testsuite ") || tag === "<testsuite>") {
      file = attribute(tag, "name") ?? "";
    } else if (tag.startsWith("<testcase")) {
      const test: TestTime = {
        file,
        name: attribute(tag, "name") ?? "",
        seconds: Number(attribute(tag, "time") ?? 0),
        failed: false,
      };
      tests.push(test);
      open = match[1] === "/" ? undefined : test;
    } else if (tag === "<failure" && open !== undefined) {
      open.failed = true;
    } else if (tag === "</testcase>") {
      open = undefined;
    }
  }
  return { tests, seconds: Number(attribute(suites[0], "time") ?? 0) };
}

/** A ranked row: a test (or a file, with `name` empty) and its seconds in one or two runs. */
export interface SlowRow {
  file: string;
  name: string;
  seconds: number;
  /** The same row's seconds in the --before report; undefined where it has none. */
  before?: number;
}

/** Whether a test is a step of another test of its file (its time is inside its test's). */
function stepsOf(tests: readonly TestTime[]): Set<TestTime> {
  const names = new Set(tests.map((test) => `${test.file}\0${test.name}`));
  return new Set(tests.filter((test) => {
    const parts = test.name.split(" > ");
    for (let i = parts.length - 1; i > 0; i--) {
      if (names.has(`${test.file}\0${parts.slice(0, i).join(" > ")}`)) return true;
    }
    return false;
  }));
}

/**
 * Whole tests (steps left out: their time is inside their test's) or files with their seconds.
 *
 * @param tests A report's tests.
 * @param files Sum each file's tests instead.
 * @returns One row per test or per file, slowest first.
 */
export function timedRows(tests: readonly TestTime[], files: boolean): SlowRow[] {
  const steps = stepsOf(tests);
  const rows = new Map<string, SlowRow>();
  for (const test of tests) {
    if (steps.has(test)) continue;
    const name = files ? "" : test.name;
    const key = `${test.file}\0${name}`;
    const row = rows.get(key) ?? { file: test.file, name, seconds: 0 };
    row.seconds += test.seconds;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => b.seconds - a.seconds);
}

/**
 * The `top` slowest rows of `after`; with `before`, also the slowest of `before` (a test made
 * cheap drops out of the first list), each with its seconds in both runs, slowest run first.
 *
 * @param after The rows of the report to rank.
 * @param before The rows of an earlier report, if any.
 * @param top How many rows of each report.
 * @returns The rows to print.
 */
export function slowest(after: SlowRow[], before: SlowRow[] | undefined, top: number): SlowRow[] {
  if (before === undefined) return after.slice(0, top);
  const key = (row: SlowRow) => `${row.file}\0${row.name}`;
  const beforeSeconds = new Map(before.map((row) => [key(row), row.seconds]));
  const afterSeconds = new Map(after.map((row) => [key(row), row.seconds]));
  const picked = new Map<string, SlowRow>();
  for (const row of [...after.slice(0, top), ...before.slice(0, top)]) {
    const seconds = afterSeconds.get(key(row));
    const was = beforeSeconds.get(key(row));
    picked.set(key(row), {
      file: row.file,
      name: row.name,
      seconds: seconds ?? Number.NaN,
      ...(was === undefined ? {} : { before: was }),
    });
  }
  const slowestRun = (row: SlowRow) => Math.max(row.before ?? 0, row.seconds || 0);
  return [...picked.values()].sort((a, b) => slowestRun(b) - slowestRun(a));
}

function seconds(value: number | undefined): string {
  return value === undefined || Number.isNaN(value)
    ? "-".padStart(7)
    : value.toFixed(1).padStart(7);
}

/**
 * The table: seconds (before and after with --before), file, test name.
 *
 * @param rows What {@linkcode slowest} picked.
 * @param compared Whether there is a before column.
 * @returns One line per row.
 */
export function formatRows(rows: readonly SlowRow[], compared: boolean): string[] {
  return rows.map((row) => {
    const file = row.file.replace(/^\.\//, "");
    const times = compared
      ? `${seconds(row.before)} ${seconds(row.seconds)}`
      : seconds(row.seconds);
    return row.name === "" ? `${times}  ${file}` : `${times}  ${file}  ${row.name}`;
  });
}

function summary(path: string, report: JunitReport): string {
  const failed = report.tests.filter((test) => test.failed).length;
  return `${path}: ${report.tests.length} tests and steps (${failed} failed), ` +
    `${report.seconds.toFixed(0)} s`;
}

async function readReport(path: string): Promise<JunitReport> {
  try {
    return parseJunit(await Deno.readTextFile(path));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot read junit report "${path}": ${message}`);
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        top: { type: "string", default: "20" },
        files: { type: "boolean", default: false },
        before: { type: "string" },
      },
    });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : error}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const top = Number(values.top);
  if (positionals.length !== 1 || !Number.isInteger(top) || top < 1) {
    console.error(`Expected one report and a whole --top above 0 (got "${values.top}")\n${USAGE}`);
    return 2;
  }
  const path = positionals[0]!;
  try {
    const after = await readReport(path);
    const before = values.before === undefined ? undefined : await readReport(values.before);
    if (before !== undefined) console.log(`before: ${summary(values.before!, before)}`);
    console.log(`${before === undefined ? "" : "after:  "}${summary(path, after)}`);
    const rows = slowest(
      timedRows(after.tests, values.files),
      before && timedRows(before.tests, values.files),
      top,
    );
    const head = before === undefined ? "      s" : " before   after";
    console.log(`${head}  ${values.files ? "file" : "file  test"}`);
    for (const line of formatRows(rows, before !== undefined)) console.log(line);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
