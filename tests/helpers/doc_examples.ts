// The `@example` blocks of harness's own code, found and turned into modules that one test
// file imports and runs (tests/docs/doc_examples_test.ts). `deno test --doc` ran each block in
// its own isolate, and starting 640 isolates cost the suite minutes; here each block is still
// a module of its own, with its imports hoisted and resolved as Deno resolves them beside the
// documented file, and the documented module's exports in scope as `deno test --doc` gives
// them, but all run in one isolate.

import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

/** A fenced code block from a JSDoc comment. */
export interface DocExample {
  /** The file, relative to the root, with forward slashes. */
  file: string;
  /** The line of the opening fence and the line after the closing one (1-based). */
  lines: [number, number];
  /** The code's extension: ts, tsx, js or jsx. */
  lang: "ts" | "tsx" | "js" | "jsx";
  /** The code between the fences, without the comment's leading `*`. */
  code: string;
}

/** The folders and files whose examples run, as `deno task test` named them with `--doc`. */
export const DOC_EXAMPLE_ROOTS = ["main.ts", "src", "plugins", "scripts", "tests"] as const;

/** Files kept unchanged from other projects: their code blocks are not harness's examples. */
const SKIPPED_FOLDERS = ["tests/fixtures/real_files"];

const SOURCE = /\.(ts|tsx|js|mjs|jsx)$/;
const LANGS: Record<string, DocExample["lang"]> = {
  ts: "ts",
  typescript: "ts",
  mts: "ts",
  cts: "ts",
  tsx: "tsx",
  js: "js",
  javascript: "js",
  mjs: "js",
  cjs: "js",
  jsx: "jsx",
};

/**
 * Every source file under the roots that may hold examples, relative to `root`, sorted.
 *
 * @param root The repository's root folder.
 * @returns Paths with forward slashes.
 */
export function docExampleFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      const rel = relative(root, path).replaceAll("\\", "/");
      if (entry.isDirectory && !SKIPPED_FOLDERS.includes(rel)) walk(path);
      else if (entry.isFile && SOURCE.test(entry.name)) found.push(rel);
    }
  };
  for (const name of DOC_EXAMPLE_ROOTS) {
    const path = join(root, name);
    if (Deno.statSync(path).isDirectory) walk(path);
    else found.push(name);
  }
  return found.sort();
}

/**
 * The fenced blocks of the JSDoc comments of `text` that `deno test --doc` runs: a language of
 * js, ts, jsx or tsx (or their other names, or none: the file's own), and no `ignore`.
 *
 * @param file The file's path, for the examples' names.
 * @param text The file's text.
 * @returns The examples in source order.
 *
 * @example
 * ```ts
 * import { jsDocExamples } from "./doc_examples.ts";
 * const fence = "`".repeat(3);
 * const inner = [`${fence}ts`, "const x = 1;", fence, `${fence}ts ignore`, "no", fence];
 * const text = ["/" + "**", ...inner.map((line) => ` * ${line}`), " *" + "/"].join("\n");
 * const [one, ...rest] = jsDocExamples("a.ts", text);
 * if (rest.length !== 0 || one?.code !== "const x = 1;\n" || one.lines[0] !== 2) throw new Error();
 * ```
 */
export function jsDocExamples(file: string, text: string): DocExample[] {
  const lines = text.split("\n");
  const examples: DocExample[] = [];
  const own = (file.match(SOURCE)?.[1] ?? "ts").replace("mjs", "js") as DocExample["lang"];
  let inComment = false;
  let open: { line: number; fence: string; lang: DocExample["lang"] | undefined } | undefined;
  let code: string[] = [];
  lines.forEach((raw, i) => {
    if (!inComment) {
      inComment = /^\s*\/\*\*/.test(raw) && !raw.includes("*/", raw.indexOf("/**") + 3);
      return;
    }
    if (raw.includes("*/")) {
      inComment = false;
      open = undefined;
      return;
    }
    const line = raw.replace(/^\s*\* ?/, "");
    const fence = line.match(/^(`{3,})\s*(.*)$/);
    if (open === undefined) {
      if (!fence) return;
      const [lang = "", ...attributes] = fence[2]!.trim().split(/\s+/);
      const known = lang === "" ? own : LANGS[lang];
      open = {
        line: i + 1,
        fence: fence[1]!,
        lang: attributes.includes("ignore") || lang === "ignore" ? undefined : known,
      };
      code = [];
    } else if (fence && fence[1]!.length >= open.fence.length && fence[2]!.trim() === "") {
      if (open.lang) {
        examples.push({
          file,
          lines: [open.line, i + 2],
          lang: open.lang,
          code: code.map((l) => `${l}\n`).join(""),
        });
      }
      open = undefined;
    } else {
      code.push(line);
    }
  });
  return examples;
}

/** Import statements at the start of a line, over one or more lines. */
const IMPORT =
  /^import\s+(?:type\s+)?(?:[\w*${},\s]+?\s+from\s+)?(["'])([^"']+)\1[^\n;]*;?[ \t]*$/gm;

/**
 * The specifier as Deno resolves it beside the documented file: relative paths against the
 * file, bare names through the import map of deno.json; URLs and `node:` as they are.
 */
function resolveSpecifier(
  specifier: string,
  documented: URL,
  imports: Readonly<Record<string, string>>,
): string {
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    return new URL(specifier, documented).href;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) return specifier;
  const key = Object.keys(imports)
    .filter((name) => specifier === name || specifier.startsWith(`${name}/`))
    .sort((a, b) => b.length - a.length)[0];
  if (key === undefined) throw new Error(`The example imports "${specifier}": no import maps it`);
  return imports[key]! + specifier.slice(key.length);
}

/**
 * The names `text` exports (declarations and `export { ... }` lists), for the examples that
 * use one without importing it.
 *
 * @param text A module's source.
 * @returns The exported names, without `default`.
 *
 * @example
 * ```ts
 * import { exportedNames } from "./doc_examples.ts";
 * const text = "export function a() {}\nexport const b = 1;\nconst c = 2;\nexport { c as d };\n";
 * if (exportedNames(text).join() !== "a,b,d") throw new Error();
 * ```
 */
export function exportedNames(text: string): string[] {
  const names = new Set<string>();
  const declared =
    /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
  for (const match of text.matchAll(declared)) names.add(match[1]!);
  for (const list of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const item of list[1]!.split(",")) {
      const name = item.trim().split(/\s+as\s+/).at(-1)!.replace(/^type\s+/, "");
      if (name && name !== "default") names.add(name);
    }
  }
  return [...names];
}

/**
 * The module that runs one example, shaped as `deno test --doc` shapes it: its imports hoisted
 * and resolved, an import of the documented module's exports that the example uses without
 * importing them, and the rest in an async function the module exports as default.
 *
 * @param example The example.
 * @param options root: the repository's root; exports: the documented module's export names;
 *   imports: deno.json's import map.
 * @returns TypeScript or JavaScript source, in the example's language.
 *
 * @example
 * ```ts
 * import { exampleModule } from "./doc_examples.ts";
 * const example = { file: "src/a.ts", lines: [1, 4] as [number, number], lang: "ts" as const,
 *   code: 'import { b } from "./b.ts";\nb(a());\n' };
 * const source = exampleModule(example, { root: "/r", exports: ["a", "b", "c"], imports: {} });
 * if (!source.includes('import { b } from "file:///r/src/b.ts";')) throw new Error(source);
 * if (!source.includes('import { a } from "file:///r/src/a.ts";')) throw new Error(source);
 * ```
 */
export function exampleModule(
  example: DocExample,
  options: { root: string; exports: readonly string[]; imports: Readonly<Record<string, string>> },
): string {
  const documented = pathToFileURL(join(options.root, example.file));
  const hoisted: string[] = [];
  const body = example.code.replace(IMPORT, (statement, quote: string, specifier: string) => {
    const resolved = resolveSpecifier(specifier, documented, options.imports);
    hoisted.push(statement.replace(`${quote}${specifier}${quote}`, JSON.stringify(resolved)));
    return "";
  });
  const bound = new Set(hoisted.flatMap((statement) => statement.match(/[\w$]+/g) ?? []));
  const used = options.exports.filter((name) =>
    !bound.has(name) &&
    new RegExp(`(?<![\\w$.])${name.replaceAll("$", "\\$")}(?![\\w$])`).test(body)
  );
  if (used.length) {
    hoisted.push(`import { ${used.join(", ")} } from ${JSON.stringify(documented.href)};`);
  }
  return [...hoisted, "export default async function () {", body, "}", ""].join("\n");
}
