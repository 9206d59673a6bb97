// Grammar coverage: every language's sample file (tests/fixtures/code_index) yields the
// definitions and references its tags query promises.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadGrammarAssets } from "../../src/code_index/grammar_assets.ts";
import { grammarFor } from "../../src/code_index/languages.ts";
import { SymbolParser } from "../../src/code_index/symbol_parser.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/code_index/", import.meta.url));
let parser: Promise<SymbolParser> | undefined;

async function symbolsOf(file: string) {
  parser ??= loadGrammarAssets().then((assets) => SymbolParser.create(assets));
  const grammar = grammarFor(file);
  assert(grammar, `no grammar for ${file}`);
  return await (await parser).parse(grammar, await Deno.readTextFile(FIXTURES + file));
}

async function definitions(file: string): Promise<string[]> {
  return (await symbolsOf(file)).definitions.map((d) => `${d.kind}:${d.name}@${d.line}`);
}

async function references(file: string): Promise<string[]> {
  return (await symbolsOf(file)).references.map((r) => `${r.name}@${r.line}`);
}

const EXPECTED: Record<string, { defs: string[]; refs: string[] }> = {
  "sample.ts": {
    defs: [
      "interface:Shape@3",
      "type:Point@7",
      "enum:Color@9",
      "class:Base@13",
      "method:describe@14",
      "class:Circle@17",
      "method:constructor@18",
      "method:area@21",
      "method:describe@24",
      "function:makeCircle@29",
      "constant:double@33",
      "module:Geometry@35",
    ],
    refs: ["Base@17", "Shape@17", "helper@25", "area@25", "Circle@29", "Circle@30"],
  },
  "sample.tsx": { defs: ["function:Button@1", "class:Panel@4"], refs: ["track@2"] },
  "sample.js": {
    defs: [
      "class:Stack@1",
      "method:push@2",
      "function:makeStack@4",
      "constant:size@7",
      "variable:legacy@8",
    ],
    refs: ["Stack@5", "makeStack@9", "push@9", "size@9"],
  },
  "sample.py": {
    defs: [
      "constant:MAX_ITEMS@1",
      "class:Inventory@3",
      "method:add@4",
      "function:validate@8",
      "constant:inv@11",
    ],
    refs: ["append@5", "validate@6", "len@9", "Inventory@11", "add@12"],
  },
  "sample.go": {
    defs: [
      "constant:Limit@3",
      "type:Store@5",
      "type:Reader@7",
      "function:NewStore@9",
      "method:Add@11",
    ],
    refs: [
      "string@5",
      "string@7",
      "Store@9",
      "Store@11",
      "string@11",
      "append@12",
      "Println@13",
      "len@13",
    ],
  },
  "sample.rs": {
    defs: [
      "class:Stack@1",
      "enum:Shape@2",
      "interface:Area@3",
      "method:area@3",
      "type:Id@4",
      "constant:MAX@5",
      "macro:square@6",
      "module:inner@7",
      "method:push@9",
      "function:new_stack@11",
    ],
    refs: ["T@1", "Vec@1", "T@8", "Stack@8", "T@9", "Stack@11", "new@11", "println@11"],
  },
  "sample.c": {
    defs: [
      "constant:LIMIT@2",
      "macro:MAX@3",
      "class:node@4",
      "type:node_t@5",
      "enum:color@6",
      "function:name_of@7",
      "function:sum@8",
    ],
    refs: ["node@5", "node_t@7", "MAX@8", "printf@8"],
  },
  "sample.cpp": {
    defs: ["module:geo@1", "class:Shape@2", "method:area@6", "function:main@8"],
    refs: ["compute@6", "Shape@8", "area@8"],
  },
  "Sample.java": {
    defs: [
      "class:Sample@2",
      "enum:Mode@3",
      "interface:Listener@4",
      "method:fire@4",
      "method:Sample@5",
      "method:run@6",
      "method:helper@7",
    ],
    refs: ["Runnable@2", "helper@6", "StringBuilder@6", "StringBuilder@7", "length@7"],
  },
  "sample.rb": {
    defs: ["module:Billing@1", "class:Invoice@2", "method:total@3", "method:build@6"],
    refs: ["compute_total@4"],
  },
  "sample.sh": { defs: ["function:greet@2"], refs: ["echo@3", "greet@5"] },
};

for (const [file, expected] of Object.entries(EXPECTED)) {
  Deno.test(`SymbolParser.parse() finds the definitions and references of ${file}`, async () => {
    assertEquals(await definitions(file), expected.defs);
    assertEquals(await references(file), expected.refs);
  });
}

Deno.test("SymbolParser.parse() gives line ranges and signature lines", async () => {
  const symbols = await symbolsOf("sample.ts");
  const circle = symbols.definitions.find((d) => d.name === "Circle")!;
  assertEquals([circle.line, circle.endLine], [17, 27]);
  assertEquals(circle.signature, "export class Circle extends Base implements Shape {");
  const ref = symbols.references.find((r) => r.name === "helper")!;
  assertEquals(ref.text, "return helper(this.area());");
});

Deno.test("SymbolParser.parse() survives broken source and returns what it can", async () => {
  parser ??= loadGrammarAssets().then((assets) => SymbolParser.create(assets));
  const symbols = await (await parser).parse(
    "typescript",
    "export function ok() {}\nfunction broken( {\n class {{{ \n",
  );
  assert(symbols.definitions.some((d) => d.name === "ok"));
});

Deno.test("grammarFor() maps extensions and leaves unknown files out", () => {
  assertEquals(grammarFor("a/b.d.ts"), "typescript");
  assertEquals(grammarFor("x.PY"), "python");
  assertEquals(grammarFor("Makefile"), undefined);
  assertEquals(grammarFor("dir.ts/readme"), undefined);
});
