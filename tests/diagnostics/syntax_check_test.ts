import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { SyntaxChecker, textEdit } from "../../src/diagnostics/syntax_check.ts";

Deno.test("SyntaxChecker.errors() gives the line, column and words of syntax errors", async () => {
  const checker = new SyntaxChecker();
  try {
    const cases: [string, string, string][] = [
      ["a.py", "def f(x):\n    return (x\n", "syntax error"],
      ["a.ts", "const a = 1;\nfunction f( {\n  return 1;\n}\n", "syntax error"],
      ["a.go", "package main\n\nfunc main() {\n\tx := \n}\n", "missing"],
      ["a.rs", "fn main() {\n    let x = (1 + 2;\n}\n", "missing"],
    ];
    for (const [path, text, words] of cases) {
      const errors = await checker.errors(path, text);
      assert(errors.length > 0 && errors[0]!.message.includes(words), JSON.stringify(errors));
      assert(errors[0]!.line <= text.split("\n").length && errors[0]!.column >= 1);
    }
    assertEquals(await checker.errors("ok.ts", "export const a = 1;\n"), []);
    assertEquals(await checker.errors("notes.txt", "(((("), []);
  } finally {
    checker.close();
  }
});

Deno.test("SyntaxChecker reparsing from the kept tree finds what a fresh parse finds", async () => {
  // A differential test over random edits: the incremental parse (the tree kept from the last
  // text, edited) against a fresh checker that parses each text whole. tree-sitter may recover
  // from errors otherwise when it reparses, so a broken text is parsed afresh; a wrong edit
  // description would show as an error missed or made up.
  const kept = new SyntaxChecker();
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const pieces = ["(", ")", "{", "}", ";", "\n", "const x = 1", "é", "😀", "'", "if (a) ", " "];
  let text = await Deno.readTextFile(new URL("../../src/jobs/job_log.ts", import.meta.url));
  try {
    for (let i = 0; i < 60; i++) {
      const at = random(text.length);
      const cut = random(8);
      text = text.slice(0, at) + pieces[random(pieces.length)]! + text.slice(at + cut);
      const fresh = new SyntaxChecker();
      try {
        assertEquals(
          await kept.errors("f.ts", text),
          await fresh.errors("f.ts", text),
          `edit ${i}`,
        );
      } finally {
        fresh.close();
      }
    }
  } finally {
    kept.close();
  }
});

Deno.test("textEdit() names the changed span in string indices, rows and columns", () => {
  assertEquals(textEdit("ab\ncd\nef", "ab\nXd\nef"), {
    startIndex: 3,
    oldEndIndex: 4,
    newEndIndex: 4,
    startPosition: { row: 1, column: 0 },
    oldEndPosition: { row: 1, column: 1 },
    newEndPosition: { row: 1, column: 1 },
  });
});
