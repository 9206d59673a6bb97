// The approval prompt's diff: line numbers of both files, colours, folding of long diffs, new
// files by their first lines and size, and a file's escape sequences shown as text.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { formatFileDiff, promptDiff } from "../../src/ui/file_diff_view.ts";

const numbered = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => `line ${i + from}`).join("\n") + "\n";

Deno.test("formatFileDiff() numbers each line in the file it belongs to, with 3 lines of context", () => {
  const before = numbered(20);
  const after = before.replace("line 10\n", "line ten\nline ten and a half\n");
  const view = formatFileDiff({ path: "src/a.ts", before, after }, { color: false });
  assertEquals(view.hidden, 0);
  assertEquals(
    view.text,
    [
      "src/a.ts  +2 -1",
      "@@ -7,7 +7,8 @@",
      "   7    7   line 7",
      "   8    8   line 8",
      "   9    9   line 9",
      "  10      - line 10",
      "       10 + line ten",
      "       11 + line ten and a half",
      "  11   12   line 11",
      "  12   13   line 12",
      "  13   14   line 13",
      "",
    ].join("\n"),
  );
});

Deno.test("formatFileDiff() colours added lines green and removed lines red", () => {
  const view = formatFileDiff({ path: "a", before: "x\n", after: "y\n" }, { color: true });
  assert(view.text.includes("\x1b[31m- x\x1b[0m"), JSON.stringify(view.text));
  assert(view.text.includes("\x1b[32m+ y\x1b[0m"), JSON.stringify(view.text));
});

Deno.test("formatFileDiff() folds a long diff and shows it whole on request", () => {
  const before = numbered(200);
  const after = numbered(200, 1000);
  const folded = formatFileDiff({ path: "a", before, after }, { color: false });
  assertEquals(folded.text.split("\n").length - 2, 40);
  assert(folded.hidden > 300, String(folded.hidden));
  const whole = formatFileDiff({ path: "a", before, after }, { color: false, all: true });
  assertEquals(whole.hidden, 0);
  assert(whole.text.includes("- line 200\n") && whole.text.includes("+ line 1199\n"));
});

Deno.test("formatFileDiff() shows a new file by its first lines and size", () => {
  const view = formatFileDiff({ path: "new.md", before: null, after: numbered(30) }, {
    color: false,
  });
  const lines = view.text.split("\n");
  assertEquals(lines[0], "new.md  new file, 30 lines, 231 B");
  assertEquals(lines[1], "   1 + line 1");
  assertEquals(lines.length - 2, 20);
  assertEquals(view.hidden, 10);
});

Deno.test("formatFileDiff() attack: escape sequences in the file or its name show as text", () => {
  const view = formatFileDiff({
    path: "a\x1b]0;owned\x07.txt",
    before: "safe\n",
    after: "safe\n\x1b[2J\x1b]52;c;ZXZpbA==\x07clear\u202etxt.exe\n",
  }, { color: false });
  assert(!view.text.includes("\x1b"), JSON.stringify(view.text));
  assert(!view.text.includes("\x07") && !view.text.includes("\u202e"), JSON.stringify(view.text));
  assert(view.text.includes("\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07clear\\u202etxt.exe"), view.text);
  assert(view.text.startsWith("a\\x1b]0;owned\\x07.txt"), view.text);
});

Deno.test("promptDiff() offers the whole change behind the fold, and says why there is none", async () => {
  const change = { path: "a", before: numbered(100), after: numbered(100, 500) };
  const diff = await promptDiff(() => Promise.resolve({ change }), false);
  assert(diff?.text.includes("more lines: press v to show the whole change"), diff?.text);
  assert(diff?.whole?.().includes("+ line 599"));
  const none = await promptDiff(() => Promise.resolve(undefined), false);
  assertEquals(none, undefined);
  const failed = await promptDiff(() => Promise.resolve({ error: "x\x1b[31m" }), false);
  assertEquals(failed?.text, "No diff to show: x\\x1b[31m\n");
});
