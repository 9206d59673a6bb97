// scripts/slowest_tests.ts: reads the junit report a real `deno test --junit-path` run writes
// (names unescaped, steps kept out of the ranking, failures counted), ranks tests and files,
// and compares two reports row by row.

import { deepStrictEqual as assertEquals, match, ok as assert } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatRows, parseJunit, slowest, timedRows } from "../../scripts/slowest_tests.ts";

const SCRIPT = fileURLToPath(new URL("../../scripts/slowest_tests.ts", import.meta.url));

async function run(args: string[], cwd?: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    ...(cwd === undefined ? {} : { cwd }),
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** A junit report written by hand: the times are what the ranking tests need. */
function report(time: number, cases: [file: string, name: string, seconds: number][]): string {
  const byFile = Map.groupBy(cases, ([file]) => file);
  const suites = [...byFile].map(([file, tests]) =>
    `<testsuite name="${file}">` +
    tests.map(([, name, s]) => `<testcase name="${name}" time="${s}"></testcase>`).join("") +
    "</testsuite>"
  );
  return `<testsuites name="deno test" time="${time}">${suites.join("")}</testsuites>`;
}

Deno.test("slowest_tests.ts reads what deno test --junit-path writes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "harness_slowest_" });
  try {
    await Deno.writeTextFile(
      join(dir, "a_test.ts"),
      'Deno.test("adds & <compares>", async (t) => {\n' +
        '  await t.step("a \\"quoted\\" step", () => {});\n});\n' +
        'Deno.test("fails", () => { throw new Error("boom"); });\n',
    );
    const xml = join(dir, "report.xml");
    const test = await run(["test", "--no-check", `--junit-path=${xml}`, "a_test.ts"], dir);
    assertEquals(test.code, 1, test.stderr);
    const parsed = parseJunit(await Deno.readTextFile(xml));
    assertEquals(
      parsed.tests.map(({ file, name, failed }) => ({ file, name, failed })),
      [
        { file: "./a_test.ts", name: "adds & <compares>", failed: false },
        { file: "./a_test.ts", name: "fails", failed: true },
        { file: "./a_test.ts", name: 'adds & <compares> > a "quoted" step', failed: false },
      ],
    );
    assert(parsed.seconds > 0, String(parsed.seconds));
    // The step's time is inside its test's: ranked are the two tests only.
    assertEquals(timedRows(parsed.tests, false).map((row) => row.name).sort(), [
      "adds & <compares>",
      "fails",
    ]);
    const script = await run(["run", "-A", SCRIPT, "--top", "5", xml]);
    assertEquals(script.code, 0, script.stderr);
    match(script.stdout, /: 3 tests and steps \(1 failed\), \d+ s\n/);
    match(script.stdout, /^ +\d+\.\d {2}a_test\.ts {2}adds & <compares>$/m);
    assert(!script.stdout.includes("quoted"), script.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("slowest_tests.ts ranks tests and files, and compares with --before", () => {
  const before = parseJunit(report(60, [
    ["./tests/a_test.ts", "slow e2e", 50],
    ["./tests/a_test.ts", "quick", 1],
    ["./tests/b_test.ts", "merged away", 20],
    ["./tests/b_test.ts", "steady", 9],
  ]));
  const after = parseJunit(report(30, [
    ["./tests/a_test.ts", "slow e2e", 12],
    ["./tests/a_test.ts", "quick", 1],
    ["./tests/b_test.ts", "steady", 9.5],
    ["./tests/c_test.ts", "new", 3],
  ]));
  assertEquals(after.seconds, 30);
  const top = (rows: ReturnType<typeof slowest>) => rows.map((r) => [r.name, r.before, r.seconds]);
  assertEquals(top(slowest(timedRows(after.tests, false), undefined, 2)), [
    ["slow e2e", undefined, 12],
    ["steady", undefined, 9.5],
  ]);
  // The union of both runs' two slowest, slowest run first; a test one run lacks shows "-".
  const compared = slowest(timedRows(after.tests, false), timedRows(before.tests, false), 2);
  assertEquals(top(compared), [
    ["slow e2e", 50, 12],
    ["merged away", 20, Number.NaN],
    ["steady", 9, 9.5],
  ]);
  assertEquals(formatRows(compared, true), [
    "   50.0    12.0  tests/a_test.ts  slow e2e",
    "   20.0       -  tests/b_test.ts  merged away",
    "    9.0     9.5  tests/b_test.ts  steady",
  ]);
  const files = slowest(timedRows(after.tests, true), timedRows(before.tests, true), 3);
  assertEquals(formatRows(files, true), [
    "   51.0    13.0  tests/a_test.ts",
    "   29.0     9.5  tests/b_test.ts",
    "      -     3.0  tests/c_test.ts",
  ]);
});

Deno.test("slowest_tests.ts refuses what is not a junit report, and bad options", async () => {
  const dir = await Deno.makeTempDir({ prefix: "harness_slowest_" });
  try {
    const notXml = join(dir, "out.txt");
    await Deno.writeTextFile(notXml, "ok | 3 passed | 0 failed\n");
    const bad = await run(["run", "-A", SCRIPT, notXml]);
    assertEquals(bad.code, 1);
    assertEquals(
      bad.stderr.trim(),
      `Cannot read junit report "${notXml}": Not a junit report: no <testsuites> element`,
    );
    const missing = await run(["run", "-A", SCRIPT, join(dir, "none.xml")]);
    assertEquals(missing.code, 1);
    match(missing.stderr, /^Cannot read junit report ".*none\.xml": No such file/);
    assert(!missing.stderr.includes("    at "), missing.stderr);
    const top = await run(["run", "-A", SCRIPT, "--top", "0", notXml]);
    assertEquals(top.code, 2);
    match(top.stderr, /whole --top above 0 \(got "0"\)\nUsage: /);
    const unknown = await run(["run", "-A", SCRIPT, "--slow", notXml]);
    assertEquals(unknown.code, 2);
    match(unknown.stderr, /Unknown option '--slow'[^]*Usage: /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
