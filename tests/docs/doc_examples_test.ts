// Every `@example` of harness's own code runs, one test each. They used to run under
// `deno test --doc`, which starts an isolate for each of the 640 blocks; here they share this
// file's isolate (tests/helpers/doc_examples.ts shapes each block as Deno did). `deno task
// check` type-checks the examples of main.ts, src/, plugins/ and scripts/ (`deno check --doc`);
// those of tests/ are type-checked here (`deno check --doc-only`, started when this file
// loads and awaited by the last test).

import { deepStrictEqual as assertEquals, ok as assert, rejects } from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type DocExample,
  docExampleFiles,
  exampleModule,
  exportedNames,
  jsDocExamples,
} from "../helpers/doc_examples.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const IMPORTS: Record<string, string> =
  JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).imports;

const sources = new Map(
  docExampleFiles(ROOT).map((file) => [file, Deno.readTextFileSync(join(ROOT, file))]),
);
const examples = [...sources].flatMap(([file, text]) => jsDocExamples(file, text));

// The type check of the examples `deno task check` leaves out runs beside the examples; the
// last test awaits it.
const unchecked = new Set(examples.map((e) => e.file).filter((file) => file.startsWith("tests/")));
const checked = new Deno.Command(Deno.execPath(), {
  args: ["check", "--quiet", "--doc-only", ...unchecked],
  cwd: ROOT,
  env: { NO_COLOR: "1" },
  stdout: "piped",
  stderr: "piped",
}).output();

/** Imports the example's module (a data: URL) and runs it. */
async function runExample(example: DocExample): Promise<void> {
  const source = exampleModule(example, {
    root: ROOT,
    exports: exportedNames(sources.get(example.file) ?? ""),
    imports: IMPORTS,
  });
  const type = example.lang.startsWith("ts") ? "typescript" : "javascript";
  const module = await import(`data:application/${type},${encodeURIComponent(source)}`);
  await module.default();
}

for (const example of examples) {
  Deno.test(`${example.file}#${example.lines.join("-")}`, () => runExample(example));
}

Deno.test("doc examples: blocks marked ignore, in other languages or in prose are not run", () => {
  const text = [
    "/**",
    " * Text with ```` ```json ```` inline.",
    " *",
    " * ```ts",
    " * import { a } from './a.ts';",
    " * a();",
    " * ```",
    " * ```ts ignore",
    " * broken(",
    " * ```",
    " * ```json",
    " * {}",
    " * ```",
    " * ````",
    " * const fenced = '```';",
    " * ````",
    " */",
    "export function a() {}",
    "// ```ts",
    "// not(a, comment, block)",
    "// ```",
  ].join("\n");
  const found = jsDocExamples("src/x.ts", text);
  assertEquals(found, [
    { file: "src/x.ts", lines: [4, 8], lang: "ts", code: "import { a } from './a.ts';\na();\n" },
    { file: "src/x.ts", lines: [14, 17], lang: "ts", code: "const fenced = '```';\n" },
  ]);
});

Deno.test("doc examples: a failing or broken example fails its test", async () => {
  const example = (code: string): DocExample => ({
    file: "src/errors.ts",
    lines: [1, 3],
    lang: "ts",
    code,
  });
  await rejects(runExample(example("throw new Error('the example is wrong');\n")), /is wrong/);
  await rejects(
    runExample(example('import { nothing } from "./no_such_file.ts";\nnothing();\n')),
    /Module not found "file:\/\/\/.*\/src\/no_such_file\.ts"/,
  );
  // Resolution as beside the documented file, and the import map for bare names.
  await runExample(example('import { join } from "node:path";\nif (!join) throw 0;\n'));
  await runExample(example('import { z } from "zod";\nz.string().parse("x");\n'));
});

Deno.test("doc examples: the examples of tests/ type-check with deno check --doc-only", async () => {
  assert(examples.length > 600, `only ${examples.length} examples found`);
  assert(unchecked.size > 10, `only ${unchecked.size} files of tests/ have examples`);
  const out = await checked;
  const decoder = new TextDecoder();
  assert(out.success, decoder.decode(out.stdout) + decoder.decode(out.stderr));
});
