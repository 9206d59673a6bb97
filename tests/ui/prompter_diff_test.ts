// The approval prompt of a file-changing call shows its diff (worked out by the tool host in
// the tool's sandbox) instead of the arguments as JSON; `v` unfolds a long one.

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createPrompter } from "../../src/ui/prompter.ts";
import { openLoopHost } from "../helpers/loop_host.ts";

function scripted(keys: string[]) {
  let out = "";
  return {
    io: {
      readKey: () => Promise.resolve(keys.shift() ?? ""),
      readLine: () => Promise.resolve(null),
      write: (text: string) => {
        out += text;
      },
    },
    output: () => out,
  };
}

Deno.test("createPrompter() shows an edit_file call as the diff of the file it changes", async () => {
  await using loop = await openLoopHost({
    builtins: true,
    grants: ["--allow-read=.", "--allow-write=."],
    files: { "a.txt": "alpha\nbeta\ngamma\n" },
  });
  const args = { path: "a.txt", old_string: "beta", new_string: "BETA two", replace_all: false };
  const terminal = scripted(["1"]);
  const answer = await createPrompter({ io: terminal.io, color: false }).ask({
    tool: "edit_file",
    args,
    risk: "high",
    alwaysFile: "p.jsonc",
    preview: () => loop.host.preview("edit_file", args),
  });
  assertEquals(answer, { kind: "once" });
  const shown = terminal.output();
  assert(
    shown.includes(
      "a.txt  +1 -1\n@@ -1,3 +1,3 @@\n  1   1   alpha\n  2     - beta\n      2 + BETA two\n  3   3   gamma\n",
    ),
    shown,
  );
  assert(!shown.includes("Arguments in full"), shown);
});

Deno.test("createPrompter() folds a long diff and shows it whole after v", async () => {
  const before = Array.from({ length: 100 }, (_, i) => `old ${i}`).join("\n") + "\n";
  const after = Array.from({ length: 100 }, (_, i) => `new ${i}`).join("\n") + "\n";
  const terminal = scripted(["v", "4"]);
  const answer = await createPrompter({ io: terminal.io, color: false }).ask({
    tool: "write_file",
    args: { path: "big.txt", content: after },
    risk: "high",
    alwaysFile: "p.jsonc",
    preview: () => Promise.resolve({ change: { path: "big.txt", before, after } }),
  });
  assertEquals(answer.kind, "deny");
  const shown = terminal.output();
  const fold = shown.indexOf("more lines: press v to show the whole change");
  assert(fold > 0, shown);
  assert(!shown.slice(0, fold).includes("+ new 99"), "folded");
  assert(shown.slice(fold).includes("+ new 99\n"), shown.slice(fold));
});

Deno.test("createPrompter() shows the choices again under the whole change", async () => {
  const before = Array.from({ length: 100 }, (_, i) => `old ${i}`).join("\n") + "\n";
  const after = before.replaceAll("old", "new");
  const terminal = scripted(["v", "1"]);
  await createPrompter({ io: terminal.io, color: false }).ask({
    tool: "write_file",
    args: { path: "big.txt", content: after },
    risk: "high",
    alwaysFile: "p.jsonc",
    preview: () => Promise.resolve({ change: { path: "big.txt", before, after } }),
  });
  const shown = terminal.output();
  const whole = shown.slice(shown.indexOf("press v to show the whole change"));
  assert(whole.includes("+ new 99\n"), whole);
  assert(
    whole.slice(whole.indexOf("+ new 99")).includes(
      "[1] Allow once  [2] Allow for this session  [3] Always allow  [4] Deny\n> Allowed once\n",
    ),
    whole,
  );
});

Deno.test("askMany() lists each file change with its diff; long changes are asked one by one", async () => {
  const change = (path: string, before: string | null, after: string) => ({
    tool: "write_file",
    // The arguments as a model sends them; a long content would be asked one by one anyway.
    args: { path, content: after.length > 20 ? "…" : after },
    risk: "high" as const,
    alwaysFile: "p.jsonc",
    preview: () => Promise.resolve({ change: { path, before, after } }),
  });
  const short = scripted(["a"]);
  const answer = await createPrompter({ io: short.io, color: false }).askMany!([
    change("a.txt", "one\ntwo\n", "one\n2\n"),
    change("b.txt", null, "new\n"),
  ]);
  assertEquals(answer, { kind: "all" });
  assert(
    short.output().includes(
      '  1. write_file  {"path": "a.txt", "content": "one\\n2\\n"}  risk: HIGH\n' +
        "     a.txt  +1 -1\n     @@ -1,2 +1,2 @@\n       1   1   one\n       2     - two\n" +
        "           2 + 2\n" +
        '  2. write_file  {"path": "b.txt", "content": "new\\n"}  risk: HIGH\n' +
        "     b.txt  new file, 1 line, 4 B\n       1 + new\n",
    ),
    short.output(),
  );
  const rows = Array.from({ length: 30 }, (_, i) => `row ${i}`).join("\n");
  const long = scripted([]);
  const each = await createPrompter({ io: long.io, color: false }).askMany!([
    change("a.txt", null, rows),
    change("b.txt", null, rows),
  ]);
  assertEquals(each, { kind: "each" });
  assert(long.output().includes("their changes are too long to list together"), long.output());
  assert(!long.output().includes("row 1"), long.output());
});
