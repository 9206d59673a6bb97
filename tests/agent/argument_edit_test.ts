// argumentChanges and editNote (src/agent/argument_edit.ts): what the model is told about a
// call the user changed: short values as phrases, multi-line or many changes as diffs.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { argumentChanges, editNote } from "../../src/agent/argument_edit.ts";

Deno.test("argumentChanges() ignores key order and lists added and removed arguments", async () => {
  assertEquals(await argumentChanges({ a: 1, b: { x: 1, y: 2 } }, { b: { y: 2, x: 1 }, a: 1 }), []);
  const changes = await argumentChanges({ path: "a", n: 1 }, { path: "a", cwd: "src" });
  assertEquals(changes, [{ key: "n", before: 1 }, { key: "cwd", after: "src" }]);
  assertEquals(
    editNote(changes),
    'The user changed this call before running it: n removed (was 1); cwd added: "src"',
  );
});

Deno.test("editNote() shows a multi-line value's change as a unified diff of its lines", async () => {
  const before = { path: "a.txt", content: "one\ntwo\nthree\nfour\n" };
  const after = { path: "b.txt", content: "one\ntwo\n3\nfour\n" };
  const note = editNote(await argumentChanges(before, after));
  assertEquals(
    note,
    [
      "The user changed this call before running it:",
      'path was "a.txt", ran "b.txt"',
      "content (- yours, + what ran):",
      "@@ -1,4 +1,4 @@",
      " one",
      " two",
      "-three",
      "+3",
      " four",
    ].join("\n"),
  );
});

Deno.test("argumentChanges() diffs every value when more than three changed", async () => {
  const changes = await argumentChanges({ a: 1, b: 2, c: 3, d: 4 }, { a: 5, b: 6, c: 7, d: 8 });
  assertEquals(changes.length, 4);
  assert(changes.every((change) =>
    change.diff?.includes("-1") || change.diff?.includes("-2") ||
    change.diff?.includes("-3") || change.diff?.includes("-4")
  ));
  assertEquals(changes[0]!.diff, ["@@ -1,1 +1,1 @@", "-1", "+5"]);
});

Deno.test("argumentChanges() diffs an object value as pretty JSON", async () => {
  const [change] = await argumentChanges({ opts: { depth: 1, all: true } }, {
    opts: { depth: 2, all: true },
  });
  assertEquals(change!.diff, [
    "@@ -1,4 +1,4 @@",
    " {",
    '-  "depth": 1,',
    '+  "depth": 2,',
    '   "all": true',
    " }",
  ]);
});
